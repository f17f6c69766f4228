"""Skinned characters drawn as textured triangle meshes, one draw call per character.

The skin is one mesh (``SkinnedMesh``), so it stays whole across the joints:
the skinning system has already moved every vertex, and drawing only
uploads them. Per character the GPU holds:

- ``x, y, nx, ny`` per vertex (skinned position, px, and outline normal),
  written with one ``buffer.write`` a frame;
- the uvs, the triangle indices and each vertex's weight colour (the debug
  view's), written once;
- the texture, shared by every character that uses the same file.

Textures are uploaded with premultiplied alpha and blended with
``(ONE, ONE_MINUS_SRC_ALPHA)``. With straight alpha, linear filtering mixes
the colour of a clear texel (often black) into the edge of an opaque one,
and the skin gets a dark fringe; premultiplied, a clear texel adds nothing.
The mipmaps are box-filtered on the CPU from the premultiplied image and
uploaded level by level (see ``weft.systems.draw.textures`` for why not
``glGenerateMipmap``). The mesh's ``uvs`` have v = 0 at the bottom of the
image, and GL's first texture row is its bottom one: the image is flipped
once on load.

Without a texture the skin is a flat fill of ``look.color``, shaded from
the outline normals, which are unit length on the outline and zero inside;
interpolated across a triangle, ``|n|`` runs from 1 at the edge to 0 one
grid cell in. The shade darkens a rim where ``|n|`` is large and lights the
side facing the light (from the upper left, fixed in the world) by
``n · light``: the limbs read as round.

Debug view: the skin dimmed and tinted by its weights (each bone a colour
from ``BONE_COLORS``, blended by the vertex's weights), then, for every
character at once in one ``StrokeBatch`` call: the bones as lines from
their origin to ``origin + x_axis · length``, each bone's frame as a red x
and a green y tick at its origin, and for each probe vertex the textbook
figure of skinning: a dot where the vertex would be if rigidly attached to
each of its bones (in that bone's colour); a thin grey line joining those
dots, where linear blend skinning puts the vertex as its weight slides
from one bone to the other, with a grey dot where it puts it now; a thin
white arc between them, where dual-quaternion skinning puts it; and the
skinned vertex in white. With ``skinning = "dual_quaternion"`` the white
dot sits on the arc and the grey one, inside the bend, shows how far the
linear blend would have pulled it in (at 150 degrees, three quarters of
the way to the joint); with ``"linear"`` the white dot covers the grey.

The probe dots take the colour of their bone, not of the slot the bone
sits in: slots are ordered per vertex, so one vertex's slot 0 may be the
upper arm and its neighbour's the forearm, and the figure would swap
colours from one vertex to the next.

Cost, CPU per frame on Mesa llvmpipe (median, measured): 0.17 ms for the
297-vertex arm of ``levels/elbow.toml``, 0.55 ms for the 1094-vertex doll
of ``levels/ragdoll.toml`` (most of it inside the draw call); the debug
view adds 0.3 to 0.4 ms.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from arcade.gl import BufferDescription
from PIL import Image

from weft.components.skinned import Skinned
from weft.named_files import FileRefused, read_named_image
from weft.systems.draw.options import DrawOptions
from weft.systems.draw.strokes import StrokeBatch, segments
from weft.systems.draw.textures import upload_mipmaps
from weft.systems.kernels.dual_quaternions import blend_rigid_motions
from weft.systems.kernels.skinning import rigid_positions
from weft.systems.schedule import Step, System
from weft.systems.world import by_entity

if TYPE_CHECKING:
    from arcade.gl import Buffer, Context, Geometry, Texture2D

FloatArray = npt.NDArray[np.float64]

MOTION_FIELDS = 4
"""Columns of a vertex row written every frame: ``x, y, nx, ny`` (px, unit outline normal or zero)."""

RIM_SHADE = 0.3
"""How much darker the flat fill is right on the outline (it fades in over one grid cell)."""

LIGHT_SHADE = 0.14
"""Brightening of an outline facing the light (darkening facing away), as a factor of the fill."""

DEBUG_DIM = 0.45
"""Brightness of the skin in the debug view, so the bones and markers stand out."""

WEIGHT_MIX = 0.5
"""How far the dimmed skin goes towards its weight colours in the debug view."""

BONE_COLORS = np.array(
    [
        (255, 140, 30),  # orange
        (40, 210, 255),  # cyan
        (235, 70, 200),  # magenta
        (150, 230, 50),  # lime
        (255, 225, 60),  # yellow
        (140, 110, 255),  # violet
        (240, 60, 60),  # red
        (40, 200, 150),  # teal
    ],
    dtype=np.float64,
)
"""Bone k's colour in the debug view is ``BONE_COLORS[k % 8]`` (RGB 0-255): its weight tint and its probe
dots. Bones are listed parents first, so a bone and its child (the two sides of a joint) differ."""

BONE_HALO = (245, 245, 240, 230)
"""A light band under each bone line, so a dark ``look.outline`` shows on the dimmed skin too, RGBA 0-255."""

BONE_WIDTH = 1.6
"""Half the width of a bone line, screen px; its halo is ``HALO_WIDTH`` wider on each side."""

AXIS_TICK = 16.0
"""Length of a bone frame's x and y ticks, screen px."""

