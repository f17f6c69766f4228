"""Overlays: the walls, the blade's trail, the grab line, the wind arrow, force fields, blasts, the spout.

Every overlay is a set of stroke rows (``weft.systems.draw.strokes``), so the
renderer draws them all in one call.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from weft.components import ForceField, Grab, Pour, Press, SoftBody
from weft.game.level.values import rgba
from weft.systems import world as active
from weft.systems.balls import SPOUT_SPREAD
from weft.systems.draw.strokes import SEGMENT_FIELDS, segments

if TYPE_CHECKING:
    from weft.game.session import Session

TRAIL_FADE_TICKS = 20
"""Ticks (1/60 s each) over which a cut segment fades out after it was made."""

BLADE = (255, 250, 235)
BLADE_GLOW = (255, 196, 120)
GRAB = (255, 238, 170)
WIND = (140, 210, 255)

ARROW_HEAD_ANGLE = math.radians(28.0)

PULL = (110, 200, 255)
"""Attract's field: a cool blue (things flow in)."""

PUSH = (255, 140, 90)
"""Repel's field: a warm orange (things are blown out)."""

BLAST = (255, 196, 120)
BLAST_CORE = (255, 244, 214)
SPOUT = (236, 238, 244)
FINGER = (255, 226, 196)
"""The press tool's finger and a poke's: a pale, skin-warm disc over what it presses."""

RIPPLE_TICKS = 45
"""Ticks a ripple of attract or repel takes to cross the field's reach (two are in flight at once)."""

FLASH_TICKS = 15
"""Ticks (1/60 s each) an explosion's ring takes to grow to the blast's reach and fade out."""

WALL_THICKNESS = 6.0
"""World px of the container's walls, drawn just outside the rectangle the circles bounce in."""

WALL_SHADE = 0.45
"""How far the walls' colour moves from the background towards white (dark backgrounds) or black."""

VIEW_MARGIN = 2.0
"""World px of background left beyond the walls."""

FLOOR_DEPTH = 28.0
"""World px of floor the view shows below the bounds of a level without walls drawn (no circles):
what lies on the floor (a cut-off piece flattened on it) sits on a floor one can see, above the
window's edge and clear of the HUD's hint line (12 px up, 10 pt), not on the window's last row."""

FLOOR_SHADE = 0.1
"""How far the floor's colour moves from the background towards white (dark backgrounds) or black."""


def tool_overlays(session: Session) -> npt.NDArray[np.float32]:
    """Every overlay as stroke rows, drawn in one call.

    The floor and the container's walls, then the tools: cut trail, grab line, wind
    arrow, attract/repel field, explosion flashes, pour spout, fingers.
    """
    parts = [
        _floor(session),
        _walls(session),
        _trail(session),
        _grab(session),
        _wind(session),
        _field(session),
        _blasts(session),
        _pour(session),
        _fingers(session),
    ]
    return np.concatenate(
        [part for part in parts if len(part)] or [np.zeros((0, SEGMENT_FIELDS), np.float32)]
    )


def _trail(session: Session) -> npt.NDArray[np.float32]:
    """The blade's recent segments: a warm glow under a white core, thinning and fading with age."""
    if not session.trail:
        return np.zeros((0, SEGMENT_FIELDS), np.float32)
    trail = np.array(session.trail, dtype=np.float64)
    life = np.clip(1.0 - (session.tick - trail[:, 4]) / TRAIL_FADE_TICKS, 0.0, 1.0)
    visible = life > 0.0
    ends, life = trail[visible, :4], life[visible]
    glow = np.column_stack([np.tile(BLADE_GLOW, (len(life), 1)), 170.0 * life])
    core = np.column_stack([np.tile(BLADE, (len(life), 1)), 240.0 * life])
    glow_radius = 3.0 + 6.0 * life
    return np.concatenate(
        [
            segments(ends[:, :2], ends[:, 2:], glow_radius, glow, feather=glow_radius),
            segments(ends[:, :2], ends[:, 2:], 0.6 + 1.6 * life, core),
        ]
    )


