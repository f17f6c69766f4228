"""A substep's iterations in one kernel call where they are the threads and the walls alone: the
very numbers the two systems give one by one, and the systems one by one wherever anything else
has work in the iterations."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from support.kernels import from_python
from support.worlds import counting, sheet

from weft.game.simulation import Simulation
from weft.systems.distances import DistanceSystem
from weft.systems.integrate import IntegrateSystem
from weft.systems.kernels import distance_loop, distance_sides
from weft.systems.kernels.bounds import clamp_to_bounds
from weft.systems.kernels.claims import claim
from weft.systems.kernels.distance import relax_rigid_sides
from weft.systems.kernels.distance_loop import LEAD, iterate_rigid_sides_in_walls
from weft.systems.kernels.distance_rows import ANY
from weft.systems.kernels.distance_sides import PARTS, SEAM_PART, balanced_split, split_sides
from weft.systems.kernels.inside_walls import all_inside_walls_in_two
from weft.systems.schedule import Stage, Step, System

# built for other kernels only (no wrapper for Python): copies a test can call
counters_for = from_python(distance_loop.counters_for)
relax_passes = from_python(distance_loop.relax_passes)
mark_seam_ends = from_python(distance_sides.mark_seam_ends)

FRAMES = 120
"""Frames for a sheet let go at y = 650 to reach the floor (the 20 × 12 one's lowest row, 518 px
above it, in about 95: the air's damping slows the fall) and crumple on it."""


def falling(cols: int, rows: int) -> Simulation:
    """A sheet with no pins, dropped onto the floor: the walls' clamp runs in most iterations."""
    return sheet(cols=cols, rows=rows, spacing=11.0, pins='{ layout = "none" }')


def run(sim: Simulation) -> tuple[bytes, bytes]:
    sim.step(FRAMES)
    p = sim.stores.particles
    return p.pos[: p.count].tobytes(), p.prev[: p.count].tobytes()


@pytest.mark.parametrize(("cols", "rows"), [(20, 12), (80, 50)], ids=["one side", "two sides"])
def test_a_sheet_on_the_floor_ends_where_the_systems_one_by_one_leave_it(
    cols: int, rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the substep one system at a time around the iterations (a whole substep fused: test_cloth_step)
    monkeypatch.setattr(IntegrateSystem, "fused_substep", System.fused_substep)
    fused = falling(cols, rows)
    calls = []
    offer = DistanceSystem.fused_iterations

    def counted(system: DistanceSystem, busy: list[System], step: Step):
        call = offer(system, busy, step)
        calls.append(call is not None)
        return call

    monkeypatch.setattr(DistanceSystem, "fused_iterations", counted)
    got = run(fused)
    monkeypatch.setattr(DistanceSystem, "fused_iterations", System.fused_iterations)
    expected = run(falling(cols, rows))

    assert calls and all(calls)  # every substep ran as one call
    assert (cols == 20) == (fused.stores.distance_sides.split == 0)
    p = fused.stores.particles
    lowest = int(np.argmin(p.pos[: p.count, 1]))  # the clamp stopped points on the floor
    assert p.pos[lowest, 1] == fused.settings.walls[1] + p.radius[lowest]
    assert got == expected


def one_by_one(
    iterations: int, pos: np.ndarray, prev: np.ndarray, *arrays: np.ndarray, split: int, walls: tuple
) -> None:
    """What the distances and bounds systems run, one kernel after the other (``arrays``: inverse
    masses, radii, kinds, the threads' ends, rest lengths and alive flags, the runs and parts)."""
    inv_mass, radius, kind, i, j, rest, alive, runs, parts = arrays
    for _ in range(iterations):
        relax_rigid_sides(pos, inv_mass, i, j, rest, alive, runs, parts)
        if not all_inside_walls_in_two(pos, radius, *walls[:4], split):
            clamp_to_bounds(pos, prev, radius, inv_mass, kind, *walls)


WALLS = (40.0, 40.0, 160.0, 160.0, 0.3, 0.5, 0.4, 0.01, 0.0, 0.0)
"""left, bottom, right, top, floor friction, restitution, friction, rest speed, walls' velocity."""


def test_a_point_the_seam_pushes_out_is_stopped_at_the_wall() -> None:
    # one thread between the two sides (split 1), both ends inside; pushed to 40 px, one end
    # leaves by the floor: only the seam moved it, after the sides' test
    pos = np.array([[50.0, 50.0], [50.0, 60.0]])
    prev = pos.copy()
    ends = np.array([0], np.uint32), np.array([1], np.uint32)
    runs, parts = np.array([[0, 1, ANY]]), np.array([0, 0, 0, 0, 0, 1])  # all seam (PARTS)
    arrays = (np.ones(2), np.zeros(2), np.zeros(2, np.uint8), *ends, np.array([40.0]), np.ones(1, bool))
    iterate_rigid_sides_in_walls(1, pos, prev, *arrays, runs, parts, 1, WALLS)
    assert pos[0, 1] == WALLS[1] and pos[1, 1] == 75.0


def random_threads(seed: int, n: int = 300, m: int = 800) -> tuple[np.ndarray, ...]:
    """Positions, previous positions, inverse masses, radii, kinds, ends, rest lengths, alive flags
    of ``n`` points (some pinned, some circles, some beyond the walls) and ``m`` threads between near
    neighbours, then the cut's runs, parts and split."""
    rng = np.random.default_rng(seed)
    pos = rng.uniform(30.0, 170.0, (n, 2))  # a few points start beyond the walls
    prev = pos + rng.normal(0.0, 2.0, (n, 2))
    inv_mass = np.where(rng.random(n) < 0.1, 0.0, rng.uniform(0.2, 2.0, n))
    radius = np.where(rng.random(n) < 0.3, rng.uniform(1.0, 4.0, n), 0.0)
    kind = (radius > 0).astype(np.uint8)
    i = rng.integers(0, n, m)
    j = np.clip(i + rng.integers(1, 6, m) * rng.choice([-1, 1], m), 0, n - 1)
    j = np.where(j == i, (i + 1) % n, j)
    i, j = i.astype(np.uint32), j.astype(np.uint32)
    rest, alive = rng.uniform(5.0, 30.0, m), rng.random(m) < 0.9
    split = balanced_split(i, j)
    runs = np.empty((m, 3), np.int64)
    count, parts = split_sides(i, j, split, runs)
    return pos, prev, inv_mass, radius, kind, i, j, rest, alive, runs[:count], parts, split


@pytest.mark.parametrize("seed", range(6))
def test_every_iteration_in_one_call_is_the_kernels_one_after_the_other(seed: int) -> None:
    pos, prev, *arrays, split = random_threads(seed)
    expected = pos.copy(), prev.copy()
    one_by_one(12, *expected, *arrays, split=split, walls=WALLS)
    got = pos.copy(), prev.copy()
    iterate_rigid_sides_in_walls(12, *got, *arrays, split, WALLS)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])