AXIS_WIDTH = 1.2
"""Half the width of an axis tick, screen px."""

X_AXIS_COLOR = (235, 55, 45, 255)
Y_AXIS_COLOR = (70, 205, 80, 255)

PROBE_LINE = (150, 150, 160, 255)
"""The line joining a probe vertex's rigid positions (the linear blend's path), RGBA 0-255."""

PROBE_ARC = (245, 245, 245, 255)
"""The arc joining them along the dual-quaternion blend's path, RGBA 0-255."""

PROBE_LINE_WIDTH = 0.9
"""Half the width of that line and arc, screen px."""

ARC_SAMPLES = 16
"""Points along each arc (15 segments: smooth at the debug view's sizes)."""

LINEAR_DOT = 2.2
"""Radius of the grey dot where the linear blend puts the probe vertex, screen px."""

LINEAR_COLOR = (150, 150, 160, 255)

RIGID_DOT = 3.0
"""Radius of a rigid-position dot, screen px."""

SKINNED_DOT = 2.5
"""Radius of the skinned vertex's white dot, screen px."""

SKINNED_COLOR = (255, 255, 255, 255)

HALO = (12, 14, 20, 230)
"""A dark ring round each dot, so it shows on any skin, RGBA 0-255."""

HALO_WIDTH = 1.0
"""Width of the ring round dots and bone lines, screen px."""

VERTEX_SHADER = """
#version 330
uniform WindowBlock {
    mat4 projection;
    mat4 view;
} window;

in vec2 in_pos;          // skinned position, world px
in vec2 in_normal;       // outline normal (unit), zero inside the mesh
in vec2 in_uv;           // v = 0 at the bottom of the image
in vec3 in_weights;      // the vertex's bones' colours blended by weight (debug view)

out vec2 v_normal;
out vec2 v_uv;
out vec3 v_weights;

void main() {
    gl_Position = window.projection * window.view * vec4(in_pos, 0.0, 1.0);
    v_normal = in_normal;
    v_uv = in_uv;
    v_weights = in_weights;
}
"""

FRAGMENT_SHADER = """
#version 330
uniform sampler2D skin;      // premultiplied alpha
uniform bool textured;
uniform vec4 tint;           // straight alpha, 0..1
uniform float rim_shade;
uniform float light_shade;
uniform float brightness;
uniform float weight_mix;

// the light comes from the upper left, fixed in the world (y up), as for boxes and creatures
const vec2 light = vec2(-0.70710678, 0.70710678);

in vec2 v_normal;
in vec2 v_uv;
in vec3 v_weights;

out vec4 f_color;            // premultiplied alpha

void main() {
    vec4 color;
    if (textured) {
        color = texture(skin, v_uv) * vec4(tint.rgb * tint.a, tint.a);
    } else {
        // |n| is 1 on the outline and fades to 0 one grid cell in
        float rim = clamp(length(v_normal), 0.0, 1.0);
        float shade = 1.0 - rim_shade * rim * rim + light_shade * dot(v_normal, light);
        color = vec4(clamp(tint.rgb * shade, 0.0, 1.0) * tint.a, tint.a);
    }
    color.rgb = mix(color.rgb * brightness, v_weights * color.a, weight_mix);
    f_color = color;
}
"""


