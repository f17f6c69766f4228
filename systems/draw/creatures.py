"""Creatures drawn as plump, shaded blobs on jointed legs, with a face that cries while pressed.

Every soft body of the world is drawn by three draw calls in all, whatever
the number of creatures:

1. the legs (a ``StrokeBatch``): per leg a dark stroke along a spline through
   root, knee and foot, a thinner body-coloured one on top, and a little paw;
   drawn first, so the roots hide under the bodies;
2. the fills (one indexed triangle buffer, a colour per vertex): per creature
   the whole silhouette in the shade colour, then the lit part in the body colour;
3. the strokes on top (a second ``StrokeBatch``): the lit part's anti-aliased
   edge, a shine, the outline, then the face.

Silhouette: a closed uniform Catmull-Rom spline through the ring points,
sampled ``SAMPLES_PER_SPAN`` times a span, then pushed out along its normals
by the skin's ``bead`` radius: the beads are what collides, so what is drawn
is what touches. The outline's outer edge sits on that curve; the fill stops
at the outline's middle line, so no background shows between them. The
spline is linear in the ring points, so sampling it is one product with a
fixed ``(n · samples, n)`` matrix.

Shading (light from the upper left, fixed in the world): the lit part is the
silhouette pulled in along its normals by a band that is zero where the
normal faces the light and widest where it faces away,
``band = BAND · size · ((1 + n · lower_right) / 2)^BAND_FALLOFF``. That is
the silhouette shifted up-left and shrunk, as a cel shader would draw it, but
it stays inside the silhouette for any shape the ring takes (a shifted copy
pokes out of a squashed body's dented top), so no stencil is needed.

The face (``faces.face_rows``) is placed in each body's own frame and only knows whether it is pressed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from weft.components import SoftBody
from weft.systems import world
from weft.systems.draw.faces import TEAR, WHITE, BodyFrames, face_rows
from weft.systems.draw.fills import FillBatch, fan_triangles, fan_vertices
from weft.systems.draw.options import DrawOptions
from weft.systems.draw.splines import closed_spline, open_spline_matrix
from weft.systems.draw.strokes import SEGMENT_FIELDS, StrokeBatch, polyline_rows
from weft.systems.schedule import Step, System
from weft.systems.softbody import head_line
from weft.systems.world import by_entity

if TYPE_CHECKING:
    from arcade.gl import Context

FloatArray = npt.NDArray[np.float64]
IndexArray = npt.NDArray[np.int64]

SAMPLES_PER_SPAN = 8
"""Spline samples between two ring points. At 16 points a sample spans under 3 degrees of the body:
the chord leaves the curve by under 0.1 px up to the largest built radius (300 px)."""

STROKE_STRIDE = 2
"""The outline takes every other spline sample: with round joins its chords stay within 0.1 px of the
curve for bodies up to about 150 px across (0.5 px at 300 px), and each sample is a capsule to draw
(software GL spends about 1 µs of CPU per capsule)."""

LEG_SAMPLES_PER_SPAN = 4
"""Spline samples on each of a leg's two spans (root to knee, knee to foot)."""

OUTLINE_SHARE = 0.045
"""Outline width over the body's size (built radius plus bead), clamped to ``OUTLINE_WIDTH`` px."""

OUTLINE_WIDTH = (2.0, 5.0)
"""Thinnest and thickest outline, px: a hairline vanishes, a thick one turns a small creature into a bead."""

LEG_OUTLINE_SHARE = 0.45
"""Largest share of a leg's half thickness its outline may take, so thin legs keep a body-coloured core."""

PAW = 0.4
"""Length of a paw (from the foot's centre, pointing away from the body's middle) over the leg's thickness."""

LOWER_RIGHT = np.array([1.0, -1.0]) / math.sqrt(2.0)
"""Where the light does not reach (it comes from the upper left), y up."""

UPPER_LEFT = -LOWER_RIGHT

BAND = 0.17
"""Widest shadow band, at the lower right, over the body's size."""

BAND_FALLOFF = 1.6
"""Exponent of the band's profile: above 1 narrows the shade to a crescent instead of a half-moon."""

EDGE_RADIUS = 0.7
"""px: half width of the anti-aliased stroke along the lit part's edge (triangle edges are aliased where
the window has no multisampling, as on software GL)."""

SHINE_INSET = 0.14
"""How far inside the outline's middle line the shine runs, over the body's size."""

