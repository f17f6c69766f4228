"""Box scenes a level author builds every day, each against Box2D v3 on the same scene (``pyb2d3``).

The twins are built at 40 px a metre (``box2d_twin``), so our 40 px box is
Box2D's unit box and 400 px/s² its 10 m/s²: the scale Box2D is tuned for.
Both run their defaults: the soft step at 4 substeps, sleeping on.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support import box2d_twin
from support.worlds import simulate

from weft.game.simulation import Simulation

LEVELS = Path(__file__).resolve().parent.parent / "levels"

BOX2D_GRAVITY = 400.0
"""px/s²: 10 m/s² at 40 px a metre."""

OFFSETS = [0.0, 0.4, -0.3, 0.2, -0.4]
"""px: each box of a stack a hair off the one below, in turn (a perfectly aligned stack stands by
symmetry alone, which tests nothing)."""


def stack_level(count: int, gravity: float, size: float = 40.0) -> str:
    return f"""
        [world]
        bounds = [0, 0, 1280, 2000]
        gravity = [0, -{gravity}]
        [[boxes]]
        name = "stack"
        count = {count}
        size = [{size}, {size}]
        base = [640, 0]
        offsets = {OFFSETS}
        friction = 0.6
        """


def stack_twin(count: int, gravity: float, size: float = 40.0) -> box2d_twin.Twin:
    twin = box2d_twin.Twin(gravity)
    for k in range(count):
        twin.box(640.0 + OFFSETS[k % len(OFFSETS)], size * (k + 0.5), (size, size), friction=0.6)
    return twin


def column_starts(count: int) -> np.ndarray:
    return 640.0 + np.array([OFFSETS[k % len(OFFSETS)] for k in range(count)])


@pytest.mark.parametrize("count", [10, 20, 40])
def test_a_stack_stands_30_seconds_where_box2d_holds_it(count: int) -> None:
    sim = simulate(stack_level(count, BOX2D_GRAVITY))
    twin = stack_twin(count, BOX2D_GRAVITY)
    sim.step(1800)
    twin.run(1800)
    ours = sim.poses("stack")
    theirs = twin.poses()
    # no box leaves its place in the column by more than 2% of its width (0.74 px measured at 40
    # boxes, Box2D 0.51); each box rests at Box2D's height, the springs' sag and all (0.17 px)
    assert np.abs(ours[:, 0] - column_starts(count)).max() < 0.02 * 40.0
    assert np.abs(ours[:, 1] - theirs[:, 1]).max() < 1.0
    assert sim.stores.rigid.asleep[:count].all()


def test_a_20_box_stack_stands_at_our_default_gravity_where_box2ds_falls() -> None:
    # 980 px/s² is 24.5 m/s² to Box2D at this scale: its 20-box stack falls within 5 s; ours solves
    # both points of each contact at once and stands, 0.18 px off the column
    sim = simulate(stack_level(20, 980.0))
    sim.step(1800)
    assert np.abs(sim.poses("stack")[:, 0] - column_starts(20)).max() < 0.02 * 40.0


def test_the_shipped_tower_stands_and_sleeps() -> None:
    sim = Simulation.load(LEVELS / "tower.toml")
    start = sim.poses("tower")
    sim.step(1800)
    assert np.abs(sim.poses("tower")[:, 0] - start[:, 0]).max() < 0.02 * 32.0
    assert sim.stores.rigid.asleep[: len(start)].all()


def test_the_shipped_house_of_cards_stands_10_seconds_as_box2ds_does() -> None:
    sim = Simulation.load(LEVELS / "cards.toml")
    _, cards = sim.body("cards")
    store = sim.stores.rigid
    rows = slice(cards.bodies.start, cards.bodies.stop)
    twin = box2d_twin.Twin(-sim.settings.gravity[1])
    for k in range(rows.start, rows.stop):
        size = 2.0 * store.half[k]
        twin.box(*store.pos[k], (size[0], size[1]), angle=float(store.angle[k]), friction=0.8)
    start = store.pos[rows].copy()
    assert len(start) >= 26  # four storeys: 4 + 3 + 2 + 1 leaning pairs, 3 + 2 + 1 flat cards
    sim.step(600)
    twin.run(600)
    # the feet slide out a little as the cards take the weight, then all sleeps: 7.5 px in both
    ours = np.abs(store.pos[rows] - start).max()
    theirs = np.abs(twin.poses()[:, :2] - start).max()
    assert ours < 12.0 and abs(ours - theirs) < 1.0, (ours, theirs)
    assert store.asleep[rows].all()


@pytest.mark.parametrize("sizes", [[20, 60, 35], [35, 60, 20], [60, 35, 20], [20, 35, 60]])
def test_boxes_of_mixed_sizes_stack_either_way_up(sizes: list[int]) -> None:
    bottoms = np.concatenate([[0.0], np.cumsum(sizes)[:-1]])
    tables = "".join(
        f'[[boxes]]\nname = "b{k}"\nlayout = "list"\npositions = [[640, {b + s / 2}]]\nsize = [{s}, {s}]\n'
        for k, (b, s) in enumerate(zip(bottoms, sizes, strict=True))
    )
    sim = simulate(tables)
    twin = box2d_twin.Twin(980.0)
    for b, s in zip(bottoms, sizes, strict=True):
        twin.box(640.0, b + s / 2, (s, s))
    sim.step(600)
    twin.run(600)
    ours = np.array([sim.poses(f"b{k}")[0] for k in range(len(sizes))])
    assert np.abs(ours[:, 0] - 640.0).max() < 0.5
    assert np.abs(ours[:, 2]).max() < 1e-3
    assert np.abs(ours[:, 1] - twin.poses()[:, 1]).max() < 0.3  # 0.17 px measured


def test_a_heavy_box_rests_on_a_light_one_within_twice_the_slop() -> None:
    sim = simulate(
        """
        [[boxes]]
        name = "light"
        layout = "list"
        positions = [[640, 20]]
        [[boxes]]
        name = "heavy"
        layout = "list"
        positions = [[640, 60]]
        density = 100
        """
    )
    sim.step(600)
    light = sim.poses("light")[0]
    heavy = sim.poses("heavy")[0]
    # Box2D v3 sets a contact's stiffness by the pair's effective mass, which the light box sets:
    # the heavy one sank 3.48 px into it (in Box2D too). Ours stiffens pairs of unlike mass: 0.14 px.
    # The light box's own contact with the floor carries both and sags 0.87 px, as in Box2D.
    assert 40.0 - (heavy[1] - light[1]) < 2 * 0.4
    assert abs(heavy[0] - 640.0) < 0.1 and abs(heavy[2]) < 1e-3


def test_the_large_pyramid_sinks_as_far_as_box2ds_and_stops_there() -> None:
    gravity = BOX2D_GRAVITY  # Box2D's own large pyramid (at our 980 px/s²: 71.7 px, Box2D's 71.6)
    level = (LEVELS / "large_pyramid.toml").read_text()
    level = level.replace("[world]", f"[world]\ngravity = [0, -{gravity}]", 1)
    sim = simulate(level.replace("[world.rigid]", "[world.rigid]\nsleeping = false", 1))
    store = sim.stores.rigid
    n = store.count
    twin = box2d_twin.Twin(gravity)
    twin.world.sleeping_enabled = False  # awake, so a creep would show
    for k in range(n):
        twin.box(*store.pos[k], (40.0, 40.0), friction=0.7)
    top = store.pos[n - 1, 1]
    sim.step(300)
    twin.run(300)
    ours_5s = top - store.pos[n - 1, 1]
    theirs_5s = top - twin.poses()[-1, 1]
    sim.step(300)
    twin.run(300)
    ours_10s = top - store.pos[n - 1, 1]
    theirs_10s = top - twin.poses()[-1, 1]
    # the top sinks the springs' sag under a hundred layers, 29.3 px (0.73 of a box), as Box2D's
    # 29.2, and stops there (no creep from 5 s to 10 s)
    assert ours_10s <= theirs_10s + 0.5, (ours_10s, theirs_10s)
    assert abs(ours_10s - ours_5s) < 0.5 and abs(theirs_10s - theirs_5s) < 0.5