def test_another_system_in_the_iterations_runs_every_iteration_beside_the_threads() -> None:
    sim = falling(20, 12)
    counter = counting("counting", Stage.ITERATION)
    sim.physics.add_system(counter)
    sim.step(3)
    assert counter.runs == 3 * sim.settings.resolved_substeps() * sim.settings.iterations


def test_compliant_threads_run_one_iteration_at_a_time() -> None:
    sim = sheet(cloth="compliance = 1e-5")
    sim.step()
    busy = [sim.schedule.get("distances"), sim.schedule.get("bounds")]
    with sim.physics.entered():
        assert busy[0].fused_iterations(busy, Step()) is None  # XPBD: each pass its multipliers
    rigid = sheet()
    busy = [rigid.schedule.get("distances"), rigid.schedule.get("bounds")]
    with rigid.physics.entered():
        assert busy[0].fused_iterations(busy, Step()) is not None


@numba.njit(parallel=True)
def _shares(iterations: int, arrays: tuple, walls: tuple, ran: np.ndarray) -> None:
    """``iterate_rigid_sides_in_walls``' passes, with how many items each thread ran in ``ran``."""
    pos, prev, inv_mass, radius, kind, i, j, rest, alive, runs, parts, split = arrays
    ends = np.zeros(pos.shape[0], dtype=np.bool_)
    mark_seam_ends(ends, i, j, runs[parts[SEAM_PART] : parts[PARTS]])
    counters = counters_for(iterations)
    for _ in numba.prange(2):
        lead = claim(counters, LEAD)
        points, threads = (pos, prev, inv_mass, radius, kind), (i, j, rest, alive)
        ran[numba.get_thread_id()] += relax_passes(
            counters, lead, iterations, points, threads, (runs, parts, split), ends, walls
        )


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="one thread: nothing to share")
def test_both_threads_run_passes_and_every_item_runs_once() -> None:
    # the same numbers on one thread or two hide a worker that ran nothing: count what each ran. A
    # worker wakes some 70 us into a call here; 60 passes of 8000 threads take a millisecond or more,
    # and the call is tried again in case a busy machine kept the worker away through all of it
    iterations, taken = 60, []
    for attempt in range(5):
        ran = np.zeros(numba.config.NUMBA_NUM_THREADS, dtype=np.int64)
        _shares(iterations, random_threads(attempt, n=4000, m=8000), WALLS, ran)
        assert ran.sum() == 3 * iterations  # side 0, side 1 and the seam of every pass, once each
        taken.append(ran.tolist())
        if np.count_nonzero(ran) == 2:
            return
    pytest.fail(f"one thread ran every item in five calls: {taken}")
