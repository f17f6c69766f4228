"""A large world's threads relaxed in two sides at once and then their seam, and two at a time in the
core's vector lanes: the numbers of a pass one thread at a time, on one core or two."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.worlds import sheet, simulate

from weft.game.threads import numba_threads, threaded
from weft.systems.kernels.distance import (
    relax_distances,
    relax_rigid_distances,
    relax_rigid_sides,
    relax_sides,
)
from weft.systems.kernels.distance_rows import COLUMNS
from weft.systems.kernels.distance_sides import (
    PARALLEL_DISTANCES,
    PARTS,
    SEAM,
    SEAM_PART,
    balanced_split,
    sides_hold,
    split_sides,
)
from weft.systems.kernels.jit import one_thread
from weft.systems.schedule import Step

ROOT = Path(__file__).resolve().parent.parent
TWO_CORES = pytest.mark.skipif(
    numba.config.NUMBA_NUM_THREADS < 2, reason="one thread only: nothing to compare"
)


def random_mesh(seed: int, n: int = 200, m: int = 501, reach: int = 6):
    """Threads between near neighbours by index (as a body's are), some dead, some points pinned."""
    rng = np.random.default_rng(seed)
    pos = rng.uniform(0, 200, (n, 2))
    inv_mass = np.where(rng.random(n) < 0.1, 0.0, rng.uniform(0.2, 2.0, n))
    i = rng.integers(0, n, m)
    j = np.clip(i + rng.integers(1, reach, m) * rng.choice([-1, 1], m), 0, n - 1)
    j = np.where(j == i, (i + 1) % n, j)
    rest = rng.uniform(5, 50, m)
    alive = rng.random(m) < 0.9
    return pos, inv_mass, i.astype(np.uint32), j.astype(np.uint32), rest, alive


def cut(i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    runs = np.empty((len(i), 3), dtype=np.int64)
    count, parts = split_sides(i, j, balanced_split(i, j), runs)
    return runs[:count], parts


def part_rows_of(runs: np.ndarray, parts: np.ndarray, part: int) -> list[int]:
    """The threads of one of a cut's ``PARTS``, in their order."""
    return [c for start, end, _ in runs[parts[part] : parts[part + 1]] for c in range(start, end)]


def part_rows(runs: np.ndarray, parts: np.ndarray, side: int) -> list[int]:
    """The threads of side 0, side 1 or the seam (``SEAM``), in their order."""
    which = (SEAM_PART,) if side == SEAM else (2 * side, 2 * side + 1)
    return [c for part in which for c in part_rows_of(runs, parts, part)]


def points_of(rows: list[int], i: np.ndarray, j: np.ndarray) -> set[int]:
    return {int(p) for c in rows for p in (i[c], j[c])}


def test_the_sheet_is_cut_between_two_rows_into_balanced_sides() -> None:
    sim = sheet(cols=80, rows=50, spacing=11.0)  # 80 columns fit the world from x = 300
    d = sim.stores.distances
    i, j = d.i[: d.count], d.j[: d.count]
    runs, parts = cut(i, j)
    sides = [part_rows(runs, parts, part) for part in (0, 1)]
    seam = part_rows(runs, parts, SEAM)
    assert balanced_split(i, j) == 25 * 80  # the first particle of row 25
    assert len(seam) == 80  # the verticals between rows 24 and 25
    assert len(sides[0]) == len(sides[1]) == (7870 - 80) // 2
    # each side meets the seam's ends in two rows of threads: side 0 its last, side 1 its first
    sizes = [len(part_rows_of(runs, parts, part)) for part in range(PARTS)]
    assert sizes == [3895 - 159, 159, 159, 3895 - 159, 80]
    # every thread in a row loaded by no index: each row's even and odd horizontals, its verticals
    assert set(runs[:, 2]) == {COLUMNS}
    assert [last - first for first, last, _ in runs[:3]] == [40, 39, 80]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31))
