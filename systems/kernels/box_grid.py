"""Broadphase for boxes: a uniform grid of box centres, cells as wide as the largest box's reach.

A box can only touch boxes whose centres lie in its own cell or the eight
around it, so the pair search costs about one look per neighbour: linear
in the number of boxes. The same grid answers "which boxes are near this
particle" for the particle-box contacts.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.jit import INNER, kernel_with_threads

PARALLEL_BOXES = 1000
"""Boxes from which their motion is found and their pairs listed on numba's threads (fewer:
starting them costs more)."""


@numba.njit(cache=True)
def extent(c: float, s: float, hx: float, hy: float) -> tuple[float, float]:
    """Half width and half height of the axis-aligned bounding box of a box turned by the angle of
    cosine ``c`` and sine ``s``."""
    return abs(c) * hx + abs(s) * hy, abs(s) * hx + abs(c) * hy


@numba.njit(cache=True, inline="always", **INNER)
def farthest_move(dx: float, dy: float, turn: float, hx: float, hy: float) -> float:
    """How far any point of a box of half extents ``hx``, ``hy`` goes when its centre moves by
    (``dx``, ``dy``) and it turns by ``turn``: at most the centre's move plus the turn times the half
    diagonal. Given a velocity and a spin, the fastest any of its points goes.

    Square roots, not ``math.hypot``: its care against overflow cost as much again as the rest of
    a box's motion for 5050 boxes."""
    return math.sqrt(dx * dx + dy * dy) + abs(turn) * math.sqrt(hx * hx + hy * hy)


@kernel_with_threads(**INNER)
def box_motion(
    angle: npt.NDArray[np.float64],
    vel: npt.NDArray[np.float64],
    omega: npt.NDArray[np.float64],
    half: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    asleep: npt.NDArray[np.bool_],
    reach: float,
    dt: float,
    moving: npt.NDArray[np.bool_],
    margin: npt.NDArray[np.float64],
    turn: npt.NDArray[np.float64],
) -> bool:
    """What the step needs to know of each box before it looks for contacts, in one pass (on numba's
    threads for many boxes): whether it ``moving`` (movable and awake), its ``margin`` (``reach``
    plus how far any of its points can go in ``dt``: centre speed plus spin times half diagonal) and
    its cosine and sine (``turn`` ``(n, 2)``). Returns whether any box moves."""
    n = angle.shape[0]
    if n >= PARALLEL_BOXES:
        middle = n // 2
        for part in numba.prange(2):
            _motion(
                part * middle, n if part else middle, angle, vel, omega, half, inv_mass, asleep, reach, dt,
                moving, margin, turn,
            )  # fmt: skip
    else:
        _motion(np.int64(0), n, angle, vel, omega, half, inv_mass, asleep, reach, dt, moving, margin, turn)
    return moving.any()


@numba.njit(cache=True, **INNER)
def _motion(
    first: int,
    last: int,
    angle: npt.NDArray[np.float64],
    vel: npt.NDArray[np.float64],
    omega: npt.NDArray[np.float64],
    half: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    asleep: npt.NDArray[np.bool_],
    reach: float,
    dt: float,
    moving: npt.NDArray[np.bool_],
    margin: npt.NDArray[np.float64],
    turn: npt.NDArray[np.float64],
) -> None:
    """``box_motion`` for boxes ``[first, last)``."""
    for i in range(first, last):
        moving[i] = inv_mass[i] > 0.0 and not asleep[i]
        speed = farthest_move(vel[i, 0], vel[i, 1], omega[i], half[i, 0], half[i, 1])
        margin[i] = reach + speed * dt
        turn[i, 0] = math.cos(angle[i])
        turn[i, 1] = math.sin(angle[i])


Grid = tuple[
    float,
    float,
    float,
    int,
    int,
    int,
    int,
    int,
    int,
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
]
"""A grid of box centres as the kernels take it (``components.rigid.Cells.for_kernels``): ``(left,
bottom, cell, lattice_cols, lattice_rows, first_col, first_row, cols, rows, cell_of, cell_start,
order)``: a window of ``cols`` × ``rows`` cells of the level's lattice (``grid.lattice_window``)."""


