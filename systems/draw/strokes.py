"""Thick round-capped segments (capsules) and rings, any number of them in one draw call.

Each segment is one instance of a six-vertex quad that covers its capsule;
the fragment shader measures the distance ``d`` from the pixel to the
segment ``ab`` and keeps ``d < radius`` (or a band of width ``ring`` at the
rim, for rings), anti-aliased over one screen pixel with ``fwidth``, or
fading out over ``feather`` px for soft glows. A zero-length segment is a
disc or a ring. Overlays (a blade trail, a grab line, an arrow) are built as
one array and drawn together.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from arcade.gl import BufferDescription

if TYPE_CHECKING:
    from arcade.gl import Context

FloatArray = npt.NDArray[np.float64]

SEGMENT_FIELDS = 11
"""Columns of a segment row: ``ax, ay, bx, by, radius, ring, feather, r, g, b, a`` (px, colour 0..1)."""

VERTEX_SHADER = """
#version 330
uniform WindowBlock {
    mat4 projection;
    mat4 view;
} window;

in vec2 in_corner;  // (-1 or 1 along the segment, -1 or 1 across)
in vec4 in_ends;    // a.xy, b.xy
in vec3 in_size;    // radius, ring width (0 = filled), feather (0 = sharp)
in vec4 in_color;

out vec2 v_pos;
flat out vec4 v_ends;
flat out vec3 v_size;
flat out vec4 v_color;

void main() {
    vec2 a = in_ends.xy;
    vec2 b = in_ends.zw;
    float len = length(b - a);
    vec2 along = len > 1e-6 ? (b - a) / len : vec2(1.0, 0.0);
    vec2 across = vec2(-along.y, along.x);
    // one extra pixel all round leaves room for the anti-aliased edge
    float reach = in_size.x + 1.0;
    v_pos = 0.5 * (a + b) + along * in_corner.x * (0.5 * len + reach) + across * in_corner.y * reach;
    gl_Position = window.projection * window.view * vec4(v_pos, 0.0, 1.0);
    v_ends = in_ends;
    v_size = in_size;
    v_color = in_color;
}
"""

FRAGMENT_SHADER = """
#version 330
in vec2 v_pos;
flat in vec4 v_ends;
flat in vec3 v_size;
flat in vec4 v_color;

out vec4 f_color;

void main() {
    vec2 a = v_ends.xy;
    vec2 ab = v_ends.zw - a;
    float t = clamp(dot(v_pos - a, ab) / max(dot(ab, ab), 1e-12), 0.0, 1.0);
    float d = length(v_pos - (a + t * ab));
    float pixel = max(fwidth(d), 1e-4);
    float radius = v_size.x;
    float outside = d - radius;
    if (v_size.y > 0.0) {
        // a ring: distance to the band's middle line, against half its width
        outside = abs(d - (radius - 0.5 * v_size.y)) - 0.5 * v_size.y;
    }
    float coverage = clamp(0.5 - outside / pixel, 0.0, 1.0);
    if (v_size.z > 0.0) {
        // a glow: full inside, easing to nothing over the feather at the rim
        float fade = clamp(-outside / v_size.z, 0.0, 1.0);
        coverage *= fade * fade;
    }
    if (coverage <= 0.0) discard;
    f_color = vec4(v_color.rgb, v_color.a * coverage);
}
"""


def segments(
    starts: npt.ArrayLike,
    ends: npt.ArrayLike,
    radius: npt.ArrayLike,
    color: npt.ArrayLike,
    ring: npt.ArrayLike = 0.0,
    feather: npt.ArrayLike = 0.0,
) -> npt.NDArray[np.float32]:
    """Rows for ``StrokeBatch.draw``: ``(n, 11)`` float32 from ``(n, 2)`` starts and ends (px).

    ``radius`` (px, half the stroke width), ``ring`` (px, band width of a ring;
    0 for filled) and ``feather`` (px of soft edge inside the radius; 0 for
    sharp) are scalars or ``(n,)``; ``color`` is one RGBA (0..255) or ``(n, 4)``.
    """
    starts = np.asarray(starts, dtype=np.float64).reshape(-1, 2)
    ends = np.asarray(ends, dtype=np.float64).reshape(-1, 2)
    rows = np.empty((len(starts), SEGMENT_FIELDS), dtype=np.float32)
    rows[:, 0:2] = starts
    rows[:, 2:4] = ends
    rows[:, 4] = radius
    rows[:, 5] = ring
    rows[:, 6] = feather
    rows[:, 7:11] = np.asarray(color, dtype=np.float64) / 255.0
    return rows


def polyline_rows(
    line: FloatArray, radius: npt.ArrayLike, color: FloatArray, closed: bool = False
) -> npt.NDArray[np.float32]:
    """Stroke rows ``(B, segments, 11)`` along B polylines ``(B, k, 2)``: one capsule between neighbours.

    The columns are ``strokes.segments``'s. ``radius`` is px, broadcast to
    ``(B, segments)`` (a scalar, ``(B, 1)`` or full); ``color`` is ``(B, 4)``
    RGBA 0..255. Round caps on every segment make the joins round.
    """
    ends = np.concatenate([line[:, 1:], line[:, :1]], axis=1) if closed else line[:, 1:]
    starts = line if closed else line[:, :-1]
    rows = np.zeros((*starts.shape[:2], SEGMENT_FIELDS), dtype=np.float32)
    rows[..., 0:2] = starts
    rows[..., 2:4] = ends
    rows[..., 4] = radius
    rows[..., 7:11] = (color / 255.0)[:, None]
    return rows


class StrokeBatch:
    """A reusable GPU batch of capsules and rings; ``draw`` sends them all in one call."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._program = ctx.program(vertex_shader=VERTEX_SHADER, fragment_shader=FRAGMENT_SHADER)
        corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, -1], [1, 1], [-1, 1]], dtype="f4")
        self._corners = ctx.buffer(data=corners)
        self._capacity = 0
        self._instances = None
        self._geometry = None

    def draw(self, rows: npt.NDArray[np.float32]) -> None:
        """Draw ``rows`` (from ``segments``, concatenated) in order, blended over what is there."""
        if len(rows) == 0:
            return
        self._reserve(len(rows))
        self._instances.write(np.ascontiguousarray(rows, dtype=np.float32))
        self.ctx.enable(self.ctx.BLEND)
        self._geometry.render(self._program, vertices=6, instances=len(rows))

    def _reserve(self, count: int) -> None:
        """Grow the instance buffer (by powers of two) to hold ``count`` segments."""
        if count <= self._capacity:
            return
        ctx = self.ctx
        self._capacity = max(64, 1 << math.ceil(math.log2(count)))
        self._instances = ctx.buffer(reserve=self._capacity * SEGMENT_FIELDS * 4, usage="stream")
        self._geometry = ctx.geometry(
            [
                BufferDescription(self._corners, "2f", ["in_corner"]),
                BufferDescription(
                    self._instances, "4f 3f 4f", ["in_ends", "in_size", "in_color"], instanced=True
                ),
            ],
            mode=ctx.TRIANGLES,
        )
