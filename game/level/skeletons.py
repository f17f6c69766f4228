"""The ``[[skeleton]]`` table: joints, bones, the skin they move, and what drives them.

Joints are named points of the bind pose (px, relative to ``position``);
a bone runs from one joint (its head) to another (its tail). A bone's
parent is the bone whose tail is its head or, failing that, an earlier
bone with the same head (a thigh hangs from the spine's head, the pelvis).
Angle limits and keyframed angles are measured at the head, relative to
the parent, as a turn from the bind pose.
"""

from __future__ import annotations

import difflib
import math
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, model_validator

from weft.components.skinned import DEFAULT_SKINNING, Skinning
from weft.game.level.problems import AtKey
from weft.game.level.values import Color, Rectangle, Table, Vec2, when
from weft.systems.kernels.bone_weights import SMOOTHING_FRACTION
from weft.systems.skeletons import BoneSpec, bone_parents, parents_first

DRIVES = ("ragdoll", "clip")
SKINNINGS = tuple(method.value for method in Skinning)
MAX_JOINTS = 64
MAX_MESH_VERTICES = 20000


def _unknown(what: str, name: str, names: list[str]) -> str:
    """``expected a joint's name, got 'elbo' (did you mean 'elbow'?)``."""
    close = difflib.get_close_matches(name, names, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"expected a {what}'s name, got {name!r}{hint}"


def _on_loop(parents: list[int]) -> int:
    """A bone whose chain of parents comes back to it."""
    for start in range(len(parents)):
        k, seen = start, set()
        while k >= 0 and k not in seen:
            seen.add(k)
            k = parents[k]
        if k == start:
            return start
    return 0


class JointTable(Table):
    """A named point of the bind pose: a particle of a ragdoll, an end of a bone."""

    name: str = Field(description="Name bones refer to.")
    at: Vec2 = Field(description="Where it is in the bind pose [x, y], px from the skeleton's `position`.")
    radius: float | None = Field(
        None,
        ge=0.0,
        le=100.0,
        description="Ragdoll: how far (px) it keeps other things away; unset: `joint_radius`.",
    )


class BoneTable(Table):
    """A bone from its head joint to its tail joint."""

    name: str = Field(description="Name keyframes and weights refer to.")
    head: str = Field(description="Joint the bone starts at (it turns about this one).")
    tail: str = Field(description="Joint the bone ends at.")
    min_deg: float | None = Field(
        None,
        ge=-180.0,
        le=180.0,
        description="The most the bone may turn clockwise from its bind angle to its parent, degrees "
        "(negative; unset: free). A ragdoll's joint is held there; a clip's keys must stay within it "
        "(its eased curve is clamped to it between keys); the skin never shows the bone turned further. "
        "A root bone (no parent) takes no limit.",
    )
    max_deg: float | None = Field(
        None,
        ge=-180.0,
        le=180.0,
        description="The most it may turn counter-clockwise, degrees (unset: free); as `min_deg`.",
    )

    @model_validator(mode="after")
    def _limits_in_order(self) -> BoneTable:
        if self.min_deg is not None and self.max_deg is not None and self.min_deg > self.max_deg:
            raise AtKey("min_deg", f"expected min_deg <= max_deg ({self.max_deg}), got {self.min_deg}")
        return self


Weight = Annotated[float, Field(ge=0.0, le=1.0)]


class SkinTable(Table):
    """The mesh the bones move: a grid over a texture, or vertices given one by one."""

    texture: str | None = Field(
        None,
        description="Image drawn on the mesh (PNG, whose transparent cells are left out; or JPEG, drawn "
        "whole), relative to the level file; unset: `color`.",
    )
    rect: Rectangle | None = Field(
        None,
        description="Where the texture lies in the bind pose [left, bottom, right, top], px from `position`; "
        "unset: the joints' bounding box with `margin` around it.",
    )
    margin: float = Field(16.0, ge=0.0, le=500.0, description="px around the joints when `rect` is unset.")
    grid: Annotated[list[Annotated[int, Field(ge=1, le=128)]], Field(min_length=2, max_length=2)] = Field(
        [16, 32],
        description="Cells across and down of the mesh laid over `rect`; cells where the texture is "
        "transparent are left out.",
    )
    vertices: list[Vec2] = Field(
        [],
        max_length=MAX_MESH_VERTICES,
        description="An explicit mesh instead of the grid: [[x, y], ...], px.",
    )
    triangles: list[Annotated[list[Annotated[int, Field(ge=0)]], Field(min_length=3, max_length=3)]] = Field(
        [], description="Triangles of the explicit mesh, as vertex indices [[i, j, k], ...]."
    )
    uvs: list[Vec2] = Field([], description="Texture coordinates of the explicit mesh (0-1), one per vertex.")
    bones: list[list[str]] = Field(
        [],
        description="Bones each vertex follows (at most 4), by name; with `weights`. Unset: weights are "
        "made by heat over the mesh from the bone each vertex sees nearest (bone heat).",
    )
    weights: list[list[Weight]] = Field(
        [], description="Weight of each of the vertex's `bones`; they must sum to 1 for every vertex."
    )
    normalize_weights: bool = Field(
        False, description="Rescale weights that do not sum to 1 (with a warning) instead of refusing them."
    )
    smoothing: float | None = Field(
        None,
        ge=0.1,
        le=1000.0,
        description="Automatic weights: how far (px) the blend between two bones reaches round a joint "
        "(wider lets a joint bend further before the inside of the bend folds; about the limb's width "
        f"for 150 degrees); unset: {SMOOTHING_FRACTION:g} of the mean bone length.",
    )
    color: Color = Field("#ffffff", description="Tint of the texture, or the fill without one.")
    outline_color: Color = Field("#2c2228", description="Colour of the bones in the debug view.")
    probes: list[str] = Field(
        [],
        description="Joints near which the debug view marks a few vertices' rigid positions (one colour per "
        "bone) beside their skinned one.",
    )

    @model_validator(mode="after")
    def _rect_has_an_inside(self) -> SkinTable:
        if self.rect is not None and (self.rect[2] - self.rect[0] < 1.0 or self.rect[3] - self.rect[1] < 1.0):
            raise AtKey(
                "rect", f"expected [left, bottom, right, top] at least 1 px wide and tall, got {self.rect}"
            )
        return self

    @model_validator(mode="after")
    def _explicit_mesh_is_whole(self) -> SkinTable:
        if not self.vertices:
            for key in ("triangles", "uvs", "bones", "weights"):
                if getattr(self, key):
                    raise AtKey(
                        key, f"expected no {key} without `vertices` (the grid makes its own), got some"
                    )
            return self
        v = len(self.vertices)
        for key in ("uvs",):
            if len(getattr(self, key)) != v:
                raise AtKey(key, f"expected one entry per vertex ({v}), got {len(getattr(self, key))}")
        if not self.triangles:
            raise AtKey("triangles", "expected at least one triangle for the explicit mesh, got none")
        for k, triangle in enumerate(self.triangles):
            if max(triangle) >= v:
                raise AtKey(f"triangles.{k}", f"expected vertex indices below {v}, got {triangle}")
        if bool(self.bones) != bool(self.weights):
            raise AtKey("weights", "expected `bones` and `weights` together (or neither: automatic weights)")
        if self.bones:
            for key in ("bones", "weights"):
                if len(getattr(self, key)) != v:
                    raise AtKey(key, f"expected one entry per vertex ({v}), got {len(getattr(self, key))}")
            for k, (names, weights) in enumerate(zip(self.bones, self.weights, strict=True)):
                if len(names) != len(weights):
                    raise AtKey(
                        f"weights.{k}",
                        f"expected one weight per bone of vertex {k} ({len(names)}), got {weights}",
                    )
                if sum(1 for w in weights if w > 0.0) > 4:
                    raise AtKey(
                        f"bones.{k}", f"expected at most 4 bones per vertex, got {len(names)}: {names}"
                    )
                total = sum(weights)
                if abs(total - 1.0) > 1e-6 and not self.normalize_weights:
                    raise AtKey(
                        f"weights.{k}",
                        f"expected weights summing to 1, got {weights} (sum {total:.6g}); fix them or set "
                        "normalize_weights = true",
                    )
                if total == 0.0:
                    raise AtKey(f"weights.{k}", f"expected a weight above 0 on some bone, got {weights}")
        return self


class KeyTable(Table):
    """One keyframe: bone angles at a time."""

    time: float = Field(ge=0.0, le=3600.0, description="When, s from the start of the clip.")
    angles: dict[str, Annotated[float, Field(ge=-720.0, le=720.0)]] = Field(
        description="Turn of each named bone from its bind pose, relative to its parent, degrees "
        "counter-clockwise; bones not named keep their bind angle."
    )


class ClipTable(Table):
    """A looping keyframed animation of the bones."""

    keys: list[KeyTable] = Field(min_length=1, description="Keyframes, in time order.")
    duration: float | None = Field(
        None,
        ge=0.01,
        le=3600.0,
        description="Length of the loop, s; unset: the last key's time (it loops back to the first key); "
        "a clip of one key is a still pose.",
    )
    smooth: bool = Field(True, description="Ease through the keys (Catmull-Rom) rather than straight lines.")

    @model_validator(mode="after")
    def _keys_in_order(self) -> ClipTable:
        times = [key.time for key in self.keys]
        for k in range(1, len(times)):
            if times[k] <= times[k - 1]:
                raise AtKey(f"keys.{k}.time", f"expected a time after {times[k - 1]}, got {times[k]}")
        if len(times) > 1 and self.duration is None and times[-1] <= 0.0:
            raise AtKey("duration", "expected a loop length, got none and no key after time 0")
        if self.duration is not None and self.duration < times[-1]:
            raise AtKey(
                "duration", f"expected at least the last key's time ({times[-1]} s), got {self.duration}"
            )
        return self


class Skeleton(Table):
    """A character: a skeleton of joints and bones, and a skin the bones move."""

    model_config = ConfigDict(json_schema_extra=when("drive", "clip", {"required": ["clip"]}))

    name: str = Field("skeleton", description="Name of the character in state files.")
    position: Vec2 = Field(
        [640.0, 300.0],
        description="Where the joints' origin is placed [x, y], px; every joint inside the world's `bounds`.",
    )
    drive: Literal[DRIVES] = Field(
        "ragdoll",
        description='"ragdoll": joints are particles that fall, collide and can be grabbed; "clip": the '
        "bones follow `clip`'s keyframes.",
    )
    skinning: Literal[SKINNINGS] = Field(
        DEFAULT_SKINNING.value,
        description='How the skin follows its bones: "dual_quaternion" blends the bones\' rigid motions '
        '(Kavan et al. 2008), so a bent joint keeps its width; "linear" blends their matrices (linear '
        "blend skinning, the textbook reference), so a joint bent by θ shrinks to cos(θ/2) of its width "
        "(0.26 at 150 degrees) and folds sooner.",
    )
    joints: list[JointTable] = Field(min_length=2, max_length=MAX_JOINTS, description="The joints.")
    bones: list[BoneTable] = Field(min_length=1, max_length=MAX_JOINTS, description="The bones.")
    braces: list[Annotated[list[str], Field(min_length=2, max_length=2)]] = Field(
        [],
        description="Ragdoll: extra stiff links between joints that are not bones (e.g. to keep a torso "
        "rigid), as [joint, joint] pairs.",
    )
    joint_radius: float = Field(
        6.0,
        ge=0.0,
        le=100.0,
        description="Ragdoll: how far (px) a joint keeps other things away, unless it says.",
    )
    mass: float = Field(1.0, ge=0.001, le=1000.0, description="Ragdoll: mass of each joint.")
    pinned: list[str] = Field([], description="Ragdoll: joints held where they are.")
    skin: SkinTable = Field(default_factory=SkinTable, description="See the skin table.")
    clip: ClipTable | None = Field(None, description='Keyframes; required when drive = "clip".')

    @model_validator(mode="after")
    def _names_resolve(self) -> Skeleton:
        joints = [joint.name for joint in self.joints]
        for k, name in enumerate(joints):
            if joints.index(name) != k:
                raise AtKey(f"joints.{k}.name", f"expected a name no other joint uses, got {name!r}")
        bones = [bone.name for bone in self.bones]
        for k, bone in enumerate(self.bones):
            if bones.index(bone.name) != k:
                raise AtKey(f"bones.{k}.name", f"expected a name no other bone uses, got {bone.name!r}")
            for key in ("head", "tail"):
                joint = getattr(bone, key)
                if joint not in joints:
                    raise AtKey(f"bones.{k}.{key}", _unknown("joint", joint, joints))
            if bone.head == bone.tail:
                raise AtKey(f"bones.{k}.tail", f"expected a joint other than the head, got {bone.tail!r}")
            head, tail = (self.joints[joints.index(j)].at for j in (bone.head, bone.tail))
            if head == tail:
                raise AtKey(f"bones.{k}", f"expected its joints at two places, got both at {head}")
        specs = [BoneSpec(bone.name, joints.index(bone.head), joints.index(bone.tail)) for bone in self.bones]
        parents = bone_parents(specs)
        try:
            parents_first(parents)
        except ValueError:
            raise AtKey(
                f"bones.{_on_loop(parents)}",
                "expected bones that form a tree, got a loop of bones each the parent of the next",
            ) from None
        for k, bone in enumerate(self.bones):
            if parents[k] < 0 and (bone.min_deg is not None or bone.max_deg is not None):
                raise AtKey(
                    f"bones.{k}.min_deg" if bone.min_deg is not None else f"bones.{k}.max_deg",
                    "expected no angle limit on a root bone (it has no parent to turn against), got one",
                )
        for k, (a, b) in enumerate(self.braces):
            if (
                a in joints
                and b in joints
                and self.joints[joints.index(a)].at == self.joints[joints.index(b)].at
            ):
                raise AtKey(f"braces.{k}", f"expected two joints at two places, got {a!r} and {b!r} at one")
        for key, names in (("braces", [j for pair in self.braces for j in pair]), ("pinned", self.pinned)):
            for name in names:
                if name not in joints:
                    raise AtKey(key, _unknown("joint", name, joints))
        for name in self.skin.probes:
            if name not in joints:
                raise AtKey("skin.probes", _unknown("joint", name, joints))
        for k, names in enumerate(self.skin.bones):
            for name in names:
                if name not in bones:
                    raise AtKey(f"skin.bones.{k}", _unknown("bone", name, bones))
        if self.drive == "clip":
            if self.clip is None:
                raise AtKey("clip", 'expected a [skeleton.clip] table for drive = "clip", got none')
            for k, key in enumerate(self.clip.keys):
                for name in key.angles:
                    if name not in bones:
                        raise AtKey(
                            f"clip.keys.{k}.angles",
                            _unknown("bone", name, bones),
                        )
                    bone = self.bones[bones.index(name)]
                    _within_limits(bone, key.angles[name], f"clip.keys.{k}.angles.{name}")
        return self


def _within_limits(bone: BoneTable, degrees: float, key: str) -> None:
    """Refuse a keyframed turn beyond the bone's ``min_deg``/``max_deg``: the skin would never show it (it
    is clamped there), and a key the animation cannot reach is a mistake to say, not to hide."""
    low = -math.inf if bone.min_deg is None else bone.min_deg
    high = math.inf if bone.max_deg is None else bone.max_deg
    if not low <= degrees <= high:
        allowed = "..".join("" if limit is None else f"{limit:g}" for limit in (bone.min_deg, bone.max_deg))
        raise AtKey(
            key,
            f"expected a turn within bone {bone.name!r}'s limits ({allowed} degrees: min_deg..max_deg), "
            f"got {degrees:g}",
        )
