"""Building bodies from their specs: the components an entity gets, its rows in the stores."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from weft.components import (
    BallSet,
    Blasts,
    Body,
    BoxSet,
    ClothLook,
    CreatureLook,
    CutStroke,
    ForceField,
    Grab,
    PinLayout,
    Pour,
    Press,
    RigidSettings,
    Shake,
    SoftBody,
    Stores,
    Wind,
    WorldSettings,
)
from weft.components.skinned import Clip, Ragdoll, SkinLook, Skinned, Skinning
from weft.game.level.schema import Balls, Boxes, Cloth, Creature, Level, Spec, ToolsTable, World, box_centers
from weft.game.level.skeletons import Skeleton
from weft.game.level.values import rgba
from weft.named_files import FileRefused, read_image
from weft.systems.balls import add_circles, packed_centers
from weft.systems.box_build import build_boxes
from weft.systems.cloth import build_cloth
from weft.systems.skeletons import BoneSpec, build_skeleton
from weft.systems.skin_mesh import MeshSpec
from weft.systems.softbody import build_creature

FloatArray = npt.NDArray[np.float64]

CIRCLE_ITERATIONS = 2
"""Iterations of a level of circles without cloth that does not set them: contacts need few."""


def world_settings(table: World, bodies: Sequence[Spec] = (), pour: bool = False) -> WorldSettings:
    """The ``WorldSettings`` of a ``[world]`` table, and what the bodies in the world imply.

    Iterations default to 20 (cloth needs them to be stiff), but to 2 in a
    world of circles without cloth, and to 1 in a world without particles
    (boxes alone); automatic substeps depend on the finest cloth spacing and
    on whether circles can appear (ball sets, or ``pour``: the pour tool).
    """
    iterations = table.iterations
    cloth = [body for body in bodies if isinstance(body, Cloth)]
    circles = pour or any(isinstance(body, Balls) for body in bodies)
    if "iterations" not in table.model_fields_set and not cloth:
        if circles:
            iterations = CIRCLE_ITERATIONS
        elif not any(isinstance(body, Creature | Skeleton) for body in bodies):
            iterations = 1  # no particles at all: the passes would find nothing to do
    return WorldSettings(
        gravity=(table.gravity[0], table.gravity[1]),
        damping=table.damping,
        iterations=iterations,
        substeps=0 if table.substeps == "auto" else table.substeps,
        bounds=(table.bounds[0], table.bounds[1], table.bounds[2], table.bounds[3]),
        floor_friction=table.floor_friction,
        wind=Wind(
            enabled=table.wind.enabled,
            strength=table.wind.strength,
            direction=math.radians(table.wind.direction_deg),
            gust=table.wind.gust,
        ),
        min_spacing=min((sheet.spacing for sheet in cloth), default=math.inf),
        circles=circles,
        ragdolls=any(isinstance(body, Skeleton) and body.drive == "ragdoll" for body in bodies),
        restitution=table.restitution,
        friction=table.friction,
        max_circles=table.max_circles,
        rigid=RigidSettings(**table.rigid.model_dump()),
    )


def level_bodies(model: Level) -> list[Spec]:
    """Every body a level holds, in the order a world is built from it."""
    return [*model.cloth, *model.balls, *model.creature, *model.boxes, *model.skeleton]


def has_circles(model: Level) -> bool:
    """Whether the level can ever hold circles: it has ball sets, or a tool that pours them."""
    return bool(model.balls) or "pour" in model.tools.available


def pin_layout(table: Cloth) -> PinLayout:
    """The ``PinLayout`` of a cloth table's ``pins``."""
    pins = table.pins
    return PinLayout(
        kind=pins.layout,
        every=pins.every,
        points=tuple((c, r) for c, r in pins.points),
        anchors=tuple((x, y) for x, y in pins.anchors),
    )


def cloth_look(table: Cloth, directory: Path) -> ClothLook:
    """The ``ClothLook`` of a cloth table; texture paths (relative to ``directory``) become absolute."""
    texture = str((directory / table.texture).resolve()) if table.texture else None
    return ClothLook(
        pattern=table.pattern,
        pattern_size=table.pattern_size,
        texture=texture,
        folder=str(directory.resolve()) if texture else None,
        colors=tuple(rgba(c) for c in table.colors),
    )


