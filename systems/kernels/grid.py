"""Uniform-grid broadphase: counting-sort points (particles, box centres) into cells, then list the
particle pairs that may touch."""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.jit import INNER, kernel_with_threads

CIRCLE = 1  # ParticleKind.CIRCLE
RING = 2  # ParticleKind.RING


@numba.njit(cache=True)
def bin_points(
    pos: npt.NDArray[np.float64],
    collidable: npt.NDArray[np.bool_],
    left: float,
    bottom: float,
    cell: float,
    first_col: int,
    first_row: int,
    cols: int,
    rows: int,
    cell_of: npt.NDArray[np.int64],
    cell_start: npt.NDArray[np.integer],
    order: npt.NDArray[np.integer],
) -> int:
    """Counting-sort the collidable points (particles, box centres) by grid cell; return how many.

    The grid is ``cols`` × ``rows`` cells of a lattice of cells ``cell`` px
    wide from ``(left, bottom)``, from lattice cell (``first_col``,
    ``first_row``) on (0, 0: the grid is the whole lattice; else a window of
    it, ``lattice_window``). ``cell_of[k]`` gets point k's cell (row-major,
    clamped to the grid, -1 when not collidable); ``cell_start``
    ``(cols * rows + 1,)`` the prefix sums; ``order`` the point indices cell
    by cell, ascending within a cell, so the result depends on positions
    only, never on earlier frames.
    """
    cells = cols * rows
    cell_start[:] = 0
    for k in range(pos.shape[0]):
        if not collidable[k]:
            cell_of[k] = -1
            continue
        cx = int((pos[k, 0] - left) / cell) - first_col
        cy = int((pos[k, 1] - bottom) / cell) - first_row
        cx = min(max(cx, 0), cols - 1)
        cy = min(max(cy, 0), rows - 1)
        c = cy * cols + cx
        cell_of[k] = c
        cell_start[c + 1] += 1
    for c in range(cells):
        cell_start[c + 1] += cell_start[c]
    fill = cell_start[:cells].astype(np.int64)
    for k in range(pos.shape[0]):
        c = cell_of[k]
        if c >= 0:
            order[fill[c]] = k
            fill[c] += 1
    return cell_start[cells]


@numba.njit(cache=True)
def lattice_window(
    pos: npt.NDArray[np.float64],
    binned: npt.NDArray[np.bool_],
    left: float,
    bottom: float,
    cell: float,
    lattice_cols: int,
    lattice_rows: int,
) -> tuple[int, int, int, int]:
    """The smallest window of a lattice of ``lattice_cols`` × ``lattice_rows`` cells ``cell`` px wide
    from ``(left, bottom)`` that holds every ``binned`` point (clamped to the lattice, as
    ``bin_points`` clamps): ``(first_col, first_row, cols, rows)``, one cell when none is binned.

    The boxes' grid bins over this window only: clearing and summing every
    cell of the level's lattice cost 0.8 ms a binning for 4000 boxes in an
    8192² px world (530 000 cells, six times a frame), and the particles
    looking in it took 1.8 ms a substep, now 1.1. Cells keep their place in
    the lattice, so the points are sorted, and met, in the same order.
    """
    c0, r0, c1, r1 = lattice_cols, lattice_rows, -1, -1
    for k in range(pos.shape[0]):
        if not binned[k]:
            continue
        cx = min(max(int((pos[k, 0] - left) / cell), 0), lattice_cols - 1)
        cy = min(max(int((pos[k, 1] - bottom) / cell), 0), lattice_rows - 1)
        c0, c1 = min(c0, cx), max(c1, cx)
        r0, r1 = min(r0, cy), max(r1, cy)
    if c1 < 0:
        return 0, 0, 1, 1
    return c0, r0, c1 - c0 + 1, r1 - r0 + 1


SOLVE_ORDER_BUCKETS = 6
"""Pairs are handed to the solver in six runs: own cell, right neighbour in even columns, right
neighbour in odd columns, up-left, up, up-right."""


