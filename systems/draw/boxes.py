"""Every rigid box as a bevelled, outlined rectangle, all in one instanced draw call.

Each box is one instance of a six-vertex quad: the vertex shader turns the
corners ``(±1, ±1)`` into the box's rectangle (half extents plus one
framebuffer px of room for the anti-aliased edge), rotated by its angle about
its centre. The fragment shader gets the pixel's offset in the box's own
frame and measures its signed distance to the rectangle,
``d = |max(q, 0)| + min(max(q.x, q.y), 0)`` with ``q = |local| - half``
(negative inside), in framebuffer px. From ``d`` it draws:

- the edge, anti-aliased over one pixel (``coverage = clamp(0.5 - d, 0, 1)``),
  so no multisampling is needed;
- the outline, the last 1.5 px inside the edge, in a darker shade of the fill;
- a bevel: a band of up to 3 px inside the outline, lit where the nearest
  edge faces the light (from the upper left, fixed in the world) and shaded
  where it faces away, over a faint gradient across the face. With both,
  touching boxes of one colour read as separate boxes: a 3 px dark seam
  between a shaded and a lit edge.

Outline and bevel narrow on boxes only a few px across, so some fill shows.

Fixed boxes (``inv_mass == 0``) are drawn in a muted grey-blue variant of
their colour. In the debug view sleeping boxes are dimmed and tinted by a hue
drawn from their island's id, and every contact point of the last step is
drawn on top (one ``StrokeBatch`` call): a dot coloured by how deep it
overlaps, and its normal.

Per instance the GPU holds two buffers: the bodies' half extents and
colours (``BODY_FIELDS``), written when the box sets change, and their
motion (``MOTION_FIELDS``: centre, angle, flags, island), written with one
``buffer.write`` a frame from a staging array filled by whole-array numpy
copies. Sizes meant in screen px (outline, bevel, contact dots) are
converted with ``options.zoom`` (framebuffer px per world px), so they stay
the same on screen however the view is zoomed.

Cost: filling and writing the staging array takes about 0.1 ms of CPU for
5050 boxes; software GL (Mesa llvmpipe) adds about 1 µs of CPU per instance
inside the draw call (5 ms for 5050 boxes, measured), a GPU next to nothing.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from arcade.gl import BufferDescription

from weft.components import BoxSet, ContactStore, RigidStore
from weft.systems import world
from weft.systems.draw.options import DrawOptions
from weft.systems.draw.strokes import SEGMENT_FIELDS, StrokeBatch
from weft.systems.schedule import Step, System
from weft.systems.world import by_entity

if TYPE_CHECKING:
    from arcade.gl import Buffer, Context, Geometry

FloatArray = npt.NDArray[np.float64]

MIN_CAPACITY = 256
"""Boxes the first GPU buffers hold; they double from there."""

BODY_FIELDS = 6
"""Columns of a body row, written when the box sets change: ``half_x, half_y, r, g, b, a`` (px, 0..1)."""

MOTION_FIELDS = 5
"""Columns of a motion row, written every frame: ``x, y, angle, flags, island`` (px, radians)."""

FIXED, ASLEEP = 1, 2
"""Bits of the ``flags`` column (stored as a float: the shader reads small integers exactly)."""

CONTACT_NORMAL = 12.0
"""Length of a contact's normal line in the debug view, screen px."""

CONTACT_DOT = 2.5
"""Radius of a contact's dot, screen px, for a point that does not overlap; deeper ones grow."""

CONTACT_GROWTH = 1.5
"""Extra dot radius, screen px, at ``RED_DEPTH`` of overlap and beyond."""

RED_DEPTH = 1.0
"""Overlap, px, at which a contact's dot turns fully red: resting contacts settle near the slop (0.4 px
by default) and show yellow-green; a dot going red means boxes sink into each other."""

DEPTH_COLORS = np.array([(70, 220, 110, 255), (255, 215, 40, 255), (255, 60, 50, 255)], dtype=np.float64)
"""Dot colours at no overlap, half ``RED_DEPTH`` and ``RED_DEPTH`` (green, yellow, red), RGBA 0-255."""

UNCLAIMED = (128, 128, 128, 255)
"""Colour of a box no ``BoxSet`` lists (none should exist), RGBA 0-255."""

HALO = (12, 14, 20, 220)
"""Colour of a dark ring round each dot, so it shows on any fill, RGBA 0-255."""