def _grab(session: Session) -> npt.NDArray[np.float32]:
    """A line from the held point to the cursor, a ring on the point and a dot at the cursor."""
    sim = session.sim
    if session.pointer is None:
        return np.zeros((0, SEGMENT_FIELDS), np.float32)
    held = sim.physics.component(Grab)
    if held.particle < 0:
        return np.zeros((0, SEGMENT_FIELDS), np.float32)
    point = sim.stores.particles.pos[held.particle]
    cursor = np.asarray(session.pointer, dtype=np.float64)
    return np.concatenate(
        [
            segments(point, cursor, 1.2, (*GRAB, 170)),
            segments(point, point, 7.0, (*GRAB, 235), ring=2.0),
            segments(cursor, cursor, 3.0, (*GRAB, 235)),
        ]
    )


def _wind(session: Session) -> npt.NDArray[np.float32]:
    """While the wind tool is dragging: an arrow from where the drag started to the cursor."""
    tool = session.tool
    start = getattr(tool, "start", None)
    if tool.name != "wind" or start is None or session.pointer is None:
        return np.zeros((0, SEGMENT_FIELDS), np.float32)
    tail = np.asarray(start, dtype=np.float64)
    tip = np.asarray(session.pointer, dtype=np.float64)
    length = float(np.hypot(*(tip - tail)))
    if length < 1.0:
        return segments(tail, tail, 4.0, (*WIND, 230))
    back = (tail - tip) / length
    head = min(22.0, 0.35 * length)
    barbs = []
    for turn in (ARROW_HEAD_ANGLE, -ARROW_HEAD_ANGLE):
        c, s = math.cos(turn), math.sin(turn)
        barbs.append(tip + head * np.array([c * back[0] - s * back[1], s * back[0] + c * back[1]]))
    return np.concatenate(
        [
            segments(tail, tip, 8.0, (*WIND, 70), feather=8.0),
            segments(tail, tip, 2.5, (*WIND, 230)),
            segments(np.array([tip, tip]), np.array(barbs), 2.5, (*WIND, 230)),
            segments(tail, tail, 5.0, (*WIND, 230), ring=2.0),
        ]
    )


def _floor(session: Session) -> npt.NDArray[np.float32]:
    """In levels without circles (whose walls are not drawn), the floor under the bounds,
    ``FLOOR_DEPTH`` deep and as wide as the view."""
    sim = session.sim
    if sim.settings.circles:
        return np.zeros((0, SEGMENT_FIELDS), np.float32)
    left, bottom, right, _ = sim.settings.bounds
    half = 0.5 * FLOOR_DEPTH
    color = wall_color(rgba(sim.level.model.world.background), FLOOR_SHADE)
    # the round caps reach past the view's sides
    return segments([[left - half, bottom - half]], [[right + half, bottom - half]], half, color)


def _walls(session: Session) -> npt.NDArray[np.float32]:
    """In levels with circles, the walls' rectangle (where the shake tool has moved it) as a thick frame.

    The stroke lies just outside the walls, its inner edge on them, so a
    ball resting against a wall touches the frame without being covered.
    """
    sim = session.sim
    settings = sim.settings
    if not settings.circles:
        return np.zeros((0, SEGMENT_FIELDS), np.float32)
    half = 0.5 * WALL_THICKNESS
    left, bottom, right, top = settings.walls
    corners = np.array(
        [
            [left - half, bottom - half],
            [right + half, bottom - half],
            [right + half, top + half],
            [left - half, top + half],
        ]
    )
    color = wall_color(rgba(sim.level.model.world.background))
    return segments(corners, np.roll(corners, -1, axis=0), half, color)


def _field(session: Session) -> npt.NDArray[np.float32]:
    """While attract or repel is held: a ring at the field's reach, ripples running the way it pushes."""
    field = session.sim.physics.component(ForceField)
    if not field.active or field.force == 0.0:
        return np.zeros((0, SEGMENT_FIELDS), np.float32)
    pulling = field.force < 0.0
    color = PULL if pulling else PUSH
    center = np.asarray(field.center, dtype=np.float64)
    # two ripples half a period apart: shrinking towards the cursor when it pulls, growing when it pushes
    phase = (session.tick / RIPPLE_TICKS + np.array([0.0, 0.5])) % 1.0
    if pulling:
        phase = 1.0 - phase
    ripple_alpha = 120.0 * np.sin(np.pi * phase)  # fade in from one end, out at the other
    ripple_colors = np.column_stack([np.tile(color, (2, 1)), ripple_alpha])
    centers = np.tile(center, (2, 1))
    return np.concatenate(
        [
            segments(center, center, field.reach, (*color, 26)),
            segments(centers, centers, np.maximum(field.reach * phase, 2.0), ripple_colors, ring=1.5),
            segments(center, center, field.reach, (*color, 200), ring=2.0),
            segments(center, center, 3.0, (*color, 230)),
        ]
    )


