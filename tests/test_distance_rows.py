"""A sheet's rows of threads that share no point, relaxed as vector loops: the bits of one thread at
a time, in the cut's order."""

from __future__ import annotations

import numba
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from support.worlds import sheet
from test_distance_sides import cut, general_pass, in_cut_order, random_mesh

from weft.game.threads import numba_threads
from weft.systems.kernels.distance import relax_rigid_sides
from weft.systems.kernels.distance_rows import ANY, COLUMNS, NEIGHBOURS, SHORTEST_ROW
from weft.systems.kernels.jit import one_thread


def hanging_sheet() -> tuple[np.ndarray, ...]:
    """An 80 × 50 sheet's positions, inverse masses and threads after it fell for a while."""
    sim = sheet(cols=80, rows=50, spacing=11.0)  # 80 columns fit the world from x = 300
    sim.step(30)
    d, particles = sim.stores.distances, sim.stores.particles
    m, n = d.count, particles.count
    return (
        particles.pos[:n].copy(),
        particles.inv_mass[:n].copy(),
        d.i[:m].copy(),
        d.j[:m].copy(),
        d.rest[:m].copy(),
        d.alive[:m].copy(),
    )


def check_rows(runs: np.ndarray, i: np.ndarray, j: np.ndarray) -> None:
    """Each row is of its shape, long enough, and its threads share no point."""
    for first, last, shape in runs:
        if shape == ANY:
            continue
        a, b, k = int(i[first]), int(j[first]), np.arange(last - first)
        assert last - first >= SHORTEST_ROW
        if shape == COLUMNS:
            assert (i[first:last] == a + k).all() and (j[first:last] == b + k).all()
        else:
            assert shape == NEIGHBOURS
            assert (i[first:last] == a + 2 * k).all() and (j[first:last] == a + 2 * k + 1).all()
        ends = np.concatenate([i[first:last], j[first:last]])
        assert len(set(ends.tolist())) == len(ends)


def test_a_sheets_threads_are_all_in_rows() -> None:
    _, _, i, j, _, _ = hanging_sheet()
    runs, _ = cut(i, j)
    check_rows(runs, i, j)
    assert (runs[:, 2] != ANY).all()
    assert (runs[:, 1] - runs[:, 0]).sum() == len(i)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31))
def test_rows_found_in_any_mesh_are_rows_and_give_one_at_a_times_bits(seed: int) -> None:
    # a mesh of near neighbours, with stretches of rows written in: rows of each shape, columns
    # pointing up or down, and their near misses (a row cut short by its own ends, a chain)
    rng = np.random.default_rng(seed)
    pos, inv_mass, i, j, _, _ = random_mesh(seed, n=400, m=300)
    pieces_i, pieces_j = [i[:100]], [j[:100]]
    for _ in range(4):
        a, count = int(rng.integers(40, 200)), int(rng.integers(1, 30))
        step = int(rng.integers(1, 40)) * int(rng.choice([-1, 1]))
        k = np.arange(count)
        shape = rng.integers(0, 3)
        if shape == 0:
            pieces_i.append(a + k), pieces_j.append(a + step + k)
        elif shape == 1:
            pieces_i.append(a + 2 * k), pieces_j.append(a + 2 * k + 1)
        else:
            pieces_i.append(a + k), pieces_j.append(a + k + 1)
        pieces_i.append(i[100:150]), pieces_j.append(j[100:150])
    i = np.concatenate(pieces_i).astype(np.uint32)
    j = np.concatenate(pieces_j).astype(np.uint32)
    rest = rng.uniform(5.0, 50.0, len(i))
    alive = rng.random(len(i)) < 0.9
    runs, parts = cut(i, j)
    check_rows(runs, i, j)
    for part in range(len(parts) - 1):  # a part's runs follow one another
        part_runs = runs[parts[part] : parts[part + 1]]
        assert (part_runs[1:, 0] >= part_runs[:-1, 1]).all()
        assert (part_runs[:, 1] > part_runs[:, 0]).all()
    expected, got = pos.copy(), pos.copy()
    for _ in range(3):
        general_pass(expected, inv_mass, *in_cut_order(runs, parts, i, j, rest, alive))
        relax_rigid_sides(got, inv_mass, i, j, rest, alive, runs, parts)
    np.testing.assert_array_equal(got.view(np.int64), expected.view(np.int64))


def test_a_torn_pinned_sheet_relaxed_in_rows_ends_where_one_thread_at_a_time_would() -> None:
    # every choice a row makes by a select: dead threads, pinned points (pairs of them too), two
    # points in the same place (s = 0), and coordinates of -0.0 that a dead thread must keep
    pos, inv_mass, i, j, rest, alive = hanging_sheet()
    rng = np.random.default_rng(7)
    alive &= rng.random(len(i)) > 0.1
    inv_mass[rng.random(len(inv_mass)) < 0.05] = 0.0
    inv_mass[2 * 80 + 10 : 2 * 80 + 14] = 0.0  # a row's neighbours both pinned
    inv_mass[[10 * 80 + 5, 11 * 80 + 5]] = 0.0  # a column's ends both pinned
    pos[30 * 80 + 7] = pos[31 * 80 + 7]  # a vertical's ends in one place
    pos[20 * 80 + 2] = pos[20 * 80 + 3]  # a horizontal's
    pos[40 * 80 : 40 * 80 + 6, 0] = -0.0  # pinned: their threads between them keep it
    inv_mass[40 * 80 : 40 * 80 + 6] = 0.0
    runs, parts = cut(i, j)
    assert (runs[:, 2] != ANY).all()
    expected = pos.copy()
    for _ in range(6):
        general_pass(expected, inv_mass, *in_cut_order(runs, parts, i, j, rest, alive))
    for kernel in (one_thread(relax_rigid_sides), relax_rigid_sides):
        got = pos.copy()
        with numba_threads(min(2, numba.config.NUMBA_NUM_THREADS)):
            for _ in range(6):
                kernel(got, inv_mass, i, j, rest, alive, runs, parts)
        np.testing.assert_array_equal(got.view(np.int64), expected.view(np.int64))