def test_every_thread_is_in_one_part_and_the_sides_share_no_point(seed: int) -> None:
    _, _, i, j, _, _ = random_mesh(seed)
    runs, parts = cut(i, j)
    rows = [part_rows(runs, parts, part) for part in (0, 1, SEAM)]
    assert sorted(c for part in rows for c in part) == list(range(len(i)))  # each thread once
    assert all(part == sorted(part) for part in rows)  # each part in index order
    assert not points_of(rows[0], i, j) & points_of(rows[1], i, j)
    assert abs(len(rows[0]) - len(rows[1])) < len(i) // 4  # near neighbours: a balanced cut exists
    # a side's part away from the seam holds no thread on the seam's ends, and comes before
    # (side 0) or after (side 1) every thread of it that does
    ends = points_of(rows[2], i, j)
    for free_part, meeting_part, edge in ((0, 1, 0), (3, 2, -1)):
        free, meeting = part_rows_of(runs, parts, free_part), part_rows_of(runs, parts, meeting_part)
        assert not points_of(free, i, j) & ends
        assert not meeting or points_of([meeting[edge]], i, j) & ends
        first, then = (free, meeting) if edge == 0 else (meeting, free)
        assert max(first, default=-1) < min(then, default=len(i))


def test_a_cut_holds_until_the_threads_ends_change() -> None:
    _, _, i, j, _, _ = random_mesh(3)
    kept_i, kept_j = i.copy(), j.copy()
    assert sides_hold(i, j, kept_i, kept_j)
    j[7] += 1
    assert not sides_hold(i, j, kept_i, kept_j)
    assert not sides_hold(i[:-1], kept_j[:-1], kept_i, kept_j)


def in_cut_order(runs: np.ndarray, parts: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
    order = np.array([c for part in (0, 1, SEAM) for c in part_rows(runs, parts, part)])
    return [array[order] for array in arrays]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31))
def test_a_pass_in_sides_is_a_pass_one_thread_at_a_time_in_the_cuts_order(seed: int) -> None:
    pos, inv_mass, i, j, rest, alive = random_mesh(seed)
    m = len(i)
    runs, parts = cut(i, j)
    expected = pos.copy()
    zeros = np.zeros(m)
    for _ in range(4):  # the general kernel, one thread at a time, is the reference
        relax_distances(expected, inv_mass, *in_cut_order(runs, parts, i, j, rest, zeros, zeros, alive),
                        np.zeros(m, np.uint8), 1 / 60)  # fmt: skip
    for kernel in (one_thread(relax_rigid_sides), relax_rigid_sides):
        got = pos.copy()
        with numba_threads(min(2, numba.config.NUMBA_NUM_THREADS)):
            for _ in range(4):
                kernel(got, inv_mass, i, j, rest, alive, runs, parts)
        np.testing.assert_array_equal(got, expected)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31))
def test_a_compliant_pass_in_sides_keeps_each_threads_multiplier(seed: int) -> None:
    pos, inv_mass, i, j, rest, alive = random_mesh(seed)
    m = len(i)
    rng = np.random.default_rng(seed)
    compliance = np.where(rng.random(m) < 0.5, 0.0, 1e-4)
    mode = (rng.random(m) < 0.2).astype(np.uint8)  # some ropes
    runs, parts = cut(i, j)
    expected, expected_lam = pos.copy(), np.zeros(m)
    ordered = in_cut_order(runs, parts, i, j, rest, compliance, alive, mode)
    lam_in_order = np.zeros(m)
    got, lam = pos.copy(), np.zeros(m)
    for _ in range(3):
        relax_distances(expected, inv_mass, *ordered[:4], lam_in_order, ordered[4], ordered[5], 1 / 60)
        with numba_threads(min(2, numba.config.NUMBA_NUM_THREADS)):
            relax_sides(got, inv_mass, i, j, rest, compliance, lam, alive, mode, 1 / 60, runs, parts)
    (order,) = in_cut_order(runs, parts, np.arange(m))
    expected_lam[order] = lam_in_order
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(lam, expected_lam)


def general_pass(pos: np.ndarray, inv_mass, i, j, rest, alive) -> None:
    m = len(i)
    relax_distances(pos, inv_mass, i, j, rest, np.zeros(m), np.zeros(m), alive, np.zeros(m, np.uint8), 1 / 60)