Lattice = tuple[float, float, float, int, int, int, int]
"""A grid's first seven fields: ``(left, bottom, cell, lattice_cols, lattice_rows, first_col,
first_row)``, where its window lies in the level's lattice (no arrays: passing one takes a
reference to it, an atomic count, every call)."""


@numba.njit(cache=True, inline="always", **INNER)
def window_cell(x: float, y: float, lattice: Lattice) -> tuple[int, int]:
    """The cell of the lattice ``(x, y)`` lies in (clamped to the lattice, as ``bin_points`` bins),
    counted from the window's first cell: it may lie outside the window, whose cells then hold
    nothing nearer than the lattice's would."""
    left, bottom, cell, lattice_cols, lattice_rows, first_col, first_row = lattice
    cx = min(max(int((x - left) / cell), 0), lattice_cols - 1) - first_col
    cy = min(max(int((y - bottom) / cell), 0), lattice_rows - 1) - first_row
    return cx, cy


@kernel_with_threads
def box_pairs(
    pos: npt.NDArray[np.float64],
    turn: npt.NDArray[np.float64],
    half: npt.NDArray[np.float64],
    moving: npt.NDArray[np.bool_],
    margin: npt.NDArray[np.float64],
    large_count: int,
    cells: Grid,
    large_cells: Grid,
    pair_a: npt.NDArray[np.int64],
    pair_b: npt.NDArray[np.int64],
) -> int:
    """List pairs ``a < b`` whose bounding boxes (the boxes turned by ``turn``, ``box_motion``), grown
    by ``margin[a] + margin[b]``, overlap.

    Pairs where neither box is ``moving`` (awake and not fixed) are left
    out: fixed or sleeping boxes do not act on each other. Returns how many
    pairs there are; when more than ``pair_a`` holds, only the count is
    right: grow the buffers and call again.

    The ordinary boxes are in ``cells``, the ``large_count`` large ones
    (``RigidStore.large``) in ``large_cells``, each grid's cells as wide as
    the pairs it holds can reach: a box finds its ordinary pairs in the
    nine cells round its own in the first, and its large ones in the nine
    round where it lies in the second.

    Many boxes are split in two halves listed at once on numba's threads,
    the second half's pairs into a buffer of its own, then moved up behind
    the first's: the list comes out box by box, as one thread lists it.
    (Counting each box's pairs first and writing them in a second pass
    did the work twice, and each box's call into a helper given the arrays
    took a reference to each: the largest level's 4000 boxes took 1.2 ms on
    two threads and 1.7 on one, now 0.5 and 0.9.)
    """
    n = pos.shape[0]
    reach = np.empty((n, 2))  # each box's bounding half extents, once
    for i in range(n):
        reach[i, 0], reach[i, 1] = extent(turn[i, 0], turn[i, 1], half[i, 0], half[i, 1])
    capacity = pair_a.shape[0]
    if n < PARALLEL_BOXES:
        return _pairs_of(
            np.int64(0), n, pos, reach, moving, margin, large_count, cells, large_cells, pair_a, pair_b
        )
    middle = n // 2
    second_a = np.empty(capacity, dtype=np.int64)
    second_b = np.empty(capacity, dtype=np.int64)
    counts = np.zeros(2, dtype=np.int64)
    for part in numba.prange(2):
        if part:
            counts[1] = _pairs_of(
                middle, n, pos, reach, moving, margin, large_count, cells, large_cells, second_a, second_b
            )
        else:
            first = np.int64(0)
            counts[0] = _pairs_of(
                first, middle, pos, reach, moving, margin, large_count, cells, large_cells, pair_a, pair_b
            )
    count = counts[0] + counts[1]
    if count <= capacity:  # element by element: a slice assignment compiles numba's error strings (4 s)
        for k in range(counts[1]):
            pair_a[counts[0] + k] = second_a[k]
            pair_b[counts[0] + k] = second_b[k]
    return count


