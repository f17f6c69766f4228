"""Braced boxes: nothing a particle or a bone does pushes a box into the floor, a wall or a stack
that holds it, not even a held one (``systems/kernels/box_braces.py``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.kernels import from_python
from support.skins import drag, line

from weft.components import RigidStore
from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.levels import LEVELS_DIR
from weft.systems.kernels import box_braces
from weft.systems.kernels.box_braces import FREE, HELD, SECTORS, SLIDES, brace_boxes

# built for other kernels only (no wrapper for Python): copies a test can call
brace_push = from_python(box_braces.brace_push)
sector = from_python(box_braces.sector)

DOWN, UP, LEFT, RIGHT = (0.0, -1.0), (0.0, 1.0), (-1.0, 0.0), (1.0, 0.0)
FLOOR, RIGHT_WALL = -1, -4


def braces(points, boxes=3, fixed=(), asleep=()):
    """``brace_boxes`` over ``points`` (``a, b, normal, gap``) for ``boxes`` boxes, those in ``fixed``
    of no mass and those in ``asleep`` asleep: each box's mask."""
    a, b, normal, gap = zip(*points, strict=True)
    inv_mass = np.array([0.0 if k in fixed else 1.0 for k in range(boxes)])
    sleeping = np.array([k in asleep for k in range(boxes)])
    braced = np.full(boxes, 0xFFFF, dtype=np.int64)  # stale bits from a last substep are cleared
    brace_boxes(np.array(a), np.array(b), np.array(normal, dtype=float), np.array(gap, dtype=float),
                inv_mass, sleeping, braced)  # fmt: skip
    return braced


def push(mask: int, direction: tuple[float, float], friction: float = 0.6) -> tuple[int, float, float]:
    """``brace_push`` of a push along ``direction`` (the kernel takes the normal towards the pusher)."""
    return brace_push(mask, -direction[0], -direction[1], friction)


def along(degrees: float) -> tuple[float, float]:
    return float(np.cos(np.radians(degrees))), float(np.sin(np.radians(degrees)))


def test_the_floor_braces_a_crate_and_through_it_the_crate_on_top_but_not_a_crate_above_it() -> None:
    # box 0 on the floor, box 1 on box 0 (listed first: the brace climbs in a second pass), box 2
    # 3 px above box 1 (not touching)
    braced = braces([(1, 0, DOWN, 0.2), (0, FLOOR, DOWN, 0.3), (2, 1, DOWN, 3.0)])
    for box in (0, 1):
        assert push(braced[box], DOWN)[0] == HELD
        # 60 degrees below level: 0.5 of it along the floor, less than friction 0.6 times the 0.87
        # into it, holds; 30 degrees below (0.87 along, 0.5 into) slides it along the floor
        assert push(braced[box], along(-60.0))[0] == HELD
        state, ux, uy = push(braced[box], along(-30.0))
        assert state == SLIDES and (ux, uy) == pytest.approx(RIGHT)
        for free in (RIGHT, LEFT, UP, along(30.0)):
            assert push(braced[box], free)[0] == FREE
    assert braced[2] == 0


def test_a_box_braces_only_against_what_holds_that_way() -> None:
    # box 0 against the right wall; box 1 left of it, touching; box 2 on box 1 (which the floor does
    # not hold): pressed right, 1 is held through 0; pressed down, 2 is not (1 is free to fall)
    braced = braces([(0, RIGHT_WALL, RIGHT, 0.0), (1, 0, RIGHT, 0.5), (2, 1, DOWN, 0.0)])
    assert push(braced[1], RIGHT)[0] == HELD and push(braced[1], LEFT)[0] == FREE
    assert braced[2] == 0
    # a fixed box or a sleeping one holds as the floor does, each way it is touched
    for firm in ({"fixed": (1,)}, {"asleep": (1,)}):
        braced = braces([(2, 1, DOWN, 0.0), (0, 1, LEFT, 0.0)], **firm)
        assert push(braced[2], DOWN)[0] == HELD and push(braced[0], LEFT)[0] == HELD
        assert push(braced[2], LEFT)[0] == FREE and push(braced[0], DOWN)[0] == FREE