HALO_WIDTH = 1.0
"""Width of that ring, screen px."""

NORMAL_WIDTH = 0.75
"""Half the width of a contact's normal line, screen px."""

VERTEX_SHADER = """
#version 330
uniform WindowBlock {
    mat4 projection;
    mat4 view;
} window;

uniform float zoom;      // framebuffer px per world px

in vec2 in_corner;       // (-1 or 1, -1 or 1)
in vec2 in_half;         // half width and half height, world px
in vec4 in_color;
in vec2 in_centre;
in float in_angle;       // radians counter-clockwise
in vec2 in_state;        // flags (1 fixed, 2 asleep), island id (-1: none)

out vec2 v_local;        // offset from the centre in the box's frame, world px
flat out vec2 v_half;
flat out vec2 v_axis;    // the box's x axis in the world
flat out vec4 v_color;
flat out vec2 v_state;

void main() {
    // one framebuffer px of room on each side for the anti-aliased edge
    vec2 local = in_corner * (in_half + 1.0 / zoom);
    vec2 axis = vec2(cos(in_angle), sin(in_angle));
    vec2 offset = axis * local.x + vec2(-axis.y, axis.x) * local.y;
    gl_Position = window.projection * window.view * vec4(in_centre + offset, 0.0, 1.0);
    v_local = local;
    v_half = in_half;
    v_axis = axis;
    v_color = in_color;
    v_state = in_state;
}
"""

FRAGMENT_SHADER = """
#version 330
uniform float zoom;
uniform bool debug;

// the light comes from the upper left, fixed in the world (y up)
const vec2 light = vec2(-0.70710678, 0.70710678);
const float outline_width = 1.5;     // framebuffer px
const float outline_shade = 0.62;    // the outline is the fill times this
const float bevel_width = 3.0;       // framebuffer px inside the outline, at most
const float bevel = 0.16;            // brightening of an edge facing the light (darkening facing away)
const float gradient = 0.06;         // brightening of the upper-left corner over the face
const vec3 luma = vec3(0.299, 0.587, 0.114);
const float fixed_grey = 0.8;        // how far a fixed box's colour goes to its own grey...
const vec3 fixed_tint = vec3(0.8, 0.9, 1.12);  // ...which is then turned blue
const float island_mix = 0.35;       // how far a sleeping box goes to its island's hue (debug view)...
const vec3 dim_grey = vec3(0.32, 0.33, 0.36);
const float dim_mix = 0.45;          // ...and then to a dark grey

flat in vec2 v_half;
flat in vec2 v_axis;
flat in vec4 v_color;
flat in vec2 v_state;
in vec2 v_local;

out vec4 f_color;

vec3 hue(float h) {
    vec3 k = clamp(abs(fract(h + vec3(0.0, 2.0, 1.0) / 3.0) * 6.0 - 3.0) - 1.0, 0.0, 1.0);
    return mix(vec3(1.0), k, 0.65) * 0.95;
}

void main() {
    vec2 q = abs(v_local) - v_half;
    float d = (length(max(q, 0.0)) + min(max(q.x, q.y), 0.0)) * zoom;   // framebuffer px, < 0 inside
    float coverage = clamp(0.5 - d, 0.0, 1.0);
    if (coverage <= 0.0) discard;

    int flags = int(v_state.x + 0.5);
    vec3 base = v_color.rgb;
    if ((flags & 1) != 0) base = mix(base, vec3(dot(base, luma)), fixed_grey) * fixed_tint;
    if (debug && (flags & 2) != 0) {
        // golden-ratio steps round the colour wheel: islands with neighbouring ids get distant hues
        base = mix(base, hue(fract(v_state.y * 0.61803399)), island_mix);
        base = mix(base, dim_grey, dim_mix);
    }

    // a thin box keeps some fill: outline and bevel shrink with its shorter side
    float inner = min(v_half.x, v_half.y) * zoom;
    float width = min(outline_width, 0.3 * inner);
    float band = min(bevel_width, 0.25 * inner);

    // the nearest edge's outward normal, turned into the world
    vec2 side = q.x > q.y ? vec2(sign(v_local.x), 0.0) : vec2(0.0, sign(v_local.y));
    vec2 normal = v_axis * side.x + vec2(-v_axis.y, v_axis.x) * side.y;
    float in_bevel = 1.0 - smoothstep(width + band - 1.0, width + band, -d);
    vec2 across = (v_axis * v_local.x + vec2(-v_axis.y, v_axis.x) * v_local.y) / max(length(v_half), 1e-3);
    float light_level = 1.0 + gradient * dot(across, light) + bevel * dot(normal, light) * in_bevel;
    vec3 color = clamp(base * light_level, 0.0, 1.0);

    float rim = clamp(d + width + 0.5, 0.0, 1.0);
    color = mix(color, base * outline_shade, rim);
    f_color = vec4(color, v_color.a * coverage);
}
"""