@dataclass
class _Character:
    """The GPU side of one character's skin."""

    mesh_id: int
    motion: Buffer
    geometry: Geometry
    staging: npt.NDArray[np.float32]
    """``(v, MOTION_FIELDS)``: filled from the mesh every frame, then written with one call."""
    index_count: int


class SkinMeshSystem(System):
    """Draws every ``Skinned`` entity's mesh (by entity id), one call each; the debug view adds one call.

    Constructed with the GL context and the shared ``DrawOptions``; GPU
    buffers are cached per entity for as long as ``options.world`` stays the
    same, textures per file for as long as the system lives.
    """

    name = "skin_mesh"

    def __init__(self, ctx: Context, options: DrawOptions) -> None:
        self.ctx = ctx
        self.options = options
        self._program = ctx.program(vertex_shader=VERTEX_SHADER, fragment_shader=FRAGMENT_SHADER)
        self._program["skin"] = 0
        self._program["rim_shade"] = RIM_SHADE
        self._program["light_shade"] = LIGHT_SHADE
        self._characters: dict[int, _Character] = {}
        self._world: object = None
        self._textures = SkinTextures(ctx)
        self._blank = ctx.texture((1, 1), components=4, data=bytes(4))
        self._debug = StrokeBatch(ctx)

    def process(self, step: Step) -> None:
        characters = [(e, skinned) for e, skinned in by_entity(Skinned) if e not in self.options.hidden]
        if self.options.world != self._world:
            # a rebuilt world reuses entity ids for other characters: start afresh
            self._characters.clear()
            self._world = self.options.world
        if not characters:
            return
        if len(self._characters) > len(characters):  # a character was removed: let its buffers go
            present = {entity for entity, _ in characters}
            self._characters = {e: c for e, c in self._characters.items() if e in present}
        debug = self.options.debug
        ctx = self.ctx
        program = self._program
        program["brightness"] = DEBUG_DIM if debug else 1.0
        program["weight_mix"] = WEIGHT_MIX if debug else 0.0
        ctx.enable(ctx.BLEND)
        ctx.disable(ctx.CULL_FACE)  # the mesh may list either winding, and folds at a sharp bend
        # arcade's BLEND_PREMULTIPLIED_ALPHA is (SRC_ALPHA, ONE), an additive blend: spelled out here
        ctx.blend_func = ctx.ONE, ctx.ONE_MINUS_SRC_ALPHA
        try:
            for entity, skinned in characters:
                self._draw_skin(entity, skinned)
        finally:
            ctx.blend_func = ctx.BLEND_DEFAULT
        if debug:
            zoom = self.options.zoom
            self._debug.draw(np.concatenate([debug_rows(skinned, zoom) for _, skinned in characters]))

    def _draw_skin(self, entity: int, skinned: Skinned) -> None:
        """Upload the character's skinned vertices and draw its mesh in one call."""
        mesh = skinned.mesh
        character = self._characters.get(entity)
        if character is None or character.mesh_id != id(mesh):
            character = self._characters[entity] = self._new_character(skinned)
        staging = character.staging
        staging[:, 0:2] = mesh.positions
        staging[:, 2:4] = mesh.normals
        character.motion.write(staging)
        look = skinned.look
        texture = self._textures.texture(look.texture, look.folder) if look.texture is not None else None
        program = self._program
        program["textured"] = texture is not None
        program["tint"] = tuple(channel / 255.0 for channel in look.color)
        (texture or self._blank).use(0)
        character.geometry.render(program, vertices=character.index_count)

    def _new_character(self, skinned: Skinned) -> _Character:
        """Buffers for a character's mesh: the per-frame vertex rows, and the uvs, weight colours and
        triangles, which never change."""
        ctx = self.ctx
        mesh = skinned.mesh
        v = len(mesh.positions)
        motion = ctx.buffer(reserve=v * MOTION_FIELDS * 4, usage="stream")
        uvs = ctx.buffer(data=mesh.uvs.astype("f4"))
        colors = ctx.buffer(data=weight_colors(mesh.bone_indices, mesh.weights).astype("f4"))
        indices = ctx.buffer(data=np.ascontiguousarray(mesh.triangles, dtype=np.uint32))
        geometry = ctx.geometry(
            [
                BufferDescription(motion, "2f 2f", ["in_pos", "in_normal"]),
                BufferDescription(uvs, "2f", ["in_uv"]),
                BufferDescription(colors, "3f", ["in_weights"]),
            ],
            index_buffer=indices,
            index_element_size=4,
            mode=ctx.TRIANGLES,
        )
        staging = np.zeros((v, MOTION_FIELDS), dtype=np.float32)
        return _Character(id(mesh), motion, geometry, staging, mesh.triangles.size)


