"""The walls stop what meets them without throwing it back: no fling from a push, a grab or a sheet
built too big; nothing is held or left outside the world."""

from __future__ import annotations

import numpy as np
import pytest
from support.worlds import INLINE, farthest_outside, fastest_speed, sheet, simulate

import weft
from weft.game.level.load import validate
from weft.game.level.problems import LevelError
from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.levels import DEFAULT_LEVEL

SPEED_BOUND = 3000.0
"""px/s: no cloth point goes faster than a grab may lead one (``Grab.speed``), give or take the
recoil of a thread that breaks; before the walls took the normal velocity, points came back
from outside at the depth they were pushed by, 250 000 px/s for the sheet below."""


def test_a_sheet_added_partly_outside_the_world_comes_in_without_flying_or_tearing() -> None:
    # 400 columns from x = 300 reach x = 5487: four fifths of the sheet (and its pins) outside
    sim = simulate("[world]\niterations = 20\n")
    sim.physics.add(
        weft.Cloth(
            name="wide",
            origin=[300, 650],
            cols=400,
            rows=10,
            spacing=13,
            pins={"layout": "every", "every": 4},
        )
    )
    speeds = []
    for _ in range(120):
        sim.step()
        speeds.append(fastest_speed(sim))
        assert farthest_outside(sim) == 0.0
    assert max(speeds) < SPEED_BOUND, f"points thrown at {max(speeds):.0f} px/s"  # 252 000 before
    assert sim.metrics()["counts"]["torn"] == 0  # 415 before


@pytest.mark.parametrize("kind", ["cloth", "creature"])
def test_a_point_pushed_back_by_a_wall_keeps_no_speed_from_the_push(kind: str) -> None:
    sim = sheet(pins='{ layout = "none" }') if kind == "cloth" else Simulation.load("levels/creature.toml")
    p = sim.stores.particles
    rows = np.flatnonzero(p.kind[: p.count] != 1)
    # move the body left until part of it lies past the left wall, at rest there (prev with it)
    depth = 30.0
    p.pos[rows, 0] -= p.pos[rows, 0].min() + depth
    p.prev[rows] = p.pos[rows]
    sim.step()
    assert farthest_outside(sim) == 0.0
    # what the threads or the body's pressure give back after the squash, not 30 px a step (1800 px/s)
    assert fastest_speed(sim) < 1000.0


def test_a_grab_let_go_beyond_the_window_drops_the_point_at_the_wall() -> None:
    session = Session(Simulation.load(DEFAULT_LEVEL))
    session.run(30)
    session.queue({"type": "mouse_press", "x": 110.0, "y": 300.0, "button": "left"})
    session.advance()
    for k in range(1, 11):  # out of the window to the left, 50 px a frame
        session.queue(
            {
                "type": "mouse_drag",
                "x": 110.0 - 50 * k,
                "y": 300.0,
                "dx": -50.0,
                "dy": 0.0,
                "buttons": ["left"],
            }
        )
        session.advance()
        assert farthest_outside(session.sim) == 0.0  # held on the wall, not out there with the cursor
    session.queue({"type": "mouse_release", "x": -390.0, "y": 300.0, "button": "left"})
    speeds = []
    for _ in range(30):
        session.advance()
        speeds.append(fastest_speed(session.sim))
    assert max(speeds) < SPEED_BOUND, f"let go, a point crossed at {max(speeds):.0f} px/s"  # 23 000 before


def test_a_grab_that_jumps_leads_the_point_no_faster_than_its_speed() -> None:
    session = Session(sheet(cols=10, rows=6, pins='{ layout = "none" }'))
    corner = session.sim.positions("sheet")[0]
    session.queue({"type": "mouse_press", "x": float(corner[0]), "y": float(corner[1]), "button": "left"})
    session.advance()
    # the cursor jumps 900 px in one event (a slow frame), then is let go at once
    x, y = float(corner[0]) + 900.0, float(corner[1])
    session.queue({"type": "mouse_drag", "x": x, "y": y, "dx": 900.0, "dy": 0.0, "buttons": ["left"]})
    session.advance()
    grabbed = session.sim.positions("sheet")[0]
    assert grabbed[0] - corner[0] == pytest.approx(3000.0 / 60.0)  # Grab.speed over one frame
    session.queue({"type": "mouse_release", "x": x, "y": y, "button": "left"})
    session.advance()
    # let go at the speed it was led (54 000 px/s before), 5% for the neighbours it pulls swinging past it
    assert fastest_speed(session.sim) <= 3000.0 * 1.05


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"cols": 400}, "cloth.0.cols"),  # reaches x = 5487
        ({"rows": 60}, "cloth.0.rows"),  # reaches y = -117
        ({"origin": [-20, 650]}, "cloth.0.origin"),
        ({"pins": {"layout": "list", "points": [[0, 0]], "anchors": [[300, 900]]}}, "cloth.0.pins.anchors.0"),
    ],
)
def test_validation_names_the_key_of_a_sheet_that_does_not_fit_in_the_world(change: dict, key: str) -> None:
    level = {
        "cloth": [{"name": "sheet", "origin": [300, 650], "cols": 20, "rows": 12, "spacing": 13, **change}]
    }
    with pytest.raises(LevelError) as error:
        validate(level, INLINE)
    (problem,) = error.value.problems
    assert str(problem).startswith(f"inline.toml: {key}: expected")
    assert "inside the world's bounds [0.0, 0.0, 1280.0, 720.0]" in str(problem)