def body_rows(
    store: RigidStore, sets: list[BoxSet], hidden: list[BoxSet] | tuple[BoxSet, ...] = ()
) -> npt.NDArray[np.float32]:
    """``(count, BODY_FIELDS)`` float32: each box's half extents (px) and its set's colour (0..1).

    Box k of a set takes ``colors[k % len(colors)]``; boxes no set claims
    are drawn in ``UNCLAIMED`` grey; the boxes of the ``hidden`` sets are
    given no opacity at all (they are drawn, unseen, in the one call).
    """
    count = store.count
    colors = np.tile(np.array(UNCLAIMED, dtype=np.float64), (count, 1))
    for boxes in sets:
        rows = np.arange(boxes.bodies.start, min(boxes.bodies.stop, count))
        palette = np.array(boxes.colors, dtype=np.float64).reshape(-1, 4)
        colors[rows] = palette[(rows - boxes.bodies.start) % len(palette)]
    for boxes in hidden:
        colors[boxes.bodies.start : min(boxes.bodies.stop, count), 3] = 0.0
    bodies = np.empty((count, BODY_FIELDS), dtype=np.float32)
    bodies[:, 0:2] = store.half[:count]
    bodies[:, 2:6] = colors / 255.0
    return bodies


def motion_rows(store: RigidStore, motion: npt.NDArray[np.float32]) -> int:
    """Fill the front of ``motion`` ``(capacity, MOTION_FIELDS)`` with every box's centre, angle,
    flags and island; returns how many rows were filled."""
    n = store.count
    motion[:n, 0:2] = store.pos[:n]
    motion[:n, 2] = store.angle[:n]
    motion[:n, 3] = np.where(store.inv_mass[:n] == 0.0, FIXED, 0) + np.where(store.asleep[:n], ASLEEP, 0)
    motion[:n, 4] = store.island[:n]
    return n


def depth_colors(depth: FloatArray, out: npt.NDArray[np.float32]) -> None:
    """Write RGBA 0..1 for overlaps ``depth`` ``(m,)`` px into ``out`` ``(m, 4)``: green at 0, yellow,
    red from ``RED_DEPTH`` on (straight lines between them)."""
    t = np.minimum(depth / RED_DEPTH, 1.0)
    stops = np.linspace(0.0, 1.0, len(DEPTH_COLORS))
    for channel in range(4):
        out[:, channel] = np.interp(t, stops, DEPTH_COLORS[:, channel] / 255.0)


def contact_rows(contacts: ContactStore, zoom: float, rows: npt.NDArray[np.float32]) -> int:
    """Fill the front of ``rows`` ``(capacity, SEGMENT_FIELDS)``, made with ``np.zeros`` (no ring, no
    feather: those columns are never written), with stroke rows for every contact point:
    all normals, then a dark halo and a dot coloured by depth for each; returns how many rows.

    The columns are ``strokes.segments``'s, written in place: a pile of
    thousands of boxes has tens of thousands of points, and filling one array
    kept from frame to frame takes a third of the time of building fresh ones
    (5 against 15 ms at 30 000 points, measured). Sizes are screen px
    (divided by ``zoom``, framebuffer px per world px). The dot also grows by
    up to ``CONTACT_GROWTH`` px with the overlap, so depth reads without
    telling colours apart.
    """
    m = contacts.count
    point = contacts.point[:m]
    depth = np.maximum(-contacts.gap[:m], 0.0)
    px = 1.0 / zoom
    normals, halos, dots = rows[:m], rows[m : 2 * m], rows[2 * m : 3 * m]
    normals[:, 0:2] = point
    normals[:, 2:4] = point + contacts.normal[:m] * (CONTACT_NORMAL * px)
    normals[:, 4] = NORMAL_WIDTH * px
    depth_colors(depth, normals[:, 7:11])
    for dot in (halos, dots):
        dot[:, 0:2] = point
        dot[:, 2:4] = point
    dots[:, 4] = (CONTACT_DOT + CONTACT_GROWTH * np.minimum(depth / RED_DEPTH, 1.0)) * px
    dots[:, 7:11] = normals[:, 7:11]
    halos[:, 4] = dots[:, 4] + HALO_WIDTH * px
    halos[:, 7:11] = np.array(HALO) / 255.0
    return 3 * m