def weight_colors(indices: npt.NDArray[np.int32], weights: FloatArray) -> FloatArray:
    """``(v, 3)`` RGB 0..1: each vertex's bones' ``BONE_COLORS`` blended by its weights ``(v, 4)``."""
    palette = BONE_COLORS / 255.0
    return np.einsum("vs,vsc->vc", weights, palette[indices % len(palette)])


def debug_rows(skinned: Skinned, zoom: float) -> npt.NDArray[np.float32]:
    """Stroke rows (``strokes.segments``'s columns) of one character's debug view, in drawing order.

    Bone halos, bone lines, x and y ticks, then per probe vertex the lines
    and arcs joining its rigid positions, the rigid dots (each in its bone's
    colour), the linear blend's grey dot and the skinned dot. Sizes are
    screen px: divided by ``zoom`` (framebuffer px per world px).
    """
    px = 1.0 / zoom
    skeleton, mesh = skinned.skeleton, skinned.mesh
    origin = skeleton.pose[:, :, 2]
    x_axis = skeleton.pose[:, :, 0]
    y_axis = skeleton.pose[:, :, 1]
    tail = origin + x_axis * skeleton.length[:, None]
    outline = skinned.look.outline
    rows = [
        segments(origin, tail, (BONE_WIDTH + HALO_WIDTH) * px, BONE_HALO),
        segments(origin, tail, BONE_WIDTH * px, outline),
        segments(origin, origin + _unit(x_axis) * AXIS_TICK * px, AXIS_WIDTH * px, X_AXIS_COLOR),
        segments(origin, origin + _unit(y_axis) * AXIS_TICK * px, AXIS_WIDTH * px, Y_AXIS_COLOR),
    ]
    probes = skinned.probes
    if len(probes):
        indices, weights = mesh.bone_indices[probes], mesh.weights[probes]
        bind = mesh.bind_positions[probes]
        rigid = rigid_positions(bind, indices, skeleton.skinning)  # (p, 4, 2)
        used = weights > 0.0
        # every pair of a vertex's bones: one line for two bones, a triangle's edges for three
        pairs = [(a, b) for a, b in itertools.combinations(range(indices.shape[1]), 2)]
        starts = np.concatenate([rigid[used[:, a] & used[:, b], a] for a, b in pairs])
        ends = np.concatenate([rigid[used[:, a] & used[:, b], b] for a, b in pairs])
        arcs = np.concatenate([_arcs(bind, indices, skeleton.skin_rotors, used, a, b) for a, b in pairs])
        dots = rigid[used]
        colors = np.column_stack([BONE_COLORS[indices[used] % len(BONE_COLORS)], np.full(len(dots), 255.0)])
        linear_at = np.einsum("ps,psi->pi", weights, rigid)
        skinned_at = mesh.positions[probes]
        rows += [
            segments(starts, ends, PROBE_LINE_WIDTH * px, PROBE_LINE),
            segments(
                arcs[:, :-1].reshape(-1, 2), arcs[:, 1:].reshape(-1, 2), PROBE_LINE_WIDTH * px, PROBE_ARC
            ),
            segments(dots, dots, (RIGID_DOT + HALO_WIDTH) * px, HALO),
            segments(dots, dots, RIGID_DOT * px, colors),
            segments(linear_at, linear_at, (LINEAR_DOT + HALO_WIDTH) * px, HALO),
            segments(linear_at, linear_at, LINEAR_DOT * px, LINEAR_COLOR),
            segments(skinned_at, skinned_at, (SKINNED_DOT + HALO_WIDTH) * px, HALO),
            segments(skinned_at, skinned_at, SKINNED_DOT * px, SKINNED_COLOR),
        ]
    return np.concatenate(rows)


