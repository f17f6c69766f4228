"""Pin heads: every point a body pins, drawn as a small ring, all in one GL_POINTS call."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import esper
import numpy as np
from arcade.gl import BufferDescription

from weft.components import Sheet
from weft.systems import world
from weft.systems.draw.options import DrawOptions
from weft.systems.schedule import Step, System

if TYPE_CHECKING:
    from arcade.gl import Context

HEAD_SIZE = 9.0
"""Diameter of a pin head in screen px."""

DEBUG_HEAD_SIZE = 13.0

VERTEX_SHADER = """
#version 330
uniform WindowBlock {
    mat4 projection;
    mat4 view;
} window;
uniform float size;

in vec2 in_pos;

void main() {
    gl_Position = window.projection * window.view * vec4(in_pos, 0.0, 1.0);
    gl_PointSize = size;
}
"""

FRAGMENT_SHADER = """
#version 330
uniform float size;
uniform bool debug;

out vec4 f_color;

void main() {
    // distance from the centre of the point sprite, in px
    vec2 offset = (gl_PointCoord - 0.5) * size;
    float r = length(offset);
    float radius = 0.5 * size - 0.5;
    float coverage = clamp(radius - r + 0.5, 0.0, 1.0);
    if (coverage <= 0.0) discard;
    vec3 color;
    if (debug) {
        // a bright ring with a hollow centre: the pinned point itself stays visible
        float ring = clamp(1.0 - abs(r - (radius - 1.5)) + 0.5, 0.0, 1.0);
        coverage *= max(ring, 0.0);
        color = vec3(1.0, 0.35, 0.85);
    } else {
        // a brass pin head lit from the top left (gl_PointCoord's y runs down), with a dark rim
        vec2 highlight_at = vec2(-0.18, -0.18) * size;
        float highlight = 1.0 - clamp(length(offset - highlight_at) / (0.6 * size), 0.0, 1.0);
        color = mix(vec3(0.50, 0.38, 0.16), vec3(1.0, 0.93, 0.70), highlight);
        color *= mix(0.3, 1.0, clamp(radius - r - 0.5, 0.0, 1.0));
    }
    f_color = vec4(color, coverage);
}
"""


class PinMarkerSystem(System):
    """Draws the pins that bodies own (level pins); the mouse's grab pin is the tool overlay's job.

    Shown in the debug view, and also in the normal view when ``options.show_pins``.
    """

    name = "pin_markers"

    def __init__(self, ctx: Context, options: DrawOptions) -> None:
        self.ctx = ctx
        self.options = options
        self._program = ctx.program(vertex_shader=VERTEX_SHADER, fragment_shader=FRAGMENT_SHADER)
        # not on the context (see reference NOTES); imported here, once arcade has set pyglet up
        from pyglet.gl import GL_PROGRAM_POINT_SIZE

        self._point_size_flag = GL_PROGRAM_POINT_SIZE
        self._capacity = 0
        self._buffer = None
        self._geometry = None

    def process(self, step: Step) -> None:
        if not (self.options.debug or self.options.show_pins):
            return
        stores = world.stores()
        pins = stores.pins
        hidden = self.options.hidden
        bodies = np.array([e for e, _ in esper.get_component(Sheet) if e not in hidden], dtype=np.int64)
        # a few pins against a few bodies: a broadcast compare beats np.isin's setup cost
        owned = (pins.owner[: pins.count, None] == bodies[None, :]).any(axis=1)
        points = stores.particles.pos[pins.index[: pins.count][owned]].astype("f4")
        if len(points) == 0:
            return
        self._reserve(len(points))
        self._buffer.write(points)
        ctx = self.ctx
        ctx.enable(ctx.BLEND, self._point_size_flag)
        self._program["size"] = DEBUG_HEAD_SIZE if self.options.debug else HEAD_SIZE
        self._program["debug"] = self.options.debug
        self._geometry.render(self._program, vertices=len(points))

    def _reserve(self, points: int) -> None:
        """Grow the point buffer (by powers of two) to hold ``points``."""
        if points <= self._capacity:
            return
        ctx = self.ctx
        self._capacity = 1 << math.ceil(math.log2(points))
        self._buffer = ctx.buffer(reserve=self._capacity * 2 * 4, usage="stream")
        self._geometry = ctx.geometry([BufferDescription(self._buffer, "2f", ["in_pos"])], mode=ctx.POINTS)