class BoxSystem(System):
    """Draws every box of the ``RigidStore`` in one instanced call; the debug view adds its contacts in one.

    Reads ``options.zoom`` (outline and dots are sized in screen px) and
    ``options.debug``. See the module docstring for the picture.
    """

    name = "box_sprites"

    def __init__(self, ctx: Context, options: DrawOptions) -> None:
        self.ctx = ctx
        self.options = options
        self._program = ctx.program(vertex_shader=VERTEX_SHADER, fragment_shader=FRAGMENT_SHADER)
        corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, -1], [1, 1], [-1, 1]], dtype="f4")
        self._corners = ctx.buffer(data=corners)
        self.capacity = 0
        """Boxes the GPU buffers hold now (they double as boxes are added)."""
        self._bodies: Buffer | None = None
        self._motion: Buffer | None = None
        self._geometry: Geometry | None = None
        self._staging = np.zeros((0, MOTION_FIELDS), dtype=np.float32)
        self._layout_key: tuple[object, ...] | None = None
        self._uniforms: dict[str, object] = {}
        self._contacts = StrokeBatch(ctx)
        self._contact_rows = np.zeros((0, SEGMENT_FIELDS), dtype=np.float32)

    def process(self, step: Step) -> None:
        stores = world.stores()
        store = stores.rigid
        if store.count == 0:
            return
        sets = by_entity(BoxSet)
        hidden = self.options.hidden
        key = (self.options.world, store.count, tuple((e, id(boxes)) for e, boxes in sets), hidden)
        if key != self._layout_key:  # the colours hold until the sets change
            self._layout_key = key
            self._reserve(store.count)
            unseen = [boxes for entity, boxes in sets if entity in hidden]
            self._bodies.write(body_rows(store, [boxes for _, boxes in sets], unseen))
        n = motion_rows(store, self._staging)
        self._motion.write(self._staging[:n])
        self._set("zoom", self.options.zoom)
        self._set("debug", self.options.debug)
        ctx = self.ctx
        ctx.enable(ctx.BLEND)
        ctx.disable(ctx.CULL_FACE)
        self._geometry.render(self._program, vertices=6, instances=n)
        if self.options.debug and stores.contacts.count:
            self._draw_contacts(stores.contacts)

    def _draw_contacts(self, contacts: ContactStore) -> None:
        """Draw every contact point (see ``contact_rows``) in one call of the stroke batch."""
        needed = 3 * contacts.count
        if needed > len(self._contact_rows):  # grows by doubling, like the GPU buffers
            capacity = max(MIN_CAPACITY, 1 << math.ceil(math.log2(needed)))
            self._contact_rows = np.zeros((capacity, SEGMENT_FIELDS), dtype=np.float32)
        count = contact_rows(contacts, self.options.zoom, self._contact_rows)
        self._contacts.draw(self._contact_rows[:count])

    def _set(self, name: str, value: object) -> None:
        """Set a uniform only when its value changed: each set is a GL call, and most frames change none."""
        if self._uniforms.get(name) != value:
            self._uniforms[name] = value
            self._program[name] = value

    def _reserve(self, boxes: int) -> None:
        """Grow the instance buffers and the staging array (by powers of two) to hold ``boxes``."""
        if boxes <= self.capacity:
            return
        ctx = self.ctx
        self.capacity = max(MIN_CAPACITY, 1 << math.ceil(math.log2(boxes)))
        self._staging = np.zeros((self.capacity, MOTION_FIELDS), dtype=np.float32)
        self._bodies = ctx.buffer(reserve=self.capacity * BODY_FIELDS * 4, usage="dynamic")
        self._motion = ctx.buffer(reserve=self.capacity * MOTION_FIELDS * 4, usage="stream")
        self._geometry = ctx.geometry(
            [
                BufferDescription(self._corners, "2f", ["in_corner"]),
                BufferDescription(self._bodies, "2f 4f", ["in_half", "in_color"], instanced=True),
                BufferDescription(
                    self._motion, "2f 1f 2f", ["in_centre", "in_angle", "in_state"], instanced=True
                ),
            ],
            mode=ctx.TRIANGLES,
        )