@numba.njit(cache=True)
def bin_points_sparse(
    pos: npt.NDArray[np.float64],
    collidable: npt.NDArray[np.bool_],
    left: float,
    bottom: float,
    cell: float,
    cols: int,
    rows: int,
    cell_of: npt.NDArray[np.int64],
    order: npt.NDArray[np.integer],
    cell_key: npt.NDArray[np.int64],
    cell_start: npt.NDArray[np.integer],
) -> tuple[int, int]:
    """``bin_points`` for a grid of more cells than points: only the occupied cells are kept.

    The same sort (row-major cells, ascending indices within a cell) by two
    stable counting passes, by column then by row: O(points + cols + rows)
    instead of O(cells). ``cell_key[s]`` is the s-th occupied cell (its
    row-major number, ascending) and ``order[cell_start[s]:cell_start[s + 1]]``
    its points, so every pass over cells meets the points in ``bin_points``'s
    order. ``cell_key`` and ``cell_start`` hold a point's worth each (and one
    more). Returns (points binned, occupied cells).
    """
    n = pos.shape[0]
    by_column = np.zeros(cols + 1, dtype=np.int64)
    by_row = np.zeros(rows + 1, dtype=np.int64)
    column = np.empty(n, dtype=np.int64)
    for k in range(n):
        if not collidable[k]:
            cell_of[k] = -1
            continue
        cx = int((pos[k, 0] - left) / cell)
        cy = int((pos[k, 1] - bottom) / cell)
        cx = min(max(cx, 0), cols - 1)
        cy = min(max(cy, 0), rows - 1)
        cell_of[k] = cy * cols + cx
        column[k] = cx
        by_column[cx + 1] += 1
        by_row[cy + 1] += 1
    for c in range(cols):
        by_column[c + 1] += by_column[c]
    for r in range(rows):
        by_row[r + 1] += by_row[r]
    count = by_row[rows]
    by_columns = np.empty(count, dtype=np.int64)
    for k in range(n):
        if cell_of[k] >= 0:
            by_columns[by_column[column[k]]] = k
            by_column[column[k]] += 1
    for slot in range(count):
        k = by_columns[slot]
        cy = cell_of[k] // cols
        order[by_row[cy]] = k
        by_row[cy] += 1
    occupied = 0
    for slot in range(count):
        key = cell_of[order[slot]]
        if occupied == 0 or key != cell_key[occupied - 1]:
            cell_key[occupied] = key
            cell_start[occupied] = slot
            occupied += 1
    cell_start[occupied] = count
    return count, occupied


BLOCK = 32
"""Cells of a row per block of a sparse grid's index (``index_blocks``)."""


