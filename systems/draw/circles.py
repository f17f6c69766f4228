"""Every circle of the world as a shaded ball, all in one ``GL_POINTS`` draw call.

Each circle is one point sprite whose side (``gl_PointSize``) is its
diameter in framebuffer px plus one px on each side for the anti-aliased
rim. The fragment shader measures the distance ``d`` from the sprite's
centre, discards outside the disc and fades the last pixel with a
smoothstep, so discs stay round at any size without geometry.

Shading: the disc is read as the front half of a sphere, whose normal at
``q`` (the offset from the centre over the radius) is
``(q.x, q.y, sqrt(1 - |q|²))``. A light from the upper left gives
Lambert's ``max(n · L, 0)`` plus a small Blinn highlight; a thin band at the
rim is darkened to an outline so touching balls stay apart.

Colour: a ramp through the level's ``[view] palette``, evaluated per vertex
on the GPU from what each circle already uploads: its radius (``color_by =
"size"``, the smallest circle present at the first colour, the largest at the
last) or its speed ``|pos - prev| / dt`` (``"speed"``).

Three float32 vertex buffers hold the circles' positions, previous
positions and radii (px), each written with one ``buffer.write`` a frame from
a staging array filled by a whole-array numpy copy; buffers and staging
arrays grow by doubling when circles are poured.

Point sprites are limited by the driver's largest point size
(``ctx.info.POINT_SIZE_RANGE``: 255 px on Mesa llvmpipe, usually more on
GPUs): a ball wider than that on screen would be cropped to a square.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from arcade.gl import BufferDescription

from weft.components import FRAME_DT, ParticleKind, ParticleStore
from weft.systems import world
from weft.systems.draw.options import DrawOptions
from weft.systems.schedule import Step, System

if TYPE_CHECKING:
    from arcade.gl import Buffer, Context

MAX_PALETTE = 8
"""Palette colours the shader holds (the level schema allows 2 to 8)."""

TOP_SPEED = 1500.0
"""px/s drawn with the last palette colour under ``color_by = "speed"``; faster circles clamp to it.

A circle dropped from the top of a 720 px level lands at about 1190 px/s
(``sqrt(2 · 980 · 720)``), and explosions give up to 6000 px/s: 1500 px/s
spreads a falling, settling pile over the whole ramp and lets blasts saturate.
"""

MIN_CAPACITY = 256
"""Circles the first GPU buffer holds; it doubles from there."""

VERTEX_SHADER = """
#version 330
uniform WindowBlock {
    mat4 projection;
    mat4 view;
} window;

uniform float zoom;          // framebuffer px per world px
uniform vec4 palette[8];     // the ramp's colours, 0..1; the first `colors` are used
uniform int colors;
uniform bool by_speed;
uniform vec2 radius_range;   // smallest and largest radius of the circles present, px
uniform float speed_scale;   // 1 / (substep dt * top speed): px moved per substep -> 0..1

in vec2 in_pos;
in vec2 in_prev;
in float in_radius;

flat out vec4 v_color;
flat out float v_radius;     // disc radius, framebuffer px

vec4 ramp(float t) {
    float s = clamp(t, 0.0, 1.0) * float(colors - 1);
    int k = min(int(s), colors - 2);
    return mix(palette[k], palette[k + 1], s - float(k));
}

void main() {
    gl_Position = window.projection * window.view * vec4(in_pos, 0.0, 1.0);
    float t;
    if (by_speed) {
        t = length(in_pos - in_prev) * speed_scale;
    } else {
        t = (in_radius - radius_range.x) / max(radius_range.y - radius_range.x, 1e-6);
    }
    v_color = ramp(t);
    v_radius = in_radius * zoom;
    // one px beyond the disc on each side for the anti-aliased rim
    gl_PointSize = 2.0 * v_radius + 2.0;
}
"""

FRAGMENT_SHADER = """
#version 330
// a light from the upper left and in front; `halfway` is Blinn's (light + view) / |light + view|
const vec3 light = vec3(-0.42, 0.48, 0.77);
const vec3 halfway = vec3(-0.22, 0.25, 0.94);
const float ambient = 0.6;      // brightness of the side turned away from the light
const float diffuse = 0.5;      // added by Lambert's term: the centre comes out at about 1
const float specular = 0.22;    // white added at the highlight's peak
const float shininess = 28.0;
const float outline_shade = 0.5;

