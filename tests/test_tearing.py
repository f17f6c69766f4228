"""Tearing and cutting: threads break, tears run, pieces separate, hidden threads follow."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from support.worlds import pieces, sheet, simulate

from weft.components import ThreadKind
from weft.components.distances import NO_PARENT
from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.levels import DEFAULT_LEVEL


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
    # 12 px down), or as far as the floor, where a grab stops (inset by the point's radius), stretching
    # threads far past the tear ratio the sheet would otherwise have
    index = sim.indices("sheet")[-30]
    floor = sim.settings.walls[1] + sim.stores.particles.radius[index]
    led = corner - (0.0, 40 * 12.0)
    np.testing.assert_allclose(sim.positions("sheet")[-30], (led[0], max(led[1], floor)), atol=1.0)
    tear_ratio = sim.level.model.cloth[0].tear_ratio
    assert sim.metrics()["max_stretch"] > 2 * (tear_ratio - 1.0)


ZIGZAG = [(60.0 + 120.0 * k, 420.0 + (40.0 if k % 2 else -40.0)) for k in range(11)]
"""The corners of a zig-zag right across the default level's sheet, 80 px tall."""

LEG_FRAMES = 21
"""Frames the cursor takes along each leg of the zig-zag: every event spacing tried divides it, so
events 1, 3 or 7 frames apart all land on the corners and sample the same motion."""


def zigzag_cut(gap: int, start: int = 30) -> list[dict]:
    """The same zig-zag stroke of the right button (the cursor at the same place at the same
    frame), its drag events ``gap`` frames apart."""
    events = [
        {"frame": start, "type": "mouse_press", "x": ZIGZAG[0][0], "y": ZIGZAG[0][1], "button": "right"}
    ]
    last = ZIGZAG[0]
    total = LEG_FRAMES * (len(ZIGZAG) - 1)
    for t in range(gap, total + 1, gap):
        leg, part = divmod(t, LEG_FRAMES)
        if leg == len(ZIGZAG) - 1:
            leg, part = leg - 1, LEG_FRAMES
        (x0, y0), (x1, y1) = ZIGZAG[leg], ZIGZAG[leg + 1]
        x, y = x0 + (x1 - x0) * part / LEG_FRAMES, y0 + (y1 - y0) * part / LEG_FRAMES
        drag = {
            "type": "mouse_drag",
            "x": x,
            "y": y,
            "dx": x - last[0],
            "dy": y - last[1],
            "buttons": ["right"],
        }
        events.append({"frame": start + t, **drag})
        last = (x, y)
    events.append({"frame": start + total + 1, "type": "mouse_release", "x": x, "y": y, "button": "right"})
    return events


def structural_cut(session: Session) -> int:
    d = session.sim.stores.distances
    return int(np.count_nonzero(~d.alive[: d.count] & (d.kind[: d.count] == ThreadKind.STRUCTURAL)))


@pytest.mark.parametrize("gap", [1, 3, 7])
def test_a_zigzag_cut_parts_the_sheet_however_far_apart_its_events_come(gap: int) -> None:
    # before the cut was swept through the frames between events, this left the sheet whole at
    # every spacing (cut against the cloth as it was at each event, the pieces of the line missed
    # each other where the cut-off part had sagged meanwhile)
    session = Session(Simulation.load(DEFAULT_LEVEL))
    script = zigzag_cut(gap)
    session.run(script[-1]["frame"] + 1, script)
    assert pieces(session.sim) == 2
    # the same stroke cuts about the same threads: 112 at events every frame, 112 and 108 at 3 and 7
    assert abs(structural_cut(session) - 112) <= 0.05 * 112


def test_a_stroke_goes_on_cutting_after_another_body_is_removed_under_it() -> None:
    sim = simulate(
        """
        [[cloth]]
        name = "first"
        origin = [100, 650]
        cols = 10
        rows = 6

        [[cloth]]
        name = "second"
        origin = [500, 650]
        cols = 20
        rows = 12
        pins = { layout = "top" }
        """
    )
    session = Session(sim)
    y = 650 - 5.5 * 13
    session.queue({"type": "mouse_press", "x": 480.0, "y": y, "button": "right"})
    for k, x in enumerate((560.0, 640.0)):
        session.queue({"type": "mouse_drag", "x": x, "y": y, "dx": 80.0, "dy": 0.0, "buttons": ["right"]})
        session.run(3)
        if k == 0:  # the first sheet's rows leave the stores: the stroke's memory of the cloth follows
            sim.physics.remove(sim.physics.find("first"))
    session.queue({"type": "mouse_drag", "x": 800.0, "y": y, "dx": 160.0, "dy": 0.0, "buttons": ["right"]})
    session.run(1)
    assert pieces(sim, "second") == 2


def test_torn_counts_the_threads_a_player_sees_not_the_hidden_ones() -> None:
    session = Session(sheet(cols=20, rows=12, cloth="shear = true\nbend = true"))
    cut_across(session, y=650 - 5.5 * 13)  # between rows 5 and 6: the 20 threads down between them
    counts = session.sim.metrics()["counts"]
    assert counts["threads"] == 19 * 12 + 20 * 11
    assert counts["torn"] == structural_cut(session) == 20
    # the hidden threads died with them: every dead constraint would have said many more
    assert counts["constraints"] - counts["constraints_alive"] > 3 * counts["torn"]
    assert session.sim.thread_counts() == (counts["threads"], counts["torn"])


def test_a_cut_whose_moves_disagree_with_its_positions_still_leaves_no_gap() -> None:
    # each event's dx falls a quarter short of the move (window px given for world px, as the window
    # once did in a view scaled to fit): the segments left gaps the sheet stayed whole through
    session = Session(sheet(cols=20, rows=12))
    y, step = 650 - 5.5 * 13, 20.0
    session.queue({"type": "mouse_press", "x": 250.0, "y": y, "button": "right"})
    for k in range(1, 17):
        x = 250.0 + k * step
        session.queue(
            {"type": "mouse_drag", "x": x, "y": y, "dx": 0.75 * step, "dy": 0.0, "buttons": ["right"]}
        )
        session.advance()
    assert pieces(session.sim) == 2