@numba.njit(cache=True)
def index_blocks(
    cell_key: npt.NDArray[np.int64], cols: int, rows: int, block_start: npt.NDArray[np.int64]
) -> None:
    """``block_start[b]``: the first occupied cell (its place in ``cell_key``) in block ``b`` or after;
    a block is ``BLOCK`` cells of one row, numbered row-major (``rows * ceil(cols / BLOCK)`` of them,
    and one more entry). A lookup then searches one block, not every occupied cell: a binary search
    over 45000 of them was two thirds of the sweep's time."""
    per_row = (cols + BLOCK - 1) // BLOCK
    blocks = rows * per_row
    block_start[: blocks + 1] = 0
    for s in range(cell_key.shape[0]):
        key = cell_key[s]
        cy = key // cols
        block_start[cy * per_row + (key - cy * cols) // BLOCK + 1] += 1
    for b in range(blocks):
        block_start[b + 1] += block_start[b]


@numba.njit(cache=True, **INNER)
def first_cell_at_or_after(
    cell_key: npt.NDArray[np.int64], block_start: npt.NDArray[np.int64], cols: int, key: int
) -> int:
    """Where ``key`` is, or would be, in the ascending ``cell_key`` (a binary search in its block)."""
    cy = key // cols
    block = cy * ((cols + BLOCK - 1) // BLOCK) + (key - cy * cols) // BLOCK
    return first_at_least(cell_key, key, block_start[block], block_start[block + 1])


@numba.njit(cache=True, **INNER)
def first_at_least(values: npt.NDArray[np.integer], value: int, low: int, high: int) -> int:
    """The first place in ``[low, high)`` of the ascending ``values`` that holds ``value`` or more
    (``high`` if none): ``np.searchsorted`` on that range, a binary search written out, where numba's
    ``searchsorted`` took half a second of a first start to compile in each kernel calling it."""
    while low < high:
        middle = (low + high) // 2
        if values[middle] < value:
            low = middle + 1
        else:
            high = middle
    return low


@numba.njit(cache=True, **INNER)
def row_slots(
    cy: int,
    cx0: int,
    cx1: int,
    cols: int,
    cell_key: npt.NDArray[np.int64],
    block_start: npt.NDArray[np.int64],
    cell_start: npt.NDArray[np.integer],
) -> tuple[int, int]:
    """The slots of ``order`` holding cells ``cx0`` to ``cx1`` of row ``cy``: one run, the grid being
    row-major. An empty ``cell_key`` means a dense grid (every cell kept), else only occupied ones."""
    first = cy * cols + cx0
    last = cy * cols + cx1
    if cell_key.shape[0] == 0:
        return int(cell_start[first]), int(cell_start[last + 1])
    a = first_cell_at_or_after(cell_key, block_start, cols, first)
    b = first_cell_at_or_after(cell_key, block_start, cols, last)
    if b < cell_key.shape[0] and cell_key[b] == last:
        b += 1
    return int(cell_start[a]), int(cell_start[b])


PARALLEL_PARTICLES = 20_000
"""Particles binned from which the pair search runs in two halves at once on numba's threads (fewer:
starting them costs more than half the search)."""


@kernel_with_threads
def find_pairs(
    pos: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    kind: npt.NDArray[np.uint8],
    owner: npt.NDArray[np.int64],
    cols: int,
    rows: int,
    cell_start: npt.NDArray[np.uint32],
    order: npt.NDArray[np.uint32],
    cell_key: npt.NDArray[np.int64],
    margin: float,
    found_i: npt.NDArray[np.uint32],
    found_j: npt.NDArray[np.uint32],
    bucket: npt.NDArray[np.uint8],
    pair_i: npt.NDArray[np.uint32],
    pair_j: npt.NDArray[np.uint32],
) -> int:
    """List every pair that may touch into ``pair_i``/``pair_j``; return how many there are.

    A pair may touch when their gap is below ``margin`` and one of the two
    is a circle, or one is a soft body's skin point and the other belongs
    to another body (cloth points never meet cloth points, nor a body its
    own skin). Each cell is paired with itself and with four of its eight
    neighbours (right, and the three above), so every pair of neighbouring
    cells is visited once; with cells at least as wide as the largest
    reach this finds exactly the pairs an all-pairs check would.

    The pairs are then counting-sorted into ``SOLVE_ORDER_BUCKETS`` runs by
    neighbour direction (right neighbours split by column parity): found
    cell by cell, consecutive pairs share a particle and the Gauss-Seidel
    solver waits on each; in these runs they rarely do, and it solves them
    2.4 times faster. A grid binned by ``bin_points_sparse`` passes its
    ``cell_key`` (occupied cells only), a dense one an empty array: the
    cells are met in the same order either way, so the pairs are the same
    list. ``found_i``, ``found_j`` and ``bucket`` are scratch
    buffers as long as the outputs. When the buffers are too small the
    count is still returned: grow them and call again.

    From ``PARALLEL_PARTICLES`` binned particles the cells are searched in
    two halves at once (the second's pairs into buffers of its own), and
    each run takes the first half's pairs, then the second's: the list
    comes out as one search over every cell makes it.
    """
    capacity = pair_i.shape[0]
    if capacity == 0:  # every candidate is written to a row (the last, once they are full)
        found_i, found_j = np.empty(1, found_i.dtype), np.empty(1, found_j.dtype)
        bucket = np.empty(1, bucket.dtype)
    cells = cell_key.shape[0] if cell_key.shape[0] > 0 else cols * rows
    binned = cell_start[cells]
    sizes = np.zeros((2, SOLVE_ORDER_BUCKETS + 1), dtype=np.int64)
    counts = np.zeros(2, dtype=np.int64)
    if binned < PARALLEL_PARTICLES:
        counts[0] = _pairs_in_cells(
            np.int64(0), cells, pos, radius, kind, owner, cols, rows, cell_start, order, cell_key, margin,
            found_i, found_j, bucket, sizes[0],
        )  # fmt: skip
        second_i, second_j, second_bucket = found_i[:0], found_j[:0], bucket[:0]
    else:
        middle = first_at_least(cell_start, binned // 2, np.int64(0), cells + 1)
        second_i = np.empty_like(found_i)
        second_j = np.empty_like(found_j)
        second_bucket = np.empty_like(bucket)
        for part in numba.prange(2):
            if part:
                counts[1] = _pairs_in_cells(
                    middle, cells, pos, radius, kind, owner, cols, rows, cell_start, order, cell_key,
                    margin, second_i, second_j, second_bucket, sizes[1],
                )  # fmt: skip
            else:
                counts[0] = _pairs_in_cells(
                    np.int64(0), middle, pos, radius, kind, owner, cols, rows, cell_start, order, cell_key,
                    margin, found_i, found_j, bucket, sizes[0],
                )  # fmt: skip
    count = counts[0] + counts[1]
    if count > capacity:
        return count
    # each run: the first half's pairs, then the second's
    at = 0
    for run in range(SOLVE_ORDER_BUCKETS):
        for half in range(2):
            size = sizes[half, run + 1]
            sizes[half, run + 1] = at
            at += size
    for half in range(2):
        half_i = second_i if half else found_i
        half_j = second_j if half else found_j
        half_bucket = second_bucket if half else bucket
        for p in range(counts[half]):
            slot = sizes[half, half_bucket[p] + 1]
            pair_i[slot] = half_i[p]
            pair_j[slot] = half_j[p]
            sizes[half, half_bucket[p] + 1] += 1
    return count


@numba.njit(cache=True, **INNER)
def _pairs_in_cells(
    first: int,
    last: int,
    pos: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    kind: npt.NDArray[np.uint8],
    owner: npt.NDArray[np.int64],
    cols: int,
    rows: int,
    cell_start: npt.NDArray[np.uint32],
    order: npt.NDArray[np.uint32],
    cell_key: npt.NDArray[np.int64],
    margin: float,
    found_i: npt.NDArray[np.uint32],
    found_j: npt.NDArray[np.uint32],
    bucket: npt.NDArray[np.uint8],
    sizes: npt.NDArray[np.int64],
) -> int:
    """``find_pairs``'s search over cells ``first`` to ``last`` (of ``cell_key`` when sparse): the
    pairs in the order found, each with its run in ``bucket`` (as far as the buffers go), and how many
    each run has in ``sizes[run + 1]``; returns how many there are."""
    count = 0
    capacity = found_i.shape[0]
    sparse = cell_key.shape[0] > 0
    cells = cell_key.shape[0] if sparse else cols * rows
    lows = np.zeros(5, dtype=np.int64)  # each neighbour's run of ``order``, and its solving run
    highs = np.zeros(5, dtype=np.int64)
    runs = np.zeros(5, dtype=np.int64)
    # sparse: each neighbour's place in cell_key, only ever forward (a neighbour lies after the cell)
    ahead = np.full(5, first, dtype=np.int64)
    for s in range(first, last):
        if cell_start[s] == cell_start[s + 1]:
            continue
        c = cell_key[s] if sparse else s
        cy = c // cols
        cx = c - cy * cols
        # right, up-left, up and up-right (this cell itself, after a, is step 0 below)
        for step in range(1, 5):
            if step == 1:
                nx, ny, run = cx + 1, cy, 1 + (cx & 1)
            else:
                nx, ny, run = cx + step - 3, cy + 1, step + 1
            runs[step] = run
            lows[step] = 0
            highs[step] = 0
            if nx < 0 or nx >= cols or ny >= rows:
                continue
            n = ny * cols + nx
            if sparse:
                at = ahead[step]
                while at < cells and cell_key[at] < n:
                    at += 1
                ahead[step] = at
                if at == cells or cell_key[at] != n:
                    continue
                n = at
            lows[step] = cell_start[n]
            highs[step] = cell_start[n + 1]
        for slot in range(cell_start[s], cell_start[s + 1]):
            a = order[slot]
            ax = pos[a, 0]
            ay = pos[a, 1]
            a_reach = radius[a] + margin
            a_kind = kind[a]
            a_owner = owner[a]
            lows[0] = slot + 1
            highs[0] = cell_start[s + 1]
            for step in range(5):
                run = runs[step]
                for other in range(lows[step], highs[step]):
                    b = order[other]
                    b_kind = kind[b]
                    skin = (a_kind == RING or b_kind == RING) and a_owner != owner[b]
                    if a_kind != CIRCLE and b_kind != CIRCLE and not skin:
                        continue
                    reach = a_reach + radius[b]
                    dx = ax - pos[b, 0]
                    dy = ay - pos[b, 1]
                    # written without a branch on the hit (every candidate written, the count moved
                    # on by a hit): about half the candidates hit, and mispredicting that test cost
                    # a fifth of the search
                    hit = dx * dx + dy * dy < reach * reach
                    row = min(count, capacity - 1)
                    found_i[row] = a
                    found_j[row] = b
                    bucket[row] = run
                    sizes[run + 1] += hit
                    count += hit
    return count
