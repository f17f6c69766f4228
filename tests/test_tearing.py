"""Tearing and cutting: threads break, tears run, pieces separate, hidden threads follow."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
from support.worlds import pieces, sheet

from weft.components import ThreadKind
from weft.components.distances import NO_PARENT
from weft.game.session import Session


def pull_bottom_left_corner_down(session: Session, frames: int) -> list[int]:
    """Grab the bottom-left corner and drag it down 12 px a frame; the torn count after each frame."""
    sim = session.sim
    x, y = (float(v) for v in sim.positions("sheet")[-sim.body("sheet")[1].cols])
    session.queue({"type": "mouse_press", "x": x, "y": y, "button": "left"})
    torn = []
    for _ in range(frames):
        y -= 12.0
        session.queue({"type": "mouse_drag", "x": x, "y": y, "dx": 0.0, "dy": -12.0, "buttons": ["left"]})
        session.advance()
        torn.append(sim.metrics()["counts"]["torn"])
    return torn


def test_pulling_the_bottom_corner_down_tears_and_the_tear_keeps_running() -> None:
    session = Session(sheet(cols=30, rows=20))
    torn = pull_bottom_left_corner_down(session, 40)
    assert all(b >= a for a, b in pairwise(torn))  # threads never mend
    growth_frames = sum(b > a for a, b in pairwise(torn))
    assert growth_frames >= 4, f"expected a tear that runs over several frames, got {torn}"
    assert torn[-1] >= 8
    assert pieces(session.sim) >= 2  # the corner came off


def test_first_threads_to_break_are_next_to_the_pulled_corner() -> None:
    session = Session(sheet(cols=30, rows=20))
    sim = session.sim
    corner = sim.positions("sheet")[-30].copy()
    torn = pull_bottom_left_corner_down(session, 40)
    first = next(k for k, count in enumerate(torn) if count)
    # replay up to the first break and look where it happened
    again = Session(sheet(cols=30, rows=20))
    pull_bottom_left_corner_down(again, first + 1)
    d = again.sim.stores.distances
    dead = ~d.alive[: d.count]
    rest = again.sim.body("sheet")[1].rest_pos
    local_i = d.i[: d.count][dead] - again.sim.body("sheet")[1].particles.start
    distance_from_corner = np.linalg.norm(rest[local_i] - corner, axis=1)
    assert distance_from_corner.max() < 5 * 13.0  # within a few cells of the corner


def cut_across(session: Session, y: float, x0: float = 250.0, x1: float = 600.0) -> None:
    """A right-button stroke from (x0, y) to (x1, y) in 10 drag events."""
    session.queue({"type": "mouse_press", "x": x0, "y": y, "button": "right"})
    step = (x1 - x0) / 10
    for k in range(1, 11):
        x = x0 + k * step
        session.queue({"type": "mouse_drag", "x": x, "y": y, "dx": step, "dy": 0.0, "buttons": ["right"]})
    session.queue({"type": "mouse_release", "x": x1, "y": y, "button": "right"})
    session.advance()


def test_a_cut_across_the_sheet_splits_it_into_two_pieces() -> None:
    session = Session(sheet(cols=20, rows=12))
    assert pieces(session.sim) == 1
    cut_across(session, y=650 - 5.5 * 13)  # between rows 5 and 6
    assert pieces(session.sim) == 2
    session.sim.step(60)
    lower = session.sim.positions("sheet")[7 * 20 :]
    assert lower[:, 1].max() < 650 - 7 * 13 - 100  # the lower piece fell away


def test_shear_and_bend_threads_die_with_the_structural_threads_they_lean_on() -> None:
    session = Session(sheet(cols=30, rows=20, cloth="shear = true\nbend = true"))
    pull_bottom_left_corner_down(session, 40)
    d = session.sim.stores.distances
    m = d.count
    dependents = d.kind[:m] != ThreadKind.STRUCTURAL
    assert (~d.alive[:m] & dependents).any()  # some hidden threads did die
    for c in np.flatnonzero(d.alive[:m] & dependents):
        parents = d.parents[c][d.parents[c] != NO_PARENT]
        assert d.alive[parents].all(), f"thread {c} is alive but leans on a dead thread"


def test_untearable_sheet_never_tears() -> None:
    session = Session(sheet(cols=30, rows=20, cloth="tearable = false"))
    sim = session.sim
    corner = sim.positions("sheet")[-30].copy()
    torn = pull_bottom_left_corner_down(session, 40)
    assert torn[-1] == 0
    # the same pull that tears a tearable sheet: the corner went where the cursor led it (40 drags of
    # 12 px down), stretching threads far past the tear ratio the sheet would otherwise have
    np.testing.assert_allclose(sim.positions("sheet")[-30], corner - (0.0, 40 * 12.0), atol=1.0)
    tear_ratio = sim.level.model.cloth[0].tear_ratio
    assert sim.metrics()["max_stretch"] > 2 * (tear_ratio - 1.0)
