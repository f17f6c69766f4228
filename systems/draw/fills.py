"""Indexed triangles coloured per vertex, any number of them in one draw call: the creatures' fills.

Each body is drawn as fans (a centre joined to every rim point), which cover
a shape exactly while it stays star-shaped from its centre, as a ring kept
round by pressure does.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from arcade.gl import BufferDescription

if TYPE_CHECKING:
    from arcade.gl import Context, Geometry

FloatArray = npt.NDArray[np.float64]
IndexArray = npt.NDArray[np.int64]

VERTEX_FIELDS = 6
"""Columns of a fill vertex: ``x, y, r, g, b, a`` (px, colour 0..1)."""

FILL_VERTEX_SHADER = """
#version 330
uniform WindowBlock {
    mat4 projection;
    mat4 view;
} window;

in vec2 in_pos;
in vec4 in_color;

out vec4 v_color;

void main() {
    gl_Position = window.projection * window.view * vec4(in_pos, 0.0, 1.0);
    v_color = in_color;
}
"""

FILL_FRAGMENT_SHADER = """
#version 330
in vec4 v_color;
out vec4 f_color;

void main() {
    f_color = v_color;
}
"""


def fan_triangles(rims: IndexArray) -> npt.NDArray[np.uint32]:
    """Triangle indices ``(t, 3)`` of two fans per body, bodies one after the other.

    ``rims[b]`` is how many rim points body b's fans have; each fan's
    vertices are its centre, then its rim (``fan_vertices``'s layout).
    """
    triangles = []
    first = 0
    for m in rims.tolist():
        k = np.arange(m)
        for _ in range(2):  # the shade fan, then the lit one
            triangles.append(np.column_stack([np.full(m, first), first + 1 + k, first + 1 + (k + 1) % m]))
            first += m + 1
    return np.concatenate(triangles).astype(np.uint32)


def fan_vertices(rims: list[FloatArray], centre: FloatArray, colors: list[FloatArray]) -> FloatArray:
    """Fill vertices ``(B, fans · (m + 1), 6)``: per body, each fan's centre then its rim ``(B, m, 2)``.

    ``centre`` is ``(B, 2)``; ``colors`` holds each fan's ``(B, 4)`` RGBA 0..255.
    A fan covers the shape exactly while every rim point can be seen from the
    centre (star-shaped): creatures pick a centre that does (``fan_centres``).
    """
    count, m = rims[0].shape[:2]
    vertices = np.empty((count, len(rims), m + 1, VERTEX_FIELDS), dtype=np.float32)
    for fan, (rim, color) in enumerate(zip(rims, colors, strict=True)):
        vertices[:, fan, 0, :2] = centre
        vertices[:, fan, 1:, :2] = rim
        vertices[:, fan, :, 2:] = (color / 255.0)[:, None]
    return vertices.reshape(count, -1, VERTEX_FIELDS)


class FillBatch:
    """A reusable GPU batch of indexed triangles coloured per vertex; ``draw`` sends them all in one call.

    The index buffer is rewritten only when it is handed a different index
    array: the creatures' fans keep theirs for as long as the bodies stay.
    """

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._program = ctx.program(vertex_shader=FILL_VERTEX_SHADER, fragment_shader=FILL_FRAGMENT_SHADER)
        self._vertex_capacity = 0
        self._index_capacity = 0
        self._vertices = None
        self._indices = None
        self._geometry: Geometry | None = None
        self._triangles: npt.NDArray[np.uint32] | None = None

    def draw(self, vertices: npt.NDArray[np.float32], triangles: npt.NDArray[np.uint32]) -> None:
        """Draw ``triangles`` ``(t, 3)`` of ``vertices`` ``(v, 6)``, in order, blended over what is there."""
        if len(triangles) == 0:
            return
        self._reserve(len(vertices), triangles.size)
        self._vertices.write(np.ascontiguousarray(vertices, dtype=np.float32))
        if triangles is not self._triangles:
            self._triangles = triangles
            self._indices.write(np.ascontiguousarray(triangles, dtype=np.uint32))
        self._geometry.render(self._program, vertices=triangles.size)

    def _reserve(self, vertices: int, indices: int) -> None:
        """Grow the buffers (by powers of two) to hold ``vertices`` vertices and ``indices`` indices."""
        if vertices <= self._vertex_capacity and indices <= self._index_capacity:
            return
        ctx = self.ctx
        self._vertex_capacity = max(self._vertex_capacity, 1024, 1 << math.ceil(math.log2(vertices)))
        self._index_capacity = max(self._index_capacity, 4096, 1 << math.ceil(math.log2(indices)))
        self._vertices = ctx.buffer(reserve=self._vertex_capacity * VERTEX_FIELDS * 4, usage="stream")
        self._indices = ctx.buffer(reserve=self._index_capacity * 4, usage="dynamic")
        self._triangles = None
        self._geometry = ctx.geometry(
            [BufferDescription(self._vertices, "2f 4f", ["in_pos", "in_color"])],
            index_buffer=self._indices,
            index_element_size=4,
            mode=ctx.TRIANGLES,
        )
