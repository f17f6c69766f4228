"""The sparse particle grid (only occupied cells kept) finds what the dense one finds, in its order."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from weft.components import Broadphase, ParticleStore
from weft.systems import broadphase
from weft.systems.kernels.grid import (
    BLOCK,
    PARALLEL_PARTICLES,
    SOLVE_ORDER_BUCKETS,
    _pairs_in_cells,
    bin_points,
    bin_points_sparse,
    find_pairs,
    index_blocks,
)
from weft.systems.kernels.jit import one_thread
from weft.systems.kernels.sweep import sweep_fast_circles

CIRCLE, RING = 1, 2


def scattered(n: int, seed: int) -> dict[str, np.ndarray]:
    """Circles and some ring points clustered in a few heaps over a wide world, a few moving fast."""
    rng = np.random.default_rng(seed)
    heaps = rng.uniform(50.0, 4000.0, size=(5, 2))
    pos = heaps[rng.integers(0, 5, n)] + rng.normal(0.0, 15.0, size=(n, 2))
    step = rng.normal(0.0, 0.3, size=(n, 2))
    step[rng.random(n) < 0.05] *= 40.0
    kind = np.where(rng.random(n) < 0.8, CIRCLE, RING).astype(np.uint8)
    return {
        "pos": pos,
        "prev": pos - step,
        "radius": rng.uniform(0.5, 1.0, n),
        "kind": kind,
        "owner": rng.integers(0, 3, n).astype(np.int64),
        "inv_mass": np.ones(n),
    }


def binned(points: dict[str, np.ndarray], cell: float, cols: int, rows: int, sparse: bool) -> dict:
    n = len(points["pos"])
    cell_of = np.zeros(n, dtype=np.int64)
    order = np.zeros(n, dtype=np.uint32)
    collidable = np.ones(n, dtype=np.bool_)
    collidable[::7] = False  # some points the grid leaves out
    if sparse:
        keys = np.zeros(n, dtype=np.int64)
        start = np.zeros(n + 1, dtype=np.uint32)
        count, occupied = bin_points_sparse(
            points["pos"], collidable, 0.0, 0.0, cell, cols, rows, cell_of, order, keys, start
        )
        blocks = np.zeros(rows * math.ceil(cols / BLOCK) + 1, dtype=np.int64)
        index_blocks(keys[:occupied], cols, rows, blocks)
        return {
            "count": count,
            "cell_of": cell_of,
            "order": order,
            "keys": keys[:occupied],
            "start": start,
            "blocks": blocks,
        }
    start = np.zeros(cols * rows + 1, dtype=np.uint32)
    count = bin_points(points["pos"], collidable, 0.0, 0.0, cell, 0, 0, cols, rows, cell_of, start, order)
    return {
        "count": count,
        "cell_of": cell_of,
        "order": order,
        "keys": np.zeros(0, np.int64),
        "start": start,
        "blocks": np.zeros(1, np.int64),
    }


def pairs(
    points: dict[str, np.ndarray], grid: dict, cols: int, rows: int, build: Any = find_pairs
) -> tuple[np.ndarray, np.ndarray]:
    capacity = 400_000
    out = [np.zeros(capacity, dtype=np.uint32) for _ in range(4)]
    found = build(
        points["pos"], points["radius"], points["kind"], points["owner"], cols, rows, grid["start"],
        grid["order"], grid["keys"], 0.5, out[0], out[1], np.zeros(capacity, np.uint8), out[2], out[3],
    )  # fmt: skip
    assert found <= capacity
    return out[2][:found], out[3][:found]


def test_sparse_and_dense_grids_list_the_same_pairs_in_the_same_order_and_sweep_alike() -> None:
    cell, cols, rows = 2.5, 1700, 1700
    for seed in range(3):
        points = scattered(6000, seed)
        dense = binned(points, cell, cols, rows, sparse=False)
        sparse = binned(points, cell, cols, rows, sparse=True)
        assert dense["count"] == sparse["count"]
        assert np.array_equal(dense["order"][: dense["count"]], sparse["order"][: sparse["count"]])
        dense_i, dense_j = pairs(points, dense, cols, rows)
        sparse_i, sparse_j = pairs(points, sparse, cols, rows)
        assert len(dense_i) > 1000
        assert np.array_equal(dense_i, sparse_i) and np.array_equal(dense_j, sparse_j)
        swept = []
        for grid in (dense, sparse):
            pos, prev = points["pos"].copy(), points["prev"].copy()
            stopped, _ = sweep_fast_circles(
                pos, prev, points["inv_mass"], points["radius"], points["kind"], grid["cell_of"], 0.0, 0.0,
                cell, cols, rows, grid["start"], grid["order"], grid["keys"], grid["blocks"], 1.0, 10**9,
            )  # fmt: skip
            swept.append((stopped, pos, prev))
        assert swept[0][0] == swept[1][0] > 0
        assert np.array_equal(swept[0][1], swept[1][1]) and np.array_equal(swept[0][2], swept[1][2])


def test_a_wide_world_of_tiny_circles_keeps_only_its_occupied_cells() -> None:
    particles = ParticleStore()
    rng = np.random.default_rng(4)
    particles.add(rng.uniform(0.0, 8192.0, size=(2000, 2)), 1.0, 0.5, 1, kind=CIRCLE)
    grid = Broadphase()
    broadphase.bin_grid(grid, particles, (0.0, 0.0, 8192.0, 8192.0))
    assert grid.cols * grid.rows > 40_000_000  # cells of 1.25 px: the dense grid would hold them all
    assert 0 < grid.occupied <= 2000 and grid.count == 2000
    assert len(grid.cell_start) < 10_000


def brute_force_pairs(points: dict[str, np.ndarray], collidable: np.ndarray, margin: float) -> set:
    """Every pair ``find_pairs`` must list, by testing each point against those after it."""
    pos, radius, kind, owner = points["pos"], points["radius"], points["kind"], points["owner"]
    found = set()
    order = np.argsort(pos[:, 0], kind="stable")  # a sweep along x: only points closer in x can meet
    xs = pos[order, 0]
    reach = 2.0 * radius.max() + margin
    for k, a in enumerate(order):
        if not collidable[a]:
            continue
        near = order[k + 1 : np.searchsorted(xs, xs[k] + reach, side="right")]
        near = near[collidable[near]]
        gap = np.hypot(*(pos[near] - pos[a]).T) - radius[a] - radius[near]
        skin = ((kind[a] == RING) | (kind[near] == RING)) & (owner[near] != owner[a])
        meet = (gap < margin) & ((kind[a] == CIRCLE) | (kind[near] == CIRCLE) | skin)
        found |= {(min(a, b), max(a, b)) for b in near[meet].tolist()}
    return found


def test_many_particles_are_searched_in_two_halves_into_the_list_one_search_makes() -> None:
    """From ``PARALLEL_PARTICLES`` the cells are searched in two halves (on threads, or one after the
    other in the one-thread twin) and merged run by run: the list is what one search over every cell
    gives, put in runs (a stable sort by run), and holds exactly the pairs brute force finds."""
    cell, cols, rows = 2.5, 1700, 1700
    points = scattered(PARALLEL_PARTICLES + 5000, 7)
    collidable = np.ones(len(points["pos"]), dtype=np.bool_)
    collidable[::7] = False  # as ``binned`` leaves them out
    for sparse in (False, True):
        grid = binned(points, cell, cols, rows, sparse=sparse)
        assert grid["count"] >= PARALLEL_PARTICLES
        capacity = 400_000
        found_i, found_j = np.zeros(capacity, np.uint32), np.zeros(capacity, np.uint32)
        runs, sizes = np.zeros(capacity, np.uint8), np.zeros(SOLVE_ORDER_BUCKETS + 1, np.int64)
        cells = len(grid["keys"]) if sparse else cols * rows
        one_search = _pairs_in_cells.py_func(
            0, cells, points["pos"], points["radius"], points["kind"], points["owner"], cols, rows,
            grid["start"], grid["order"], grid["keys"], 0.5, found_i, found_j, runs, sizes,
        )  # fmt: skip
        by_run = np.argsort(runs[:one_search], kind="stable")
        expected = (found_i[:one_search][by_run], found_j[:one_search][by_run])
        for build in (find_pairs, one_thread(find_pairs)):
            listed = pairs(points, grid, cols, rows, build)
            assert np.array_equal(listed[0], expected[0]) and np.array_equal(listed[1], expected[1])
        listed_set = {(min(a, b), max(a, b)) for a, b in zip(*(x.tolist() for x in expected), strict=True)}
        assert listed_set == brute_force_pairs(points, collidable, 0.5)
        assert len(listed_set) > 10_000


def test_the_pair_search_with_no_room_still_counts_every_pair() -> None:
    points = scattered(PARALLEL_PARTICLES + 5000, 8)
    grid = binned(points, 2.5, 1700, 1700, sparse=True)
    full = len(pairs(points, grid, 1700, 1700)[0])
    for capacity in (0, 1, full // 3):
        out = [np.zeros(capacity, dtype=np.uint32) for _ in range(4)]
        found = find_pairs(
            points["pos"], points["radius"], points["kind"], points["owner"], 1700, 1700, grid["start"],
            grid["order"], grid["keys"], 0.5, out[0], out[1], np.zeros(capacity, np.uint8), out[2], out[3],
        )  # fmt: skip
        assert found == full