def test_a_box_in_a_corner_slides_only_out_of_it_and_a_slippery_one_no_further_than_ten_times() -> None:
    corner = braces([(0, FLOOR, DOWN, 0.0), (0, RIGHT_WALL, RIGHT, 0.0)], boxes=1)[0]
    assert push(corner, along(-45.0))[0] == HELD  # into both
    assert push(corner, along(-20.0))[0] == HELD  # along the floor, into the wall
    state, ux, uy = push(corner, along(-160.0))  # down and left: out along the floor
    assert state == SLIDES and (ux, uy) == pytest.approx(LEFT)
    floor = braces([(0, FLOOR, DOWN, 0.0)], boxes=1)[0]
    # no friction: a push 80 degrees into the floor slides the box; 85 degrees holds (LEAST_GRIP)
    assert push(floor, along(-80.0), friction=0.0)[0] == SLIDES
    assert push(floor, along(-85.0), friction=0.0)[0] == HELD


CRATES = """
[world]
substeps = 4
iterations = 8
[[boxes]]
name = "crates"
layout = "list"
positions = [[640, 30], [640, 90], [1249, 30]]
size = [60, 60]
[[balls]]
name = "hand"
positions = [[640, 200], [1100, 30]]
radius = [10, 10]
"""
"""Two crates stacked on the floor in the middle, one against the right wall (1280 px wide), and a
ball above the stack and one on the floor left of the lone crate, to take by hand."""


def lowest_corners(store, rows) -> np.ndarray:
    c, s = np.cos(store.angle[rows]), np.sin(store.angle[rows])
    hx, hy = store.half[rows].T
    return store.pos[rows, 1] - np.abs(s) * hx - np.abs(c) * hy


def rightmost_corners(store, rows) -> np.ndarray:
    c, s = np.cos(store.angle[rows]), np.sin(store.angle[rows])
    hx, hy = store.half[rows].T
    return store.pos[rows, 0] + np.abs(c) * hx + np.abs(s) * hy


def lead(session: Session, start: tuple[float, float], path: list[tuple[float, float]], watch) -> list:
    """Take what is at ``start``, lead it along ``path`` (a point a frame), hold it there a second and
    let go; ``watch()`` after each frame, in a list."""
    seen = []
    for events in drag(start, path + [path[-1]] * 60):
        for event in events:
            session.queue(event)
        session.advance()
        seen.append(watch())
    return seen


@pytest.fixture
def crates(tmp_path) -> Session:
    level = tmp_path / "crates.toml"
    level.write_text(CRATES, encoding="utf-8")
    session = Session(Simulation.load(level))
    session.run(60)  # settled
    return session


def test_a_held_ball_pressed_down_on_a_stack_never_presses_it_into_the_floor(crates: Session) -> None:
    # before: the held ball (a pin, of no mass) took all of the push, the crates none of it: pressed
    # to 100 px below the floor, the lower crate went 67 px into it until the ball was let go
    store = crates.sim.stores.rigid
    rows = crates.sim.indices("crates")[:2]
    ball = tuple(crates.sim.positions("hand")[0])
    deepest = lead(crates, ball, line(ball, (650.0, -100.0), 30), lambda: lowest_corners(store, rows).min())
    # the soft contacts' give: a crate resting on the floor sits 0 to 0.5 px in, and the press
    # shakes it by as much again
    assert min(deepest) > -1.5, min(deepest)
    assert crates.sim.positions("hand")[0, 1] > 120.0 - 1.0  # the ball lay on the stack: 2 × 60 + 10 - 10


def test_a_held_ball_pushes_a_crate_along_the_floor_but_not_into_the_wall(crates: Session) -> None:
    store = crates.sim.stores.rigid
    stack, lone = crates.sim.indices("crates")[:1], crates.sim.indices("crates")[2:]
    # the lone crate pressed into the right wall (at 1280) and past it: the wall holds it
    ball = tuple(crates.sim.positions("hand")[1])
    past = lead(crates, ball, line(ball, (1400.0, 30.0), 40), lambda: rightmost_corners(store, lone).max())
    assert max(past) < 1280.0 + 0.5, max(past)
    # held at the crate's side: the crate 1 px off the wall, 60 px wide, the ball's radius 10
    assert crates.sim.positions("hand")[1, 0] > 1279.0 - 60.0 - 10.0 - 0.5
    # led back left into the stack's lower crate: it slides (the floor braces it down, not sideways)
    before = store.pos[stack[0], 0]
    ball = tuple(crates.sim.positions("hand")[1])
    lead(crates, ball, line(ball, (300.0, 40.0), 40), lambda: None)
    assert store.pos[stack[0], 0] < before - 100.0