def _arcs(
    bind: FloatArray,
    indices: npt.NDArray[np.int32],
    rotors: FloatArray,
    used: npt.NDArray[np.bool_],
    a: int,
    b: int,
) -> FloatArray:
    """``(p, ARC_SAMPLES, 2)``: for the probes using slots ``a`` and ``b``, where the dual-quaternion blend
    puts each as the weight goes from all on ``a``'s bone to all on ``b``'s."""
    both = used[:, a] & used[:, b]
    share = np.linspace(0.0, 1.0, ARC_SAMPLES)
    count = int(both.sum())
    points = np.repeat(bind[both], ARC_SAMPLES, axis=0)
    pair = np.repeat(rotors[indices[both][:, [a, b]]], ARC_SAMPLES, axis=0)  # (count·samples, 2, 4)
    mix = np.tile(np.column_stack([1.0 - share, share]), (count, 1))
    return blend_rigid_motions(points, pair, mix).reshape(count, ARC_SAMPLES, 2)


def _unit(vectors: FloatArray) -> FloatArray:
    """Rows ``(n, 2)`` scaled to length 1 (a clip may scale a bone; its ticks keep their length)."""
    length = np.hypot(vectors[:, 0], vectors[:, 1])
    return vectors / np.maximum(length, 1e-12)[:, None]


class SkinTextures:
    """Each skin image as a premultiplied, mipmapped texture, loaded once per path.

    An image that cannot be read gives None (the skin is then drawn in its
    flat colour): the level validator reports a missing or oversized file, and
    drawing must not crash on one saved over it since (``weft.named_files.read_named_image``
    checks the header's size before decoding, and that the file is still in the level's folder).
    """

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._textures: dict[tuple[str, str | None], Texture2D | None] = {}

    def texture(self, path: str, folder: str | None = None) -> Texture2D | None:
        """The texture of the PNG at ``path`` (which must lie in ``folder``), or None if it cannot be read."""
        key = (path, folder)
        if key not in self._textures:
            try:
                # GL's first row is the bottom of a texture, where the mesh's uv v = 0 is
                image = read_named_image(path, folder).transpose(Image.Transpose.FLIP_TOP_BOTTOM)
            except FileRefused:  # replaced since it was validated: too big, a FIFO, half saved, moved out
                self._textures[key] = None
            else:
                self._textures[key] = upload_mipmaps(self._ctx, premultiplied_mipmaps(image))
        return self._textures[key]


def premultiplied_mipmaps(image: Image.Image) -> list[npt.NDArray[np.uint8]]:
    """An RGBA image, premultiplied by its alpha, and its halvings down to 1×1, ``(h, w, 4)`` uint8 each.

    Each level is the box-filtered previous one (each channel resized on its
    own, in float, so the premultiplied colours are averaged as they are: a
    clear texel weighs nothing in its neighbours' colour).
    """
    pixels = np.asarray(image, dtype=np.float64)
    pixels[..., :3] *= pixels[..., 3:4] / 255.0
    channels = [Image.fromarray(pixels[..., c].astype(np.float32)) for c in range(4)]
    levels = [np.rint(pixels).astype(np.uint8)]
    width, height = image.size
    while width > 1 or height > 1:
        width, height = max(1, width // 2), max(1, height // 2)
        channels = [channel.resize((width, height), Image.Resampling.BOX) for channel in channels]
        level = np.stack([np.asarray(channel) for channel in channels], axis=-1)
        levels.append(np.clip(np.rint(level), 0, 255).astype(np.uint8))
    return levels