def test_threads_taken_two_at_a_time_end_where_one_at_a_time_would() -> None:
    # every way a pair may not go at once: a shared point, both ends pinned, a dead thread,
    # two points in the same place, an odd thread at the end, and a coordinate of -0.0; and two
    # free points in the same place (s = 0 in its lane), one of them at x = -0.0
    pos = np.array(
        [
            [0.0, 0.0], [30.0, 0.0], [30.0, 25.0], [-0.0, 40.0], [10.0, 10.0], [10.0, 10.0], [5.0, -7.0],
            [5.0, -7.0], [-0.0, 40.0],
        ]
    )  # fmt: skip
    inv_mass = np.array([1.0, 0.5, 2.0, 1.0, 0.0, 0.0, 1.0, 1.5, 1.0])
    i = np.array([0, 1, 4, 2, 3, 0, 4, 6, 5, 2, 3, 6, 3, 0], np.uint32)
    j = np.array([1, 2, 5, 3, 6, 4, 5, 1, 6, 0, 1, 7, 8, 2], np.uint32)
    rest = np.linspace(8.0, 20.0, len(i))
    alive = np.ones(len(i), bool)
    alive[7] = False
    for count in (len(i), len(i) - 1):
        expected, got = pos.copy(), pos.copy()
        for _ in range(6):
            general_pass(expected, inv_mass, i[:count], j[:count], rest[:count], alive[:count])
            relax_rigid_distances(got, inv_mass, i[:count], j[:count], rest[:count], alive[:count])
        np.testing.assert_array_equal(got.view(np.int64), expected.view(np.int64))  # -0.0 stays -0.0


def test_a_sheet_taken_two_threads_at_a_time_ends_where_one_at_a_time_would() -> None:
    sim = sheet(cols=80, rows=50, spacing=11.0)  # 80 columns fit the world from x = 300
    sim.step(30)
    stores = sim.stores
    d, particles = stores.distances, stores.particles
    m = d.count
    args = (particles.inv_mass, d.i[:m], d.j[:m], d.rest[:m], d.alive[:m])
    expected, got = particles.pos.copy(), particles.pos.copy()
    for _ in range(20):
        general_pass(expected, *args)
        relax_rigid_distances(got, *args)
    np.testing.assert_array_equal(got, expected)


LARGE_SHEET = """
    [world]
    iterations = 12
    [world.wind]
    enabled = true
    strength = 2500
    [[cloth]]
    name = "sheet"
    origin = [100, 700]
    cols = 80
    rows = 40
    spacing = 12
    tear_ratio = 1.25
    pins = { layout = "every", every = 8 }
    {extra}
"""


def run_sheet(threads: int, extra: str = "") -> tuple[str, int]:
    sim = simulate(LARGE_SHEET.replace("{extra}", extra))
    assert sim.stores.distances.count >= PARALLEL_DISTANCES and threaded(sim.stores)
    sim.physics.threads.pin(threads)  # the step would choose by the clock
    sim.step(40)
    d = sim.stores.distances
    return str(sim.metrics()["state_hash"]), int(d.count - d.alive[: d.count].sum())


@TWO_CORES
@pytest.mark.parametrize("extra", ["", "compliance = 1e-5"], ids=["rigid", "compliant"])
def test_a_large_tearing_sheet_gives_the_same_state_on_one_thread_as_on_two(extra: str) -> None:
    one = run_sheet(1, extra)
    assert one[1] > 0  # the wind tore threads: the kernels met dead threads and a changing cut
    assert run_sheet(2, extra) == one


def test_a_small_world_relaxes_one_thread_at_a_time_and_never_on_numbas_threads() -> None:
    sim = sheet()
    sim.step()
    assert not threaded(sim.stores)
    assert sim.stores.distance_sides.split == 0  # no cut: the walls are tested on one thread too
    with sim.physics.entered():
        prepared = sim.schedule.get("distances").prepare(Step())
    assert prepared is not None and prepared[0] is relax_rigid_distances


def test_removing_a_body_cuts_the_remaining_threads_anew() -> None:
    sim = simulate(
        """
        [[cloth]]
        name = "first"
        origin = [100, 700]
        cols = 50
        rows = 30
        spacing = 12
        [[cloth]]
        name = "second"
        origin = [660, 700]
        cols = 50
        rows = 30
        spacing = 12
        """
    )
    sim.step()
    sim.physics.remove(sim.body("first")[0])
    sim.step()
    d = sim.stores.distances
    sides = sim.stores.distance_sides
    assert d.count >= PARALLEL_DISTANCES
    assert sides_hold(d.i[: d.count], d.j[: d.count], sides.i, sides.j)
    assert np.isfinite(sim.positions("second")).all()


def test_small_worlds_never_start_numbas_thread_pool_and_a_large_cloth_does() -> None:
    # a fresh process: this one has started the pool already
    script = """
import numba.np.ufunc.parallel as pool
from weft.game.simulation import Simulation
for level in ("hammock", "ragdoll", "cloth"):
    Simulation.load(f"levels/{level}.toml").step(30)
    print(level, pool._is_initialized)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["hammock", "False", "ragdoll", "False", "cloth", "True"]