@numba.njit(cache=True, **INNER)
def _pairs_of(
    first: int,
    last: int,
    pos: npt.NDArray[np.float64],
    reach: npt.NDArray[np.float64],
    moving: npt.NDArray[np.bool_],
    margin: npt.NDArray[np.float64],
    large_count: int,
    cells: Grid,
    large_cells: Grid,
    pair_a: npt.NDArray[np.int64],
    pair_b: npt.NDArray[np.int64],
) -> int:
    """The pairs of boxes ``first`` to ``last``, box by box, written ``(lower, higher)`` from row 0 on
    as far as the rows go: how many. Each box's ordinary pairs are with the ordinary boxes after it,
    from the nine cells round its own; its large ones with the large boxes (after it, when it is one
    too), from the nine round where it lies in their grid (perhaps outside their window)."""
    count = 0
    grids = 2 if large_count else 1
    for i in range(first, last):
        # both grids and the test written in this loop, not in helpers given the arrays: each such call
        # takes a reference to each array (an atomic count), and on two threads both take them at once
        for g in range(grids):
            grid = large_cells if g else cells
            cols, rows, cell_of, cell_start, order = grid[7], grid[8], grid[9], grid[10], grid[11]
            where = cell_of[i]
            after_only = where >= 0
            if after_only:
                cx, cy = where % cols, where // cols
            elif g:  # an ordinary box among the large ones: the cell it lies in, as the grid bins
                cx, cy = window_cell(pos[i, 0], pos[i, 1], grid[:7])
            else:  # a large box: its ordinary pairs are listed by the ordinary boxes
                continue
            for ny in range(max(cy - 1, 0), min(cy + 2, rows)):
                for nx in range(max(cx - 1, 0), min(cx + 2, cols)):
                    cell = ny * cols + nx
                    for slot in range(cell_start[cell], cell_start[cell + 1]):
                        j = order[slot]
                        if (j <= i if after_only else j == i) or not (moving[i] or moving[j]):
                            continue
                        grow = margin[i] + margin[j]
                        if abs(pos[j, 0] - pos[i, 0]) > reach[i, 0] + reach[j, 0] + grow:
                            continue
                        if abs(pos[j, 1] - pos[i, 1]) > reach[i, 1] + reach[j, 1] + grow:
                            continue
                        if count < pair_a.shape[0]:
                            pair_a[count] = min(i, j)
                            pair_b[count] = max(i, j)
                        count += 1
    return count


@numba.njit(cache=True, **INNER)
def pairs_still_hold(
    pos: npt.NDArray[np.float64],
    angle: npt.NDArray[np.float64],
    half: npt.NDArray[np.float64],
    margin: npt.NDArray[np.float64],
    listed_pos: npt.NDArray[np.float64],
    listed_angle: npt.NDArray[np.float64],
    listed_margin: npt.NDArray[np.float64],
    moving: npt.NDArray[np.bool_],
    listed_moving: npt.NDArray[np.bool_],
) -> bool:
    """Whether a pair list made at ``listed_pos``/``listed_angle`` with margins ``listed_margin``,
    for the boxes then ``listed_moving``, still holds every pair ``box_pairs`` would list now with
    ``margin`` for the boxes ``moving`` now (a box that woke or fell asleep since: it does not).

    A box's bounding box now lies within its listed one grown by how far
    any of its points moved (centre move plus turn times half diagonal), so
    the list holds while that move plus today's margin stays within the
    margin it was listed with, for every box.
    """
    for i in range(pos.shape[0]):
        if moving[i] != listed_moving[i]:
            return False
        dx = pos[i, 0] - listed_pos[i, 0]
        dy = pos[i, 1] - listed_pos[i, 1]
        moved = farthest_move(dx, dy, angle[i] - listed_angle[i], half[i, 0], half[i, 1])
        if margin[i] + moved > listed_margin[i]:
            return False
    return True
