"""Which boxes may touch: their centres binned into a grid, and the pairs listed from it (kept from
step to step while they hold)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from weft.components import BoxGrid, RigidStore
from weft.components.rigid import Cells
from weft.systems.kernels.box_grid import box_pairs
from weft.systems.kernels.box_sleep import wake_touched
from weft.systems.kernels.grid import bin_points, lattice_window
from weft.systems.kernels.jit import for_boxes

IntArray = npt.NDArray[np.int64]

PAIR_SKIN = 2.0
"""px: while no box sleeps, pairs are listed this much wider and the list is kept until some box
could have crossed that much (a standing pyramid lists its pairs once in many frames)."""


def bin_grid(
    grid: BoxGrid,
    store: RigidStore,
    bounds: tuple[float, float, float, float],
    reach: float,
    large_reach: float,
) -> None:
    """Counting-sort the box centres into the two grids over ``bounds``: the boxes not
    ``RigidStore.large`` in cells at least ``reach`` px wide, the large ones (if any) in cells at
    least ``large_reach`` wide."""
    large = store.large[: store.count]
    _bin(grid.cells, store, ~large, bounds, reach)
    if store.large_count:
        _bin(grid.large_cells, store, large, bounds, large_reach)


def _bin(
    cells: Cells,
    store: RigidStore,
    binned: npt.NDArray[np.bool_],
    bounds: tuple[float, float, float, float],
    reach: float,
) -> None:
    """The ``binned`` box centres into ``cells`` at least ``reach`` px wide over ``bounds`` (the
    window of them that holds a box)."""
    n = store.count
    left, bottom, right, top = bounds
    lattice_cols = max(1, min(4096, math.ceil((right - left) / reach)))
    lattice_rows = max(1, min(4096, math.ceil((top - bottom) / reach)))
    cell = max(reach, (right - left) / lattice_cols, (top - bottom) / lattice_rows)
    pos = store.pos[:n]
    first_col, first_row, cols, rows = lattice_window(
        pos, binned, left, bottom, cell, lattice_cols, lattice_rows
    )
    if len(cells.cell_start) < cols * rows + 1:
        cells.cell_start = np.zeros(max(cols * rows + 1, 2 * len(cells.cell_start)), dtype=np.int64)
    if len(cells.order) < n:
        cells.order = np.zeros(len(store.pos), dtype=np.int64)
        cells.cell_of = np.zeros(len(store.pos), dtype=np.int64)
    cells.cell, cells.left, cells.bottom = cell, left, bottom
    cells.lattice_cols, cells.lattice_rows = lattice_cols, lattice_rows
    cells.first_col, cells.first_row, cells.cols, cells.rows = first_col, first_row, cols, rows
    bin_points(
        pos, binned, left, bottom, cell, first_col, first_row, cols, rows, cells.cell_of,
        cells.cell_start[: cols * rows + 1], cells.order,
    )  # fmt: skip


def list_pairs(grid: BoxGrid, store: RigidStore, moving: np.ndarray, margin: np.ndarray) -> None:
    """List the box pairs that may touch in this step into ``grid.pair_a``/``pair_b``."""
    n = store.count
    find_pairs = for_boxes(box_pairs, n)
    fine, large = grid.cells.for_kernels(), grid.large_cells.for_kernels()
    grid.pair_count, grid.pair_a, grid.pair_b = fill_pairs(
        lambda a, b: find_pairs(
            store.pos[:n], grid.turn[:n], store.half[:n], moving, margin, store.large_count, fine, large, a, b
        ),
        grid.pair_a,
        grid.pair_b,
    )


def fill_pairs(
    find: Callable[[IntArray, IntArray], int], first: IntArray, second: IntArray
) -> tuple[int, IntArray, IntArray]:
    """Run ``find``, which writes pairs into the two arrays and returns how many there are, with the
    arrays grown to twice that count until they hold them all; the count and the arrays used."""
    while True:
        found = find(first, second)
        if found <= len(first):
            return found, first, second
        first = np.zeros(2 * found, dtype=np.int64)
        second = np.zeros(2 * found, dtype=np.int64)


def list_pairs_with_skin(
    grid: BoxGrid,
    store: RigidStore,
    walls: tuple[float, float, float, float],
    moving: np.ndarray,
    margin: np.ndarray,
) -> None:
    """List the pairs anew: ``PAIR_SKIN`` wider while nothing sleeps (the list is then kept while it
    holds), else exactly, and wake the sleepers an awake box comes to touch."""
    n = store.count
    anyone_asleep = bool(store.asleep[:n].any())
    listed = margin if anyone_asleep else margin + PAIR_SKIN
    # a pair's centres lie at most both half diagonals and both margins apart
    extra = 2.0 * float(listed.max())
    bin_grid(grid, store, walls, 2.0 * store.ordinary_half + extra, 2.0 * store.max_half + extra)
    list_pairs(grid, store, moving, listed)
    if anyone_asleep:
        grid.listed_pos = np.zeros((0, 2))  # exact margins: nothing to keep
        if wake_touched(
            grid.pair_a[: grid.pair_count],
            grid.pair_b[: grid.pair_count],
            store.inv_mass[:n],
            store.asleep[:n],
            store.island[:n],
            store.sleep_time[:n],
        ):
            moving[:] = (store.inv_mass[:n] > 0.0) & ~store.asleep[:n]
            list_pairs(grid, store, moving, margin)
        return
    grid.listed_pos = store.pos[:n].copy()
    grid.listed_angle = store.angle[:n].copy()
    grid.listed_margin = listed
    grid.listed_moving = moving.copy()
