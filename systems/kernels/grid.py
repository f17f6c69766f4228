"""Uniform-grid broadphase: counting-sort points (particles, box centres) into cells, then list the
particle pairs that may touch."""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

CIRCLE = 1  # ParticleKind.CIRCLE
RING = 2  # ParticleKind.RING


@numba.njit(cache=True)
def bin_points(
    pos: npt.NDArray[np.float64],
    collidable: npt.NDArray[np.bool_],
    left: float,
    bottom: float,
    cell: float,
    cols: int,
    rows: int,
    cell_of: npt.NDArray[np.int64],
    cell_start: npt.NDArray[np.integer],
    order: npt.NDArray[np.integer],
) -> int:
    """Counting-sort the collidable points (particles, box centres) by grid cell; return how many.

    ``cell_of[k]`` gets point k's cell (row-major, clamped to the grid, -1
    when not collidable); ``cell_start`` ``(cols * rows + 1,)`` the prefix sums;
    ``order`` the point indices cell by cell, ascending within a cell, so
    the result depends on positions only, never on earlier frames.
    """
    cells = cols * rows
    cell_start[:] = 0
    for k in range(pos.shape[0]):
        if not collidable[k]:
            cell_of[k] = -1
            continue
        cx = int((pos[k, 0] - left) / cell)
        cy = int((pos[k, 1] - bottom) / cell)
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


SOLVE_ORDER_BUCKETS = 6
"""Pairs are handed to the solver in six runs: own cell, right neighbour in even columns, right
neighbour in odd columns, up-left, up, up-right."""


@numba.njit(cache=True)
def find_pairs(
    pos: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    kind: npt.NDArray[np.uint8],
    owner: npt.NDArray[np.int64],
    cols: int,
    rows: int,
    cell_start: npt.NDArray[np.uint32],
    order: npt.NDArray[np.uint32],
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
    2.4 times faster. ``found_i``, ``found_j`` and ``bucket`` are scratch
    buffers as long as the outputs. When the buffers are too small the
    count is still returned: grow them and call again.
    """
    count = 0
    capacity = pair_i.shape[0]
    sizes = np.zeros(SOLVE_ORDER_BUCKETS + 1, dtype=np.int64)
    for cy in range(rows):
        for cx in range(cols):
            c = cy * cols + cx
            for slot in range(cell_start[c], cell_start[c + 1]):
                a = order[slot]
                ax = pos[a, 0]
                ay = pos[a, 1]
                a_reach = radius[a] + margin
                a_kind = kind[a]
                a_owner = owner[a]
                # this cell (after a), then right, up-left, up and up-right
                for step in range(5):
                    if step == 0:
                        nx, ny, run = cx, cy, 0
                    elif step == 1:
                        nx, ny, run = cx + 1, cy, 1 + (cx & 1)
                    else:
                        nx, ny, run = cx + step - 3, cy + 1, step + 1
                    if nx < 0 or nx >= cols or ny >= rows:
                        continue
                    n = ny * cols + nx
                    first = slot + 1 if step == 0 else cell_start[n]
                    for other in range(first, cell_start[n + 1]):
                        b = order[other]
                        b_kind = kind[b]
                        skin = (a_kind == RING or b_kind == RING) and a_owner != owner[b]
                        if a_kind != CIRCLE and b_kind != CIRCLE and not skin:
                            continue
                        reach = a_reach + radius[b]
                        dx = ax - pos[b, 0]
                        dy = ay - pos[b, 1]
                        if dx * dx + dy * dy < reach * reach:
                            if count < capacity:
                                found_i[count] = a
                                found_j[count] = b
                                bucket[count] = run
                            sizes[run + 1] += 1
                            count += 1
    if count > capacity:
        return count
    for run in range(SOLVE_ORDER_BUCKETS):
        sizes[run + 1] += sizes[run]
    for p in range(count):
        slot = sizes[bucket[p]]
        pair_i[slot] = found_i[p]
        pair_j[slot] = found_j[p]
        sizes[bucket[p]] += 1
    return count
