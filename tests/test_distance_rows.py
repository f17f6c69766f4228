"""A sheet's rows of threads that share no point, relaxed as vector loops: the bits of one thread at
a time, in the cut's order."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.kernels import from_python
from support.worlds import sheet
from test_distance_sides import cut, general_pass, in_cut_order, random_mesh

import weft.systems.cloth
from weft.game.threads import numba_threads
from weft.systems.kernels.distance import relax_rigid_sides
from weft.systems.kernels.distance_rows import ANY, COLUMNS, SHORTEST_ROW, shape_runs
from weft.systems.kernels.jit import one_thread


def hanging_sheet() -> tuple[np.ndarray, ...]:
    """An 80 × 50 sheet's positions, inverse masses and threads after it fell for a while, then
    where each of its points is stored (``Sheet.grid``)."""
    sim = sheet(cols=80, rows=50, spacing=11.0)  # 80 columns fit the world from x = 300
    sim.step(30)
    d, particles = sim.stores.distances, sim.stores.particles
    m, n = d.count, particles.count
    grid = sim.body("sheet")[1].grid
    return (
        particles.pos[:n].copy(),
        particles.inv_mass[:n].copy(),
        d.i[:m].copy(),
        d.j[:m].copy(),
        d.rest[:m].copy(),
        d.alive[:m].copy(),
        grid,
    )


def check_rows(runs: np.ndarray, i: np.ndarray, j: np.ndarray) -> None:
    """Each row joins two runs of consecutive points, is long enough, and its threads share no point."""
    for first, last, shape in runs:
        if shape == ANY:
            continue
        assert shape == COLUMNS
        a, b, k = int(i[first]), int(j[first]), np.arange(last - first)
        assert last - first >= SHORTEST_ROW
        assert (i[first:last] == a + k).all() and (j[first:last] == b + k).all()
        ends = np.concatenate([i[first:last], j[first:last]])
        assert len(set(ends.tolist())) == len(ends)


def test_a_sheets_threads_are_all_in_rows() -> None:
    _, _, i, j, _, _, _ = hanging_sheet()
    runs, _ = cut(i, j)
    check_rows(runs, i, j)
    assert (runs[:, 2] != ANY).all()
    assert (runs[:, 1] - runs[:, 0]).sum() == len(i)


@pytest.mark.parametrize("odd", [False, True], ids=["even columns", "odd columns"])
def test_a_sheet_stores_each_rows_even_columns_first_and_its_threads_join_the_grids_neighbours(
    odd: bool,
) -> None:
    cols, rows, spacing = 17 if odd else 18, 5, 13.0  # rows of 8 threads and more
    sim = sheet(cols=cols, rows=rows, spacing=spacing, cloth="shear = true\nbend = true")
    _, cloth = sim.body("sheet")
    half = (cols + 1) // 2
    assert cloth.grid[0].tolist() == [c // 2 if c % 2 == 0 else half + c // 2 for c in range(cols)]
    assert sorted(cloth.grid.ravel().tolist()) == list(range(cols * rows))
    c, r = np.meshgrid(np.arange(cols), np.arange(rows))
    at_rest = np.stack([300.0 + c * spacing, 650.0 - r * spacing], axis=-1)
    np.testing.assert_array_equal(sim.positions("sheet").reshape(rows, cols, 2), at_rest)
    np.testing.assert_array_equal(cloth.rest_pos[cloth.grid], at_rest)
    np.testing.assert_array_equal(cloth.uv[cloth.grid][..., 0], c / (cols - 1))
    place = np.empty(cols * rows, dtype=np.int64)  # each stored point's (row, col), row-major
    place[cloth.grid.ravel()] = np.arange(cols * rows)
    d = sim.stores.distances
    threads = np.arange(cloth.threads.start, cloth.threads.stop)
    a, b = (
        np.divmod(place[d.i[threads] - cloth.particles.start], cols),
        np.divmod(place[d.j[threads] - cloth.particles.start], cols),
    )
    steps = sorted({(int(dr), int(dc)) for dr, dc in zip(b[0] - a[0], np.abs(b[1] - a[1]), strict=True)})
    assert steps == [(0, 1), (0, 2), (1, 0), (1, 1), (2, 0)]  # structural, shear, bend
    structural = np.array([[cloth.structural.start, cloth.structural.stop]])
    shaped = np.empty((d.count, 3), dtype=np.int64)
    count, _ = from_python(shape_runs)(d.i[: d.count], d.j[: d.count], structural, np.array([0, 1]), shaped)
    assert count == 3 * rows - 1  # each row's even and odd horizontals, and its verticals
    assert (shaped[:count, 2] == COLUMNS).all()


def test_a_sheet_stored_even_columns_first_moves_as_one_stored_left_to_right_bit_for_bit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # thread for thread the same projections in the same order: only where points are stored moved
    # (the cut falls between two rows, 25 * 80, in both)
    stored_in_rows = sheet(cols=80, rows=50, spacing=11.0)
    monkeypatch.setattr(weft.systems.cloth, "_row_slots", np.arange)
    left_to_right = sheet(cols=80, rows=50, spacing=11.0)
    for sim in (stored_in_rows, left_to_right):
        sim.step(60)
        assert sim.stores.distance_sides.split == 25 * 80
    assert (left_to_right.body("sheet")[1].grid.ravel() == np.arange(4000)).all()
    np.testing.assert_array_equal(
        stored_in_rows.positions("sheet").view(np.int64), left_to_right.positions("sheet").view(np.int64)
    )


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31))
def test_rows_found_in_any_mesh_are_rows_and_give_one_at_a_times_bits(seed: int) -> None:
    # a mesh of near neighbours, with stretches of rows written in: rows pointing up or down, and
    # near misses (a row cut short by its own ends, a chain, pairs of neighbours a + 2k, a + 2k + 1)
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
    pos, inv_mass, i, j, rest, alive, grid = hanging_sheet()
    rng = np.random.default_rng(7)
    alive &= rng.random(len(i)) > 0.1
    inv_mass[rng.random(len(inv_mass)) < 0.05] = 0.0
    inv_mass[grid[2, 10:14]] = 0.0  # a row's neighbours both pinned
    inv_mass[grid[10:12, 5]] = 0.0  # a column's ends both pinned
    pos[grid[30, 7]] = pos[grid[31, 7]]  # a vertical's ends in one place
    pos[grid[20, 2]] = pos[grid[20, 3]]  # an even horizontal's
    pos[grid[20, 5]] = pos[grid[20, 6]]  # an odd one's
    pos[grid[40, :6], 0] = -0.0  # pinned: their threads between them keep it
    inv_mass[grid[40, :6]] = 0.0
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