def _blasts(session: Session) -> npt.NDArray[np.float32]:
    """Where each explosion went off, a ring that grows to the blast's reach and fades out.

    The physics consumes ``Blasts.pending`` at the start of the next frame,
    before any draw can see it; the session's log keeps the clicks, with
    their tick, so the recent ones are read from there (newest last).
    """
    if session.tool.name != "explode":
        return np.zeros((0, SEGMENT_FIELDS), np.float32)
    flashes = []
    for event in reversed(session.log):
        age = session.tick - event["frame"]
        if age >= FLASH_TICKS:
            break
        if event["type"] == "mouse_press" and event["button"] == "left":
            flashes.append((event["x"], event["y"], age))
    if not flashes:
        return np.zeros((0, SEGMENT_FIELDS), np.float32)
    flashes = np.array(flashes[::-1], dtype=np.float64)
    at = flashes[:, :2]
    progress = np.clip(flashes[:, 2] / FLASH_TICKS, 0.0, 1.0)
    life = 1.0 - progress
    grown = 1.0 - (1.0 - progress) ** 3  # ease out: the shock front races out, then slows
    reach = session.sim.level.model.tools.radius
    radius = reach * (0.12 + 0.88 * grown)
    n = len(at)
    core = np.column_stack([np.tile(BLAST_CORE, (n, 1)), 150.0 * life**3])
    ring = np.column_stack([np.tile(BLAST, (n, 1)), 230.0 * life])
    glow = np.column_stack([np.tile(BLAST, (n, 1)), 90.0 * life**2])
    band = 2.0 + 8.0 * life
    return np.concatenate(
        [
            segments(at, at, 0.6 * radius, core, feather=0.6 * radius),
            segments(at, at, radius + band, glow, ring=2.0 * band, feather=band),
            segments(at, at, radius, ring, ring=0.4 * band),
        ]
    )


def _pour(session: Session) -> npt.NDArray[np.float32]:
    """While pouring: a faint ring where new circles appear and a dot at the spout."""
    pour = session.sim.physics.component(Pour)
    if not pour.held:
        return np.zeros((0, SEGMENT_FIELDS), np.float32)
    at = np.asarray(pour.at, dtype=np.float64)
    spread = SPOUT_SPREAD * pour.sizes[1] + pour.sizes[1]
    return np.concatenate(
        [
            segments(at, at, spread, (*SPOUT, 90), ring=1.5),
            segments(at, at, 2.5, (*SPOUT, 220)),
        ]
    )


def wall_color(
    background: tuple[int, int, int, int], amount: float = WALL_SHADE
) -> tuple[int, int, int, int]:
    """An opaque wall colour that reads on ``background``: ``amount`` of the way to white on dark
    ones, to black on light ones."""
    r, g, b, _ = background
    luma = 0.299 * r + 0.587 * g + 0.114 * b
    target = 255.0 if luma < 128.0 else 0.0
    shade = [round(c + amount * (target - c)) for c in (r, g, b)]
    return (shade[0], shade[1], shade[2], 255)


def _fingers(session: Session) -> npt.NDArray[np.float32]:
    """The press tool's finger and each poke's, where the physics has them: a faint disc with a rim.

    The disc is what squashes (a kinematic body that lags the cursor while it presses skin and
    rises back after a release), so the player sees why the body dents where it does.
    """
    sim = session.sim
    fingers = [sim.physics.component(Press)]
    with sim.physics.entered():
        fingers += [body.poke_finger for _, body in active.by_entity(SoftBody)]
    discs = [(*finger.at, finger.reach) for finger in fingers if finger.at is not None]
    if not discs:
        return np.zeros((0, SEGMENT_FIELDS), np.float32)
    at = np.array(discs, dtype=np.float64)
    centers, radius = at[:, :2], at[:, 2]
    n = len(at)
    return np.concatenate(
        [
            segments(centers, centers, radius, np.column_stack([np.tile(FINGER, (n, 1)), np.full(n, 40.0)])),
            segments(
                centers,
                centers,
                radius,
                np.column_stack([np.tile(FINGER, (n, 1)), np.full(n, 200.0)]),
                ring=2.0,
            ),
        ]
    )