KINDS: dict[type, str] = {
    Cloth: "cloth",
    Balls: "balls",
    Creature: "creature",
    Boxes: "boxes",
    Skeleton: "skeleton",
}
"""Each body spec's kind: the level table that holds such bodies."""


def tool_components(tools: ToolsTable) -> list[object]:
    """What the input tools act through, on Weft's own entity; the pour tool's stream from ``tools.seed``."""
    return [
        Grab(),
        CutStroke(),
        ForceField(),
        Blasts(),
        Pour(rng=np.random.default_rng(tools.seed)),
        Shake(),
        Press(),
    ]


def build_body(stores: Stores, entity: int, spec: Spec, directory: Path) -> list[object]:
    """Add the body ``spec`` describes to the stores, owned by ``entity``; return the components to put
    on it (a ``Body`` first). File names in the spec are relative to ``directory``."""
    if isinstance(spec, Cloth):
        made: list[object] = [
            build_cloth(
                stores,
                entity,
                name=spec.name,
                origin=(spec.origin[0], spec.origin[1]),
                cols=spec.cols,
                rows=spec.rows,
                spacing=spec.spacing,
                mass=spec.mass,
                thickness=spec.thickness,
                tear_ratio=spec.structural_tear_ratio,
                compliance=spec.compliance,
                shear=spec.shear,
                bend=spec.bend,
                pins=pin_layout(spec),
                look=cloth_look(spec, directory),
            )
        ]
    elif isinstance(spec, Balls):
        add_balls(stores, entity, spec)
        made = [BallSet(name=spec.name)]
    elif isinstance(spec, Creature):
        made = [add_creature(stores, entity, spec)]
    elif isinstance(spec, Boxes):
        made = [add_boxes(stores, entity, spec)]
    else:
        skinned, driver = add_skeleton(stores, entity, spec, directory)
        made = [skinned] if driver is None else [skinned, driver]
    return [Body(KINDS[type(spec)], spec.name, spec), *made]


def add_creature(stores: Stores, entity: int, table: Creature) -> SoftBody:
    """The creature a ``[[creature]]`` table describes, its particles added to the stores."""
    return build_creature(
        stores,
        entity,
        name=table.name,
        center=(table.center[0], table.center[1]),
        radius=table.radius,
        points=table.points,
        rotation=math.radians(table.rotation_deg),
        pressure=table.pressure,
        upright=table.upright,
        look=CreatureLook(
            body=rgba(table.body_color),
            shade=rgba(table.shade_color),
            outline=rgba(table.outline_color),
            cheeks=rgba(table.cheek_color),
        ),
    )