SHINE_RADIUS = 0.028
"""Half width of the shine at its middle, over the body's size (it tapers to nothing at its ends)."""

SHINE_SPAN_DEG = 32.0
"""Half the arc of the shine, in degrees of the silhouette, around the point facing the light."""

FAN_PROBES = 8
"""Directions, evenly round the rim, in which ``fan_centres`` looks for a point that sees a dented body."""

FAN_PROBE_SHARES = (0.25, 0.5)
"""How far from the middle towards the rim ``fan_centres`` looks, in each direction."""

SHINE_WHITENESS = 0.55
"""How far the shine's colour goes from the body colour towards white."""


@dataclass
class Layout:
    """Particle indices of the bodies drawn, gathered once per world (a body's particles never move).

    Bodies are grouped by ring length, so each group's splines are one
    matrix product: ``groups`` holds, per group, the bodies' positions in
    ``bodies`` (entity order) and their ``(B_g, n)`` ring indices.
    """

    bodies: list[SoftBody]
    groups: list[tuple[IndexArray, IndexArray]]
    heads: IndexArray
    """``(B,)`` each body's ``head``: the position in its ring of the top of the head."""
    bead: FloatArray
    size: FloatArray
    fill_triangles: npt.NDArray[np.uint32]
    """Vertex indices of every body's two fans (shade, then lit), in body order, for ``FillBatch``."""
    leg_body: IndexArray
    """``(L,)`` which body (position in ``bodies``) each leg belongs to."""
    root_a: IndexArray
    root_b: IndexArray
    root_t: FloatArray
    knee: IndexArray
    foot: IndexArray
    thickness: FloatArray


def build_layout(bodies: list[SoftBody]) -> Layout:
    """Gather the bodies' ring and leg indices into arrays (see ``Layout``)."""
    lengths = np.array([len(body.ring) for body in bodies])
    groups = []
    for n in dict.fromkeys(lengths.tolist()):
        members = np.flatnonzero(lengths == n)
        groups.append((members, np.stack([bodies[b].ring for b in members])))
    legs = [body.legs for body in bodies]
    return Layout(
        bodies=bodies,
        groups=groups,
        heads=np.array([body.head for body in bodies], dtype=np.int64),
        bead=np.array([body.bead for body in bodies]),
        size=np.array([body.rest_perimeter / (2.0 * math.pi) + body.bead for body in bodies]),
        fill_triangles=fan_triangles(lengths * SAMPLES_PER_SPAN),
        leg_body=np.concatenate([np.full(len(leg.knee), b) for b, leg in enumerate(legs)]),
        root_a=np.concatenate([leg.root_a for leg in legs]),
        root_b=np.concatenate([leg.root_b for leg in legs]),
        root_t=np.concatenate([leg.root_t for leg in legs]),
        knee=np.concatenate([leg.knee for leg in legs]),
        foot=np.concatenate([leg.foot for leg in legs]),
        thickness=np.concatenate([np.full(len(leg.knee), leg.thickness) for leg in legs]),
    )


def body_frames(pos: FloatArray, layout: Layout) -> BodyFrames:
    """Each body's centre, axes, height and half width from the ring's points now (see ``BodyFrames``)."""
    count = len(layout.bodies)
    centre = np.empty((count, 2))
    height = np.empty(count)
    half_width = np.empty(count)
    across = np.array([head_line(pos, body) for body in layout.bodies])
    up = np.column_stack([-across[:, 1], across[:, 0]])
    for members, rings in layout.groups:
        points = pos[rings]  # (B_g, n, 2)
        middle = points.mean(axis=1)
        offsets = points - middle[:, None]
        side = np.einsum("bnd,bd->bn", offsets, across[members])
        top = offsets[np.arange(len(members)), layout.heads[members]]
        centre[members] = middle
        height[members] = np.einsum("bd,bd->b", top, up[members])
        half_width[members] = 0.5 * (side.max(axis=1) - side.min(axis=1))
    return BodyFrames(
        centre=centre,
        across=across,
        up=up,
        height=height + layout.bead,
        half_width=half_width + layout.bead,
        size=layout.size,
    )


def outline_width(size: FloatArray) -> FloatArray:
    """Outline width in px for bodies of ``size`` px (see ``OUTLINE_SHARE``)."""
    return np.clip(OUTLINE_SHARE * size, *OUTLINE_WIDTH)


