"""Boxes of very different sizes: the large ones are binned in a grid of their own, so the others'
cells stay as small as those boxes need (one platform among thousands of pebbles made every pebble
meet every other), and no pair is missed, on one thread or many."""

from __future__ import annotations

import numpy as np
import pytest
from support.boxes import near_paths, overlapping

from weft.components import BoxGrid, RigidStore
from weft.components.rigid import LARGE_FROM
from weft.systems.box_pairs import bin_grid, fill_pairs
from weft.systems.kernels.box_grid import PARALLEL_BOXES, box_pairs
from weft.systems.kernels.box_particles import list_near_boxes
from weft.systems.kernels.jit import one_thread

SIDE = 400.0
"""px: the square the boxes lie in."""


def pebbles_and_platforms(seed: int, pebbles: int, platforms: int) -> RigidStore:
    """``pebbles`` boxes of 2 to 6 px and ``platforms`` of 120 to 300 px among them (the middle rows)."""
    rng = np.random.default_rng(seed)
    store = RigidStore()
    first = pebbles // 2
    for count, low, high in ((first, 1.0, 3.0), (platforms, 60.0, 150.0), (pebbles - first, 1.0, 3.0)):
        pos = rng.uniform(0.0, SIDE, (count, 2))
        store.add(pos, rng.uniform(-np.pi, np.pi, count), rng.uniform(low, high, (count, 2)), 1.0, 0.5, 0)
    return store


def listed_pairs(kernel, store: RigidStore, moving: np.ndarray, margin: np.ndarray) -> list[tuple[int, int]]:
    n = store.count
    grid = BoxGrid()
    extra = 2.0 * float(margin.max())
    bin_grid(
        grid, store, (0.0, 0.0, SIDE, SIDE), 2.0 * store.ordinary_half + extra, 2.0 * store.max_half + extra
    )
    angle = store.angle[:n]
    turn = np.column_stack([np.cos(angle), np.sin(angle)])
    arguments = (store.pos[:n], turn, store.half[:n], moving, margin, store.large_count)
    grids = (grid.cells.for_kernels(), grid.large_cells.for_kernels())
    count, a, b = fill_pairs(
        lambda a, b: kernel(*arguments, *grids, a, b), np.zeros(16, np.int64), np.zeros(16, np.int64)
    )
    return list(zip(a[:count].tolist(), b[:count].tolist(), strict=True))


def test_platforms_among_many_pebbles_have_a_grid_of_their_own_and_the_pebbles_cells_stay_small() -> None:
    store = pebbles_and_platforms(1, pebbles=LARGE_FROM, platforms=3)
    half = LARGE_FROM // 2
    assert np.flatnonzero(store.large).tolist() == [half, half + 1, half + 2]
    assert store.large_count == 3
    assert store.ordinary_half < 5.0 < 60.0 < store.max_half
    grid = BoxGrid()
    bin_grid(grid, store, (0.0, 0.0, SIDE, SIDE), 2.0 * store.ordinary_half, 2.0 * store.max_half)
    assert grid.cells.cell < 10.0  # not the platforms' 400 px: every pebble would meet every other
    assert grid.large_cells.cell >= 2.0 * store.max_half
    large = grid.large_cells
    assert sorted(large.order[: int(large.cell_start[large.cols * large.rows])]) == [
        half,
        half + 1,
        half + 2,
    ]
    assert int(grid.cells.cell_start[grid.cells.cols * grid.cells.rows]) == LARGE_FROM


@pytest.mark.parametrize(
    ("pebbles", "platforms"),
    [
        (LARGE_FROM - 10, 3),  # too few boxes to bother: one grid, sized for the platforms
        (LARGE_FROM + 50, 3),  # the platforms in a grid of their own
        (PARALLEL_BOXES + 50, 3),  # the same, the pairs counted and written on threads
        (PARALLEL_BOXES + 50, 300),  # many platforms, overlapping one another
    ],
)
@pytest.mark.parametrize("build", ["threads", "one thread"])
def test_the_pairs_listed_are_every_overlapping_pair_once(pebbles: int, platforms: int, build: str) -> None:
    store = pebbles_and_platforms(pebbles + platforms, pebbles, platforms)
    kept_apart = store.large_count > 0
    assert kept_apart == (pebbles + platforms >= LARGE_FROM)
    n = store.count
    rng = np.random.default_rng(n)
    moving = rng.random(n) < 0.8
    margin = rng.uniform(0.2, 1.0, n)
    kernel = box_pairs if build == "threads" else one_thread(box_pairs)
    listed = listed_pairs(kernel, store, moving, margin)
    expected = {
        (a, b)
        for a, b in overlapping(store.pos[:n], store.angle[:n], store.half[:n], margin)
        if moving[a] or moving[b]
    }
    assert len(listed) == len(set(listed))
    assert all(a < b for a, b in listed)
    assert set(listed) == expected
    assert any(store.large[a] or store.large[b] for a, b in listed) == kept_apart


@pytest.mark.parametrize("platforms", [0, 3, 100])
def test_every_particle_near_a_box_is_listed_with_it_once(platforms: int) -> None:
    store = pebbles_and_platforms(7, LARGE_FROM + 50, platforms)
    n = store.count
    rng = np.random.default_rng(8)
    count = 600
    pos = rng.uniform(0.0, SIDE, (count, 2))
    prev = pos + rng.uniform(-4.0, 4.0, (count, 2))  # some move more than a cell in the substep
    radius = rng.uniform(0.0, 2.0, count)
    kind = np.ones(count, dtype=np.uint8)
    margin = 2.0
    grid = BoxGrid()
    reach = float(radius.max()) + margin
    bin_grid(grid, store, (0.0, 0.0, SIDE, SIDE), store.ordinary_half + reach, store.max_half + reach)
    boxes = (store.pos[:n], store.angle[:n], store.half[:n], margin, store.large_count)
    grids = (grid.cells.for_kernels(), grid.large_cells.for_kernels())
    found, particle, box = fill_pairs(
        lambda out_particle, out_box: list_near_boxes(
            pos, prev, radius, kind, *boxes, *grids, out_particle, out_box
        ),
        np.zeros(16, dtype=np.int64),
        np.zeros(16, dtype=np.int64),
    )
    listed = list(zip(particle[:found].tolist(), box[:found].tolist(), strict=True))
    assert len(listed) == len(set(listed))
    assert set(listed) == near_paths(pos, prev, radius, margin, *boxes[:3])
