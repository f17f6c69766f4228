"""Debug view: every alive thread as a line coloured by strain, all in one draw call."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from arcade.gl import BufferDescription

from weft.components import DistanceStore, ThreadKind
from weft.systems import world
from weft.systems.draw.options import DrawOptions
from weft.systems.schedule import Step, System

if TYPE_CHECKING:
    from arcade.gl import Context

UNTEARABLE_RED = 0.5
"""Relative stretch drawn red for threads that never tear (their tear ratio is infinite)."""

STRUCTURAL_ALPHA = 0.95
HIDDEN_ALPHA = 0.3
"""Shear and bend threads are not part of the woven picture: drawn fainter."""

VERTEX_SHADER = """
#version 330
uniform WindowBlock {
    mat4 projection;
    mat4 view;
} window;

in vec2 in_pos;
in vec2 in_strain;  // (strain as a share of the tear stretch, 0..1; alpha)

out vec4 v_color;

// blue -> green -> yellow -> red at 0, 1/3, 2/3, 1
vec3 ramp(float t) {
    vec3 blue = vec3(0.25, 0.45, 1.0);
    vec3 green = vec3(0.2, 0.9, 0.35);
    vec3 yellow = vec3(1.0, 0.88, 0.2);
    vec3 red = vec3(1.0, 0.18, 0.12);
    float s = clamp(t, 0.0, 1.0) * 3.0;
    if (s < 1.0) return mix(blue, green, s);
    if (s < 2.0) return mix(green, yellow, s - 1.0);
    return mix(yellow, red, s - 2.0);
}

void main() {
    gl_Position = window.projection * window.view * vec4(in_pos, 0.0, 1.0);
    // the square root spreads the common small strains (a few % of the tear stretch)
    // over the blue and green, and still puts "about to tear" at red
    v_color = vec4(ramp(sqrt(in_strain.x)), in_strain.y);
}
"""

FRAGMENT_SHADER = """
#version 330
in vec4 v_color;
out vec4 f_color;

void main() {
    f_color = v_color;
}
"""


def thread_lines(pos: npt.NDArray[np.float64], distances: DistanceStore) -> npt.NDArray[np.float32]:
    """Vertex data ``(2 * alive, 4)`` float32 for GL_LINES: per end ``(x, y, strain, alpha)``.

    ``strain`` is the relative stretch ``|p_i - p_j| / rest - 1`` as a share of
    ``tear_ratio - 1`` (so 1 is about to tear), clipped to 0..1; a
    compressed thread counts as 0.
    """
    m = distances.count
    alive = np.flatnonzero(distances.alive[:m])
    i = distances.i[alive]
    j = distances.j[alive]
    start = pos[i]
    end = pos[j]
    length = np.sqrt(((end - start) ** 2).sum(axis=1))
    stretch = length / distances.rest[alive] - 1.0
    tear_ratio = distances.tear_ratio[alive]
    tear_stretch = np.where(np.isfinite(tear_ratio), tear_ratio - 1.0, UNTEARABLE_RED)
    strain = np.clip(stretch / tear_stretch, 0.0, 1.0)
    alpha = np.where(distances.kind[alive] == ThreadKind.STRUCTURAL, STRUCTURAL_ALPHA, HIDDEN_ALPHA)
    vertices = np.empty((len(alive), 2, 4), dtype=np.float32)
    vertices[:, 0, :2] = start
    vertices[:, 1, :2] = end
    vertices[:, :, 2] = strain[:, None]
    vertices[:, :, 3] = alpha[:, None]
    return vertices.reshape(-1, 4)


class ThreadDebugSystem(System):
    """When ``options.debug`` is on, draws every alive thread of the world as a strain-coloured line."""

    name = "thread_debug"

    def __init__(self, ctx: Context, options: DrawOptions) -> None:
        self.ctx = ctx
        self.options = options
        self._program = ctx.program(vertex_shader=VERTEX_SHADER, fragment_shader=FRAGMENT_SHADER)
        self._capacity = 0
        self._buffer = None
        self._geometry = None

    def process(self, step: Step) -> None:
        if not self.options.debug:
            return
        stores = world.stores()
        vertices = thread_lines(stores.particles.pos, stores.distances)
        if len(vertices) == 0:
            return
        self._reserve(len(vertices))
        self._buffer.write(vertices)
        self.ctx.enable(self.ctx.BLEND)
        self._geometry.render(self._program, vertices=len(vertices))

    def _reserve(self, vertices: int) -> None:
        """Grow the vertex buffer (by powers of two) to hold ``vertices``."""
        if vertices <= self._capacity:
            return
        ctx = self.ctx
        self._capacity = 1 << math.ceil(math.log2(vertices))
        self._buffer = ctx.buffer(reserve=self._capacity * 4 * 4, usage="stream")
        self._geometry = ctx.geometry(
            [BufferDescription(self._buffer, "2f 2f", ["in_pos", "in_strain"])], mode=ctx.LINES
        )