flat in vec4 v_color;
flat in float v_radius;

out vec4 f_color;

void main() {
    // px from the centre of the sprite; gl_PointCoord's y runs down, the world's up
    float size = 2.0 * v_radius + 2.0;  // the sprite's side, as the vertex shader set it
    vec2 offset = (gl_PointCoord - 0.5) * size * vec2(1.0, -1.0);
    float d = length(offset);
    float coverage = 1.0 - smoothstep(v_radius - 0.5, v_radius + 0.5, d);
    if (coverage <= 0.0) discard;
    vec2 q = offset / max(v_radius, 1e-3);
    vec3 normal = vec3(q, sqrt(max(1.0 - dot(q, q), 0.0)));
    float lambert = max(dot(normal, normalize(light)), 0.0);
    float highlight = pow(max(dot(normal, normalize(halfway)), 0.0), shininess);
    vec3 color = v_color.rgb * (ambient + diffuse * lambert) + specular * highlight;
    // the outline: about a tenth of the radius, never thinner than a hairline nor thicker than 1.5 px
    float width = clamp(0.12 * v_radius, 0.7, 1.5);
    float rim = smoothstep(v_radius - width - 0.6, v_radius - width + 0.4, d);
    color = mix(color, v_color.rgb * outline_shade, rim);
    f_color = vec4(color, v_color.a * coverage);
}
"""


def circle_rows(
    particles: ParticleStore,
    pos: npt.NDArray[np.float32],
    prev: npt.NDArray[np.float32],
    radius: npt.NDArray[np.float32],
    indices: npt.NDArray[np.int64] | None,
) -> int:
    """Copy the circles' positions, previous positions and radii to the front of the staging arrays.

    ``pos`` and ``prev`` are ``(capacity, 2)``, ``radius`` ``(capacity,)``;
    returns how many circles were copied.
    ``indices`` are the circles' rows in the store, or None when rows
    ``[0, count)`` are all circles (then plain slices are copied, the common
    case of a ball level). Three contiguous float32 arrays, not one
    interleaved one: a strided cast costs about five times as much.
    """
    if indices is None:
        m = particles.count
        np.copyto(pos[:m], particles.pos[:m], casting="same_kind")
        np.copyto(prev[:m], particles.prev[:m], casting="same_kind")
        np.copyto(radius[:m], particles.radius[:m], casting="same_kind")
    else:
        m = len(indices)
        np.copyto(pos[:m], particles.pos[indices], casting="same_kind")
        np.copyto(prev[:m], particles.prev[indices], casting="same_kind")
        np.copyto(radius[:m], particles.radius[indices], casting="same_kind")
    return m


class CircleSystem(System):
    """Draws every particle of kind ``CIRCLE`` as a shaded, palette-coloured ball, in one call.

    Reads ``options.zoom`` (framebuffer px per world px, from the renderer's
    fit), ``options.color_by`` and ``options.palette``. Cloth and other
    points are not drawn here: their meshes are.
    """

    name = "circles"

    def __init__(self, ctx: Context, options: DrawOptions) -> None:
        self.ctx = ctx
        self.options = options
        self._program = ctx.program(vertex_shader=VERTEX_SHADER, fragment_shader=FRAGMENT_SHADER)
        # not on the context (see reference NOTES); imported here, once arcade has set pyglet up
        from pyglet.gl import GL_PROGRAM_POINT_SIZE

        self._point_size_flag = GL_PROGRAM_POINT_SIZE
        self.capacity = 0
        """Circles the GPU buffers hold now (they double as circles are poured)."""
        self._buffers: tuple[Buffer, Buffer, Buffer] | None = None
        self._geometry = None
        self._staging = (np.zeros((0, 2), np.float32), np.zeros((0, 2), np.float32), np.zeros(0, np.float32))
        self._palette: tuple[tuple[int, int, int, int], ...] = ()
        self._uniforms: dict[str, object] = {}
        self._rows_key: tuple[object, int, frozenset[int]] | None = None
        self._indices: npt.NDArray[np.int64] | None = None

    def process(self, step: Step) -> None:
        particles = world.stores().particles
        if particles.circles == 0:
            return
        indices = self._circle_indices(particles)
        self._reserve(particles.circles)
        m = circle_rows(particles, *self._staging, indices)
        if m == 0:
            return
        for buffer, staged in zip(self._buffers, self._staging, strict=True):
            buffer.write(staged[:m])
        options = self.options
        self._set_palette(options.palette)
        self._set("zoom", options.zoom)
        by_speed = options.color_by == "speed"
        self._set("by_speed", by_speed)
        if by_speed:
            substep_dt = FRAME_DT / world.settings().resolved_substeps()
            self._set("speed_scale", 1.0 / (substep_dt * TOP_SPEED))
        else:
            radii = self._staging[2][:m]
            self._set("radius_range", (float(radii.min()), float(radii.max())))
        ctx = self.ctx
        ctx.enable(ctx.BLEND, self._point_size_flag)
        self._geometry.render(self._program, vertices=m)

    def _set(self, name: str, value: object) -> None:
        """Set a uniform only when its value changed: each set is a GL call, and most frames change none."""
        if self._uniforms.get(name) != value:
            self._uniforms[name] = value
            self._program[name] = value

    def _circle_indices(self, particles: ParticleStore) -> npt.NDArray[np.int64] | None:
        """Rows of the store that are circles of bodies not hidden, or None when every row in use is one.

        Rows change only when bodies come or go (``options.world`` then changes) or
        circles are poured (the count changes), so the answer is kept until one of those.
        """
        hidden = self.options.hidden
        if particles.circles == particles.count and not hidden:
            return None
        key = (self.options.world, particles.count, hidden)
        if key != self._rows_key:
            self._rows_key = key
            n = particles.count
            shown = particles.kind[:n] == ParticleKind.CIRCLE
            if hidden:
                shown &= ~np.isin(particles.owner[:n], list(hidden))
            self._indices = np.flatnonzero(shown)
        return self._indices

    def _set_palette(self, palette: tuple[tuple[int, int, int, int], ...]) -> None:
        """Send the ramp's colours (0-255 RGBA) to the shader when they changed."""
        if palette == self._palette:
            return
        self._palette = palette
        colors = np.zeros((MAX_PALETTE, 4), dtype=np.float64)
        used = min(len(palette), MAX_PALETTE)
        colors[:used] = np.asarray(palette[:used], dtype=np.float64) / 255.0
        if used == 1:  # a one-colour ramp: both ends the same
            colors[1] = colors[0]
        self._program["palette"] = tuple(colors.ravel().tolist())
        self._program["colors"] = max(used, 2)

    def _reserve(self, circles: int) -> None:
        """Grow the vertex buffers and their staging arrays (by powers of two) to hold ``circles``."""
        if circles <= self.capacity:
            return
        ctx = self.ctx
        self.capacity = max(MIN_CAPACITY, 1 << math.ceil(math.log2(circles)))
        capacity = self.capacity
        self._staging = (
            np.zeros((capacity, 2), np.float32),
            np.zeros((capacity, 2), np.float32),
            np.zeros(capacity, np.float32),
        )
        self._buffers = tuple(ctx.buffer(reserve=staged.nbytes, usage="stream") for staged in self._staging)
        pos, prev, radius = self._buffers
        self._geometry = ctx.geometry(
            [
                BufferDescription(pos, "2f", ["in_pos"]),
                BufferDescription(prev, "2f", ["in_prev"]),
                BufferDescription(radius, "1f", ["in_radius"]),
            ],
            mode=ctx.POINTS,
        )
