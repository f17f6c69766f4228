"""A substep of cloth alone in one kernel call (``weft.systems.cloth_step``): the very bits the six
systems give one by one, offered only where they are all the substep has, and the idle systems of
the substep's stages skipped only where they would have changed nothing."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from support.worlds import counting, sheet, simulate

from weft.components import DistanceStore, Shake
from weft.game.simulation import Simulation
from weft.systems.integrate import IntegrateSystem
from weft.systems.schedule import Stage, Step, System

WINDY = """
[world.wind]
enabled = true
strength = 2000
gust = 0.6
"""
"""A gusting wind: the integrate kernel's other path, and threads that tear (1782 of the 80 × 50
sheet's at a tear ratio of 1.05, in 90 frames)."""

FRAMES = 90


def state(sim: Simulation) -> tuple[bytes, bytes, bytes]:
    p, d = sim.stores.particles, sim.stores.distances
    return p.pos[: p.count].tobytes(), p.prev[: p.count].tobytes(), d.alive[: d.count].tobytes()


def offers(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each substep from now on ran as one call: offered, and not declined by its kernel."""
    taken: list[bool] = []
    offer = IntegrateSystem.fused_substep

    def counted(system: IntegrateSystem, *arguments: object):
        call = offer(system, *arguments)  # type: ignore[arg-type]
        if call is None:
            taken.append(False)
            return None

        def run() -> bool:
            ran = call()
            taken.append(ran)
            return ran

        return run

    monkeypatch.setattr(IntegrateSystem, "fused_substep", counted)
    return taken


def one_by_one(make, monkeypatch: pytest.MonkeyPatch) -> tuple[bytes, bytes, bytes]:
    with monkeypatch.context() as patch:
        patch.setattr(IntegrateSystem, "fused_substep", System.fused_substep)
        sim = make()
        sim.step(FRAMES)
        return state(sim)


def large(spacing: float = 12.0, **level: str) -> Simulation:
    """The bench's 80 × 50 sheet (over 2000 threads: relaxed in two sides)."""
    return sheet(cols=80, rows=50, spacing=spacing, **level)


CASES = {
    # one side (under 2000 threads) and two, pins, a gusting wind that tears the big sheet, two
    # substeps (the pins' glide split in two), a sheet dropped on the floor (the clamps)
    "one side, windy, 2 substeps": lambda: sheet(world=f"substeps = 2\n{WINDY}", cloth="tear_ratio = 1.05"),
    "two sides, windy, tearing": lambda: large(world=WINDY, cloth="tear_ratio = 1.05"),
    "two sides on the floor": lambda: large(spacing=11.0, pins='{ layout = "none" }'),
}


@pytest.mark.parametrize("case", CASES)
def test_a_cloth_level_gives_the_same_bits_with_each_substep_in_one_call(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = one_by_one(CASES[case], monkeypatch)
    taken = offers(monkeypatch)
    sim = CASES[case]()
    sim.step(FRAMES)
    assert taken and all(taken)  # every substep was one call
    assert state(sim) == expected
    distances = sim.stores.distances
    if "tearing" in case:  # the tear test inside the call broke threads, as TearSystem does
        assert not distances.alive[: distances.count].all()


Edits = dict[int, Callable[[DistanceStore], None]]
"""Writes into the thread store, by the frame they come before."""


def edited(fused: bool, monkeypatch: pytest.MonkeyPatch, frames: int, edits: Edits) -> tuple[bytes, ...]:
    """The large sheet stepped ``frames`` frames, fused or one system at a time, each of ``edits``
    (by frame) given the thread store before that frame: written in place, as a user's system may
    (no ``set``: nothing tells the schedule)."""
    with monkeypatch.context() as patch:
        if not fused:
            patch.setattr(IntegrateSystem, "fused_substep", System.fused_substep)
        sim = large()
        for frame in range(frames):
            if frame in edits:
                edits[frame](sim.stores.distances)
            sim.step()
        return state(sim)


def compliance(value: float) -> Callable[[DistanceStore], None]:
    def edit(distances: DistanceStore) -> None:
        distances.compliance[: distances.count] = value

    return edit


def swap_first_ends(distances: DistanceStore) -> None:
    """The first thread's two ends swapped: the same thread, but the cut in two sides was made for
    the ends as they were."""
    distances.i[0], distances.j[0] = distances.j[0], distances.i[0]


def test_a_fused_substep_finds_threads_made_compliant_declines_and_is_offered_again_once_rigid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    edits = {20: compliance(1e-5), 40: compliance(0.0)}
    expected = edited(False, monkeypatch, 60, edits)
    taken = offers(monkeypatch)
    assert edited(True, monkeypatch, 60, edits) == expected
    # frame 20: offered, the kernel finds a compliant thread and declines; the distances then see
    # it, and nothing is offered until a frame one by one has found the threads rigid again (40)
    assert taken == [True] * 20 + [False] * 21 + [True] * 19


def test_a_fused_substep_whose_cut_no_longer_fits_declines_and_runs_again_once_cut_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    edits = {20: swap_first_ends}
    expected = edited(False, monkeypatch, 40, edits)
    taken = offers(monkeypatch)
    assert edited(True, monkeypatch, 40, edits) == expected
    assert taken == [True] * 20 + [False] + [True] * 19  # frame 20, one by one, cut the threads anew


def compliant() -> Simulation:
    return sheet(cloth="compliance = 1e-5")


def with_nudge() -> Simulation:
    sim = sheet()
    sim.physics.add_system(counting("nudge", Stage.SUBSTEP))
    return sim


def with_balls() -> Simulation:
    return simulate(
        """
        [[cloth]]
        name = "sheet"
        origin = [300, 650]
        cols = 20
        rows = 12
        spacing = 13
        [[balls]]
        name = "hail"
        count = 50
        radius = [4, 6]
        region = [300, 300, 600, 500]
        """
    )


@pytest.mark.parametrize("make", [compliant, with_nudge, with_balls], ids=["compliant", "custom", "balls"])
def test_anything_else_in_the_substep_runs_it_one_system_at_a_time(
    make, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = one_by_one(make, monkeypatch)
    taken = offers(monkeypatch)
    sim = make()
    sim.step(FRAMES)
    # never run as one call: a custom system is never offered (the schedule does not ask), and the
    # compliant sheet's one offer, on its first frame, is declined by the kernel
    assert not any(taken)
    assert state(sim) == expected
    if make is with_nudge:
        assert sim.schedule.get("nudge").runs == FRAMES * sim.settings.resolved_substeps()


def busy(sim: Simulation, stage: Stage) -> list[str]:
    with sim.physics.entered():
        return [system.name for system in sim.schedule.busy(stage, Step())]


def test_a_hanging_sheets_substep_is_integrate_and_pins_then_contain_and_tear() -> None:
    sim = sheet()
    sim.step()
    assert busy(sim, Stage.SUBSTEP) == ["integrate", "pins"]
    assert busy(sim, Stage.SUBSTEP_END) == ["contain", "tear"]
    loose = sheet(pins='{ layout = "none" }')
    assert busy(loose, Stage.SUBSTEP) == ["integrate"]


def test_circles_keep_the_broadphase_and_the_sweep_busy() -> None:
    sim = with_balls()
    sim.step()
    assert {"broadphase", "sweep"} <= set(busy(sim, Stage.SUBSTEP))


def test_the_shake_is_busy_while_held_and_until_the_walls_are_home() -> None:
    sim = simulate(
        """
        [[balls]]
        name = "grains"
        count = 30
        radius = [5, 5]
        region = [100, 100, 400, 300]
        [tools]
        available = ["shake"]
        start = "shake"
        """
    )
    sim.step()
    assert "shake" not in busy(sim, Stage.SUBSTEP)
    shake = sim.physics.component(Shake)
    shake.held, shake.amplitude, shake.frequency = True, 20.0, 3.0
    sim.step(10)
    assert "shake" in busy(sim, Stage.SUBSTEP)
    shake.held = False
    for _ in range(120):  # the swing ends its half-period and the walls come home
        sim.step()
    assert sim.settings.wall_offset == (0.0, 0.0) and sim.settings.wall_velocity == (0.0, 0.0)
    assert "shake" not in busy(sim, Stage.SUBSTEP)
    np.testing.assert_array_less(0.0, sim.stores.particles.pos[: sim.stores.particles.count, 1])