def doll_and_crates(frames: int) -> tuple[Session, RigidStore, np.ndarray]:
    """The rag doll level run ``frames`` frames (the doll fallen by the crates): the session, the boxes'
    store and the crates' rows."""
    session = Session(Simulation.load(LEVELS_DIR / "ragdoll.toml"))
    session.run(frames)
    return session, session.sim.stores.rigid, session.sim.indices("crates")


def test_a_rag_doll_held_by_the_pelvis_and_pressed_on_the_crates_leaves_them_on_the_floor() -> None:
    # where it was found: the pelvis (a stiff torso below it) pressed down on the crates pressed one
    # 55 px into the floor, where it stayed until the release
    session, store, rows = doll_and_crates(90)
    pelvis = tuple(session.sim.positions("doll")[0])
    path = line(pelvis, (760.0, 250.0), 20) + line((760.0, 250.0), (760.0, -100.0), 20)
    deepest = lead(session, pelvis, path, lambda: lowest_corners(store, rows).min())
    # a crate the doll tips rocks on its corner by a px or two (2.6 at worst here), as the box
    # solver's soft contacts let it
    assert min(deepest) > -4.0, min(deepest)


def test_a_directions_sector_is_its_angle_rounded() -> None:
    # two formulas that must agree: the kernel's slope comparisons and the arctangent rounded
    for degrees in np.arange(-180.0, 180.0, 0.37):  # a step off the sectors' edges
        dx, dy = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
        assert sector(dx, dy) == round(np.arctan2(dy, dx) * SECTORS / (2.0 * np.pi)) % SECTORS, degrees


def test_a_crate_on_a_tilted_crate_is_braced_down_through_it() -> None:
    # box 1 rests on box 0, turned 20 degrees: their contact's normal is 20 degrees off straight
    # down, within the three sectors a brace is passed on through
    tilted = (float(np.sin(np.radians(20.0))), -float(np.cos(np.radians(20.0))))
    braced = braces([(1, 0, tilted, 0.0), (0, FLOOR, DOWN, 0.0)], boxes=2)
    assert push(braced[1], tilted)[0] == HELD


def test_a_doll_held_by_the_knee_and_whirled_among_the_crates_never_flies_apart() -> None:
    # found by random drags: held by the knee and dragged down among the crates at 1700 px/s, the
    # joint limits could not all be met, and their sweeps moved the pelvis farther each time (78 px,
    # 159, ... 51 000): the doll was flung from corner to corner and the crates at 20 000 px/s
    session, store, crates = doll_and_crates(120)
    sim = session.sim
    x, y = (float(v) for v in sim.positions("doll")[12])  # knee_r
    session.queue({"type": "mouse_press", "x": x, "y": y, "button": "left"})
    joints = sim.positions("doll")
    jumps, speeds = [], []
    for goal in (
        (733.0, 197.0),
        (655.0, 124.0),
        (897.0, -16.0),
        (641.0, 13.0),
        (870.0, 111.0),
        (677.0, 67.0),
    ):
        while (d := math.dist((x, y), goal)) > 28.4:  # 28.4 px a frame towards each corner in turn
            nx, ny = x + (goal[0] - x) * 28.4 / d, y + (goal[1] - y) * 28.4 / d
            session.queue(
                {"type": "mouse_drag", "x": nx, "y": ny, "dx": nx - x, "dy": ny - y, "buttons": ["left"]}
            )
            session.advance()
            x, y = nx, ny
            now = sim.positions("doll")
            jumps.append(float(np.abs(now - joints).max()))
            speeds.append(float(np.hypot(*store.vel[crates].T).max()))
            joints = now
    # the knee, held down among the crates, still whips a hand or a foot round by up to 210 px in a
    # frame here (the hold is as strong as it must be to keep the knee on the cursor), and the crates
    # go up to 4000 px/s: far from the runaway's 1450 px and 20 000 px/s
    assert max(jumps) < 400.0, max(jumps)
    assert max(speeds) < 8000.0, max(speeds)