def leg_rows(
    pos: FloatArray, layout: Layout, frames: BodyFrames, colors: FloatArray
) -> npt.NDArray[np.float32]:
    """Stroke rows ``(rows, 11)`` of every leg: outline, then body colour on top, each leg over the last.

    ``colors`` is ``(B, 2, 4)``: each body's outline and body colour. The
    outline's outer edge is at half the leg's thickness, the knees' and feet's
    collision radius. A paw, a short stub pointing away from the body's
    middle, rounds off each foot.
    """
    if len(layout.knee) == 0:
        return np.zeros((0, SEGMENT_FIELDS), np.float32)
    body = layout.leg_body
    start, end = pos[layout.root_a], pos[layout.root_b]
    root = start + (end - start) * layout.root_t[:, None]
    foot = pos[layout.foot]
    curve = open_spline_matrix(3, LEG_SAMPLES_PER_SPAN) @ np.stack([root, pos[layout.knee], foot], axis=1)
    across = frames.across[body]
    side = np.sign(np.einsum("ld,ld->l", foot - frames.centre[body], across))
    toe = foot + across * (side * PAW * layout.thickness)[:, None]
    line = np.concatenate([curve, toe[:, None]], axis=1)  # the paw continues the stroke from the foot
    outer = 0.5 * layout.thickness
    inner = outer - np.minimum(outline_width(layout.size[body]), LEG_OUTLINE_SHARE * outer)
    dark = polyline_rows(line, outer[:, None], colors[body, 0])
    light = polyline_rows(line, inner[:, None], colors[body, 1])
    return np.concatenate([dark, light], axis=1).reshape(-1, SEGMENT_FIELDS)


