"""What the interaction fuzzer checks after every frame, and the scripts it plays.

The checks read the simulation's stores directly, as a debugger would: they
are the invariants a player relies on (nothing flings, folds or slips
through), stated once here so the fuzzer and a failing example's report
agree on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from support.skins import area_ratios
from weft.components import Skinned, SoftBody
from weft.game.session import Session
from weft.systems.softbody import POKE_FRAMES

MAX_SPEED = 5000.0
"""px/s: no particle or box goes faster (the issue's bound) unless a tool that adds energy acted
(``ENERGETIC``) or the cursor itself jumped (``JUMP``)."""

ENERGETIC = {"explode", "attract", "repel", "shake", "pour", "tilt"}
"""Tools that add energy by design: after they act, speeds are not bounded for ``CALM_FRAMES``."""

CALM_FRAMES = 60
"""Frames after an energetic tool last acted (1 s): an explosion's circles are still flying."""

JUMP = 60.0
"""px: a drag event moving the cursor farther than this in one frame (3600 px/s) moves what it
holds as fast as the hand; speeds are not bounded for ``JUMP_FRAMES`` after it."""

JUMP_FRAMES = 3

PRESS_SPEED = 400.0
"""px/s: a creature never leaves a press faster (the issue's bound), beyond the speed it had when
the press began and what gravity adds since."""

PRESS_FRAMES = 30
"""Frames after a press ends during which a creature's speed is still the press's doing."""

SHAPE_FRAMES = 150
"""Frames after a creature was last pressed, poked or touched by any tool after which it must have
its shape back (2.5 s)."""

SHAPE_TOLERANCE = 0.06
"""A creature's area back within 6% of what it had before it was pressed: its resting sag on a
slope or a peg differs by a few percent from frame to frame."""

MAX_AREA_RATIO = 6.0
"""No skin triangle grows past six times its bind area: the rag doll's raised armpit, the most a
pose within the joints' limits stretches one, is 4.7 times."""

TURN_TOLERANCE = 1e-6
"""rad: the skin shows each bone's turn within its joint's limits (clamped there exactly)."""

WALL_TOLERANCE = 1.0
"""px: a particle or box centre may sit this far past a wall (the last substep's rounding)."""


@dataclass
class CreatureWatch:
    """One creature's centre last frame, its speed then, its speed when a press began, and its area
    at rest (measured at its first quiet spell)."""

    centre: np.ndarray
    speed: float = 0.0
    speed_at_press: float = 0.0
    rest_area: float | None = None


@dataclass
class Watch:
    """What the checks remember from frame to frame."""

    last_positions: np.ndarray | None = None
    last_boxes: np.ndarray | None = None
    energetic_until: int = -1
    jump_until: int = -1
    pressing: bool = False
    press_started: int = -1
    press_ended: int = -(10**9)
    touched: int = -(10**9)
    """Last frame any tool acted on anything (a creature's shape is only judged after a quiet spell)."""
    creatures: dict[str, CreatureWatch] = field(default_factory=dict)
    tool: str | None = None
    """The left button's tool as the events so far leave it (the session's own changes at the tick)."""


def ring_area(pos: np.ndarray) -> float:
    """Shoelace area of a closed ring of points ``(n, 2)``."""
    x, y = pos[:, 0], pos[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def note_event(watch: Watch, session: Session, event: dict[str, Any], frame: int) -> None:
    """Keep what an event does to the bounds: energetic tools, cursor jumps, presses."""
    kind = event["type"]
    if watch.tool is None:
        watch.tool = session.tool.name
    if kind == "tool" and event["name"] in session.tools:
        watch.tool = event["name"]  # the session takes it at the tick's start, with the events after it
    tool = watch.tool
    if kind in ("mouse_press", "mouse_drag", "mouse_release"):
        watch.touched = frame
        if tool in ENERGETIC:
            watch.energetic_until = frame + CALM_FRAMES
    if kind == "mouse_drag" and "left" in event["buttons"] and max(abs(event["dx"]), abs(event["dy"])) > JUMP:
        watch.jump_until = frame + JUMP_FRAMES
    if kind == "key_press" and event["key"] in ("LEFT", "RIGHT", "ENTER", "R"):
        watch.touched = frame
        watch.energetic_until = max(
            watch.energetic_until, frame + (CALM_FRAMES if event["key"] != "ENTER" else 0)
        )
        if event["key"] == "R":  # the level starts again: nothing carries over
            watch.last_positions = watch.last_boxes = None
            watch.creatures.clear()
        if event["key"] == "ENTER" and not watch.pressing:  # a poke: a press on every head
            watch.press_started, watch.press_ended = frame, frame + POKE_FRAMES
    if tool == "press" and kind == "mouse_press" and event["button"] == "left":
        watch.pressing, watch.press_started = True, frame
    if kind == "mouse_release" and event["button"] == "left" and watch.pressing:
        watch.pressing, watch.press_ended = False, frame


def creatures(session: Session) -> list[tuple[str, SoftBody]]:
    sim = session.sim
    return [(name, sim._component(entity, SoftBody)) for entity, name in _bodies(session, SoftBody)]


def _bodies(session: Session, kind: type) -> list[tuple[int, str]]:
    sim = session.sim
    found = []
    for entity, body in sim.bodies():
        try:
            sim._component(entity, kind)
        except KeyError:
            continue
        found.append((entity, body.name))
    return found


def check_frame(watch: Watch, session: Session, frame: int) -> list[str]:
    """Every invariant after ``frame``: an empty list, or one sentence per broken one."""
    sim = session.sim
    problems: list[str] = []
    stores = sim.stores
    particles, rigid = stores.particles, stores.rigid
    n, m = particles.count, rigid.count
    pos, prev = particles.pos[:n], particles.prev[:n]
    boxes = np.column_stack([rigid.pos[:m], rigid.angle[:m]])
    if not (np.isfinite(pos).all() and np.isfinite(prev).all() and np.isfinite(boxes).all()):
        return [f"frame {frame}: a position is not a finite number"]
    if not np.isfinite(rigid.vel[:m]).all() or not np.isfinite(rigid.omega[:m]).all():
        return [f"frame {frame}: a box velocity is not a finite number"]

    bounded = frame > watch.energetic_until and frame > watch.jump_until
    if bounded and watch.last_positions is not None and len(watch.last_positions) == n and n:
        speed = np.hypot(*(pos - watch.last_positions).T) * 60.0
        fastest = int(np.argmax(speed))
        if speed[fastest] > MAX_SPEED:
            problems.append(
                f"frame {frame}: particle {fastest} moved at {speed[fastest]:.0f} px/s "
                f"(bound {MAX_SPEED:.0f})"
            )
    if bounded and watch.last_boxes is not None and len(watch.last_boxes) == m and m:
        speed = np.hypot(*(boxes[:, :2] - watch.last_boxes[:, :2]).T) * 60.0
        fastest = int(np.argmax(speed))
        if speed[fastest] > MAX_SPEED:
            problems.append(f"frame {frame}: box {fastest} moved at {speed[fastest]:.0f} px/s")
    watch.last_positions, watch.last_boxes = pos.copy(), boxes.copy()

    left, bottom, right, top = sim.settings.walls
    outside = (
        (pos[:, 0] < left - WALL_TOLERANCE)
        | (pos[:, 0] > right + WALL_TOLERANCE)
        | (pos[:, 1] < bottom - WALL_TOLERANCE)
        | (pos[:, 1] > top + WALL_TOLERANCE)
    )
    if outside.any():
        k = int(np.flatnonzero(outside)[0])
        problems.append(f"frame {frame}: particle {k} at {pos[k].round(1).tolist()} is outside the world")
    centres = boxes[:, :2]
    out = (
        (centres[:, 0] < left - WALL_TOLERANCE)
        | (centres[:, 0] > right + WALL_TOLERANCE)
        | (centres[:, 1] < bottom - WALL_TOLERANCE)
        | (centres[:, 1] > top + WALL_TOLERANCE)
    )
    if out.any():
        k = int(np.flatnonzero(out)[0])
        problems.append(f"frame {frame}: box {k} at {centres[k].round(1).tolist()} is outside the world")

    gravity = float(np.hypot(*sim.settings.gravity))
    for name, body in creatures(session):
        if body.ring.max(initial=-1) >= n:
            continue
        ring = pos[body.ring]
        centre = ring.mean(axis=0)
        seen = watch.creatures.setdefault(name, CreatureWatch(centre))
        speed = float(np.hypot(*(centre - seen.centre))) * 60.0
        seen.centre = centre
        if frame == watch.press_started:
            seen.speed_at_press = seen.speed
        seen.speed = speed
        if watch.pressing or 0 <= frame - watch.press_ended <= PRESS_FRAMES:
            falling = gravity * max(0, frame - watch.press_started) / 60.0
            allowed = PRESS_SPEED + seen.speed_at_press + falling
            if speed > allowed:
                problems.append(
                    f"frame {frame}: creature {name!r} moves at {speed:.0f} px/s during or after a press "
                    f"(bound {allowed:.0f})"
                )
        quiet = frame - max(watch.touched, watch.press_ended)
        if quiet < SHAPE_FRAMES:
            continue
        area = abs(ring_area(ring))
        if seen.rest_area is None:
            seen.rest_area = area
        elif abs(area - seen.rest_area) > SHAPE_TOLERANCE * seen.rest_area:
            problems.append(
                f"frame {frame}: creature {name!r} has {area / seen.rest_area:.0%} of its resting area "
                f"{quiet} frames after it was last touched"
            )

    for entity, name in _bodies(session, Skinned):
        skinned = sim._component(entity, Skinned)
        ratios = area_ratios(skinned.mesh)
        inverted = int(np.count_nonzero(ratios <= 0.0))
        if inverted:
            problems.append(f"frame {frame}: {inverted} triangles of {name!r}'s skin are inside out")
        if ratios.max(initial=0.0) > MAX_AREA_RATIO:
            problems.append(
                f"frame {frame}: a triangle of {name!r}'s skin is {ratios.max():.1f} times its area"
            )
        bones = skinned.skeleton
        beyond = (bones.turns < bones.turn_low - TURN_TOLERANCE) | (
            bones.turns > bones.turn_high + TURN_TOLERANCE
        )
        if beyond.any():
            k = int(np.flatnonzero(beyond)[0])
            problems.append(f"frame {frame}: {name!r}'s bone {bones.names[k]!r} shows a turn past its limits")
    return problems