def box_layout(table: Boxes) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Where a ``[[boxes]]`` table puts its boxes: centres ``(n, 2)`` px, angles ``(n,)`` rad and
    sizes ``(n, 2)`` px."""
    size = (table.size[0], table.size[1])
    centers = box_centers(table)
    count = len(centers)
    listed = table.layout == "list"  # a box's own angle and size are for listed boxes alone
    angles = np.radians(table.angles_deg) if listed and table.angles_deg else np.zeros(count)
    each_size = table.sizes if listed and table.sizes else [size] * count
    sizes = np.array(each_size, dtype=np.float64).reshape(count, 2)
    return centers, angles, sizes


def add_boxes(stores: Stores, entity: int, table: Boxes) -> BoxSet:
    """The box set a ``[[boxes]]`` table describes, its boxes added to the stores."""
    centers, angles, sizes = box_layout(table)
    count = len(centers)
    listed = table.layout == "list"
    each_velocity = table.velocities if listed and table.velocities else [table.velocity] * count
    velocities = np.array(each_velocity, dtype=np.float64).reshape(count, 2)
    spins = np.radians(table.spins) if listed and table.spins else np.full(count, math.radians(table.spin))
    return build_boxes(
        stores,
        entity,
        name=table.name,
        centers=centers,
        angles=angles,
        sizes=sizes,
        density=table.density,
        friction=table.friction,
        fixed=table.fixed,
        iterations=table.iterations,
        colors=tuple(rgba(c) for c in table.colors),
        restitution=table.restitution,
        velocities=velocities,
        spins=spins,
    )


def add_skeleton(
    stores: Stores, entity: int, table: Skeleton, directory: Path
) -> tuple[Skinned, Ragdoll | Clip | None]:
    """The character a ``[[skeleton]]`` table describes: its skin, and its ragdoll (in the stores) or clip."""
    names = [joint.name for joint in table.joints]
    joints = np.array([joint.at for joint in table.joints], dtype=np.float64) + table.position
    bones = [
        BoneSpec(
            bone.name,
            names.index(bone.head),
            names.index(bone.tail),
            None if bone.min_deg is None else math.radians(bone.min_deg),
            None if bone.max_deg is None else math.radians(bone.max_deg),
        )
        for bone in table.bones
    ]
    skin = table.skin
    texture = str((directory / skin.texture).resolve()) if skin.texture else None
    rect = skin.rect or _joint_box(table)
    bone_names = [bone.name for bone in table.bones]
    mesh = MeshSpec(
        rect=(
            rect[0] + table.position[0],
            rect[1] + table.position[1],
            rect[2] + table.position[0],
            rect[3] + table.position[1],
        ),
        cells=(skin.grid[0], skin.grid[1]),
        alpha=_alpha(texture) if texture else None,
        vertices=np.array(skin.vertices, dtype=np.float64) + table.position if skin.vertices else None,
        triangles=np.array(skin.triangles, dtype=np.int64) if skin.triangles else None,
        uvs=np.array(skin.uvs, dtype=np.float64) if skin.uvs else None,
        bones=[[bone_names.index(name) for name in row] for row in skin.bones] or None,
        weights=[list(row) for row in skin.weights] or None,
        normalise=skin.normalize_weights,
        smoothing=skin.smoothing,
    )
    clip = None
    if table.clip is not None:
        keys = table.clip.keys
        angles = np.zeros((len(keys), len(bones)))
        for k, key in enumerate(keys):
            for name, degrees in key.angles.items():
                angles[k, bone_names.index(name)] = math.radians(degrees)
        duration = table.clip.duration or keys[-1].time or 1.0  # one key at 0 s: a still pose
        clip = Clip(np.array([key.time for key in keys]), angles, duration, table.clip.smooth)
    return build_skeleton(
        stores,
        entity,
        name=table.name,
        joints=joints,
        bones=bones,
        mesh=mesh,
        look=SkinLook(
            texture, rgba(skin.color), rgba(skin.outline_color), str(directory.resolve()) if texture else None
        ),
        probes=[names.index(name) for name in skin.probes],
        ragdoll=table.drive == "ragdoll",
        braces=[(names.index(a), names.index(b)) for a, b in table.braces],
        joint_radius=np.array([table.joint_radius if j.radius is None else j.radius for j in table.joints]),
        mass=table.mass,
        pinned=[names.index(name) for name in table.pinned],
        clip=clip,
        method=Skinning(table.skinning),
    )


def _joint_box(table: Skeleton) -> list[float]:
    """The joints' bounding box grown by the skin's margin, relative to the skeleton's position."""
    at = np.array([joint.at for joint in table.joints], dtype=np.float64)
    margin = max(table.skin.margin, 1.0)  # joints in a line still make a rectangle with an inside
    low, high = at.min(axis=0) - margin, at.max(axis=0) + margin
    return [float(low[0]), float(low[1]), float(high[0]), float(high[1])]


def _alpha(path: str) -> np.ndarray:
    """The image's alpha channel, 0-1, first row at the top."""
    try:
        image = read_image(Path(path), "an image file (PNG) for the skin's texture", Path(path).name)
    except FileRefused as error:  # not an image, too big, or half saved
        raise ValueError(str(error)) from None
    return np.asarray(image.getchannel("A"), dtype=np.float64) / 255.0


def add_balls(stores: Stores, entity: int, table: Balls) -> None:
    """Add a ``[[balls]]`` set's circles: at its positions, or packed into its region; sizes from its seed."""
    rng = np.random.default_rng(table.seed)
    low, high = table.radius
    count = len(table.positions) or table.count
    radii = rng.uniform(low, high, count)
    if table.positions:
        centers = np.array(table.positions, dtype=np.float64).reshape(-1, 2)
    else:
        region = (table.region[0], table.region[1], table.region[2], table.region[3])
        centers = packed_centers(count, high, region, rng)
    added = add_circles(stores, entity, centers, radii)
    if table.fixed:
        stores.particles.inv_mass[added.start : added.stop] = 0.0