def fan_centres(rim: FloatArray, lit: FloatArray, middle: FloatArray) -> FloatArray:
    """Where each body's two fans start ``(B, 2)``: of the ring's middle and points between it and the
    rim, the one that sees most of both outlines (every triangle of its fans turning the outlines' way).

    A fan covers its outline exactly only from a point that sees all of it. A body dented deep by a
    finger is no longer star-shaped about its middle (22 of 128 triangles turned over, painting
    wedges of body above the dent); some point nearer the far side usually still sees it all.
    """
    count, m = rim.shape[:2]
    # the middle, then a quarter and a half of the way to each of eight rim points around the body
    toward = rim[:, :: max(1, m // FAN_PROBES)][:, :FAN_PROBES]
    shares = np.array(FAN_PROBE_SHARES)
    probes = middle[:, None, None] + shares[None, :, None, None] * (toward - middle[:, None])[:, None]
    candidates = np.concatenate([middle[:, None], probes.reshape(count, -1, 2)], axis=1)  # (B, K, 2)
    turned = np.zeros(candidates.shape[:2], dtype=np.int64)
    for outline in (rim, lit):
        offsets = outline[:, None] - candidates[:, :, None]  # (B, K, m, 2)
        following = np.roll(offsets, -1, axis=2)
        cross = offsets[..., 0] * following[..., 1] - offsets[..., 1] * following[..., 0]
        turned += (cross <= 0.0).sum(axis=2)
    best = np.argmin(turned, axis=1)  # the first of the least: the middle when it sees everything
    return candidates[np.arange(count), best]


def body_parts(
    points: FloatArray, bead: FloatArray, size: FloatArray, colors: FloatArray
) -> tuple[FloatArray, npt.NDArray[np.float32]]:
    """Fill vertices ``(B, v, 6)`` and stroke rows ``(B, s, 11)`` of B bodies with rings ``(B, n, 2)``.

    ``bead`` and ``size`` are ``(B,)`` px; ``colors`` is ``(B, 3, 4)``:
    outline, body, shade. Fills: the silhouette in shade, then the lit part
    in the body colour. Strokes: the lit part's anti-aliased edge, the shine,
    the outline.
    """
    curve, normal = closed_spline(points, SAMPLES_PER_SPAN)
    width = outline_width(size)
    # the outline's middle line: its outer edge is the beads' envelope
    rim = curve + normal * (bead - 0.5 * width)[:, None, None]
    away = normal @ LOWER_RIGHT  # (B, m): 1 where the skin faces away from the light
    band = BAND * size[:, None] * ((1.0 + away) / 2.0) ** BAND_FALLOFF
    lit = rim - normal * band[..., None]
    outline, body, shade = colors[:, 0], colors[:, 1], colors[:, 2]
    fill = fan_vertices([rim, lit], fan_centres(rim, lit, points.mean(axis=1)), [shade, body])

    # the shine: a tapering arc just inside the skin, centred where the skin faces the light
    m = curve.shape[1]
    steps = max(1, round(m * SHINE_SPAN_DEG / 360.0 / STROKE_STRIDE))  # samples either side, in strides
    middle = np.argmax(normal @ UPPER_LEFT, axis=1)
    window = (middle[:, None] + STROKE_STRIDE * np.arange(-steps, steps + 1)) % m
    inside = rim - normal * (SHINE_INSET * size)[:, None, None]
    arc = np.take_along_axis(inside, window[..., None], axis=1)
    taper = np.sin(np.pi * (np.arange(2 * steps) + 0.5) / (2 * steps)) ** 0.8
    shine = body + SHINE_WHITENESS * (255.0 - body)
    shine[:, 3] = body[:, 3]
    strokes = np.concatenate(
        [
            polyline_rows(lit[:, ::STROKE_STRIDE], EDGE_RADIUS, body, closed=True),
            polyline_rows(arc, SHINE_RADIUS * size[:, None] * taper, shine),
            polyline_rows(rim[:, ::STROKE_STRIDE], 0.5 * width[:, None], outline, closed=True),
        ],
        axis=1,
    )
    return fill, strokes


def in_body_order(parts: list[npt.NDArray], layout: Layout) -> npt.NDArray:
    """One ``(rows, fields)`` array from per-group ``(B_g, k_g, fields)`` arrays, bodies in entity order."""
    if len(parts) == 1:
        return parts[0].reshape(-1, parts[0].shape[-1])
    chunks: list[npt.NDArray] = [parts[0][0]] * len(layout.bodies)
    for part, (members, _) in zip(parts, layout.groups, strict=True):
        for row, b in enumerate(members.tolist()):
            chunks[b] = part[row]
    return np.concatenate(chunks)


class CreatureSystem(System):
    """Draws every ``SoftBody`` (by entity id): legs, shaded body, outline and face, in three draw calls.

    See the module docstring for the picture. The work per frame is a few
    numpy operations over all bodies (and per group of bodies with the same
    ring length), never a loop over points. All legs go under all bodies, and
    all fills under all outlines and faces: creatures touch but do not
    overlap, so the three layers need not be interleaved per creature.
    """

    name = "creatures"

    def __init__(self, ctx: Context, options: DrawOptions) -> None:
        self.ctx = ctx
        self.options = options
        self._legs = StrokeBatch(ctx)
        self._fills = FillBatch(ctx)
        self._strokes = StrokeBatch(ctx)
        self._layout: Layout | None = None
        self._layout_key: tuple[object, tuple[tuple[int, int], ...]] | None = None

    def process(self, step: Step) -> None:
        bodies = [(entity, body) for entity, body in by_entity(SoftBody) if entity not in self.options.hidden]
        if not bodies:
            return
        key = (self.options.world, tuple((entity, id(body)) for entity, body in bodies))
        if key != self._layout_key:  # particles are only appended: indices hold until the bodies change
            self._layout_key = key
            self._layout = build_layout([body for _, body in bodies])
        layout = self._layout
        pos = world.stores().particles.pos
        # (B, 6, 4), RGBA 0..255: outline, body, shade, cheeks, white, tears (looks may change any frame)
        colors = np.array(
            [(b.look.outline, b.look.body, b.look.shade, b.look.cheeks, WHITE, TEAR) for b in layout.bodies],
            dtype=np.float64,
        )
        pressed = np.array([body.pressed for body in layout.bodies])
        frames = body_frames(pos, layout)
        faces = face_rows(frames, colors[:, [0, 3, 4, 5]], pressed)
        fills, strokes = [], []
        for members, rings in layout.groups:
            fill, stroke = body_parts(
                pos[rings], layout.bead[members], layout.size[members], colors[members, :3]
            )
            fills.append(fill)
            strokes.append(np.concatenate([stroke, faces[members]], axis=1))
        top = in_body_order(strokes, layout)
        top = top[top[:, 10] > 0.0]  # the face's strokes it does not show now
        ctx = self.ctx
        ctx.enable(ctx.BLEND)
        ctx.disable(ctx.CULL_FACE)
        self._legs.draw(leg_rows(pos, layout, frames, colors[:, :2]))
        self._fills.draw(in_body_order(fills, layout), layout.fill_triangles)
        self._strokes.draw(top)
