"""A row of threads that share no point, relaxed as one vector loop over consecutive points.

A sheet's threads are built row by row (``build_cloth``): a row's even
horizontals, its odd horizontals, then its verticals down to the next
row. In each of these three rows no two threads share a point, so they
may be projected in any order, all at once, with the very numbers of one
after the other. And their ends are consecutive points:

- ``COLUMNS``: thread ``k`` joins points ``a + k`` and ``b + k`` (a row's
  verticals, ``b = a + cols``). The two ends are two slices of the
  positions that do not overlap while ``|b - a|`` is at least the row's
  length.
- ``NEIGHBOURS``: thread ``k`` joins points ``a + 2k`` and ``a + 2k + 1``
  (a row's even or odd horizontals): one slice, four numbers a thread.

A loop over such a row loads no index at all, and numba's loop vectoriser
makes it eight threads a step (AVX-512 here): the loads are plain vector
loads and shuffles where the pairs kernel (``relax_rigid_distances``) loads
four indices, two masses, two rest lengths, two flags and four points one
by one for each pair. Dead threads, pinned pairs (``w_a + w_b = 0``) and
threads shorter than ``TINY`` take the scalar kernel's choice by a select,
so a row gives the pairs kernel's bits exactly (tests hold it to that).

Measured (2026-12-07, this machine, the 80 × 50 sheet hanging, one
thread, a pass over all 7870 threads): rows 2.24-2.28 ns a thread against
the pairs kernel's 2.74-2.76, in a slow minute 2.67 against 3.98. The
verticals alone 1.7 ns, the horizontals 2.8 (their four-way shuffles).
Horizontals through the pairs kernel beside vector verticals gave 2.42-2.55:
worse than both in rows, which keeps the passes in one kind of loop.

``shape_runs`` finds the rows once, when the threads are cut in two sides
(``distance_sides``, from 2000 threads); ``relax_row`` relaxes one, for
``distance.relax_rigid_runs``. The compliant kernel takes the same runs in
index order, their shapes unread: its multipliers and modes are per thread.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.jit import INNER, NO_DIVISION_CHECK
from weft.systems.kernels.two_projections import TINY

ANY, COLUMNS, NEIGHBOURS = range(3)
"""A run's shape (the third column of a cut's runs): threads in index order through the pairs
kernel, or one of the module's two rows."""

SHORTEST_ROW = 8
"""Threads from which a row is relaxed as a vector loop: one step of eight lanes (a shorter row would
run in the loop's scalar tail alone; it goes through the pairs kernel with its neighbours)."""


@numba.njit(cache=True, **INNER)
def shape_runs(
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    runs: npt.NDArray[np.int64],
    parts: npt.NDArray[np.int64],
    shaped: npt.NDArray[np.int64],
) -> tuple[int, npt.NDArray[np.int64]]:
    """Split each run ``[first, last)`` of ``runs`` (``(R, 2)`` or more columns) into rows of
    ``SHORTEST_ROW`` threads or more and the threads between them, in index order.

    Writes ``(first, last, shape)`` rows into ``shaped`` (at least as long as the threads), each
    part's after the last; returns how many, and the bounds of each part's rows (``parts``, the
    bounds of the parts' runs in ``runs``, mapped).
    """
    count = 0
    bounds = np.zeros_like(parts)
    for part in range(parts.shape[0] - 1):
        bounds[part] = count
        for r in range(parts[part], parts[part + 1]):
            c, last = runs[r, 0], runs[r, 1]
            while c < last:
                length, shape = _row_at(i, j, c, last)
                after_any = count > bounds[part] and shaped[count - 1, 2] == ANY and shaped[count - 1, 1] == c
                if shape == ANY and after_any:  # threads in no row: one run, for the pairs kernel
                    shaped[count - 1, 1] = c + length
                else:
                    shaped[count, 0], shaped[count, 1], shaped[count, 2] = c, c + length, shape
                    count += 1
                c += length
    bounds[parts.shape[0] - 1] = count
    return count, bounds


@numba.njit(cache=True, inline="always", **INNER)
def _row_at(i: npt.NDArray[np.uint32], j: npt.NDArray[np.uint32], c: int, last: int) -> tuple[int, int]:
    """The longest row starting at thread ``c`` and ending by ``last``, and its shape; ``(1, ANY)``
    where none is ``SHORTEST_ROW`` long."""
    a, b = np.int64(i[c]), np.int64(j[c])
    columns = 1
    while (
        c + columns < last
        and np.int64(i[c + columns]) == a + columns
        and np.int64(j[c + columns]) == b + columns
        and columns < abs(b - a)  # the next thread's ends are not this row's
    ):
        columns += 1
    neighbours = 1 if b == a + 1 else 0
    while (
        neighbours
        and c + neighbours < last
        and np.int64(i[c + neighbours]) == a + 2 * neighbours
        and np.int64(j[c + neighbours]) == a + 2 * neighbours + 1
    ):
        neighbours += 1
    if max(columns, neighbours) < SHORTEST_ROW:
        return 1, ANY
    if columns >= neighbours:
        return columns, COLUMNS
    return neighbours, NEIGHBOURS


@numba.njit(cache=True, inline="always", **INNER, **NO_DIVISION_CHECK)
def relax_row(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
    first: int,
    last: int,
    shape: int,
) -> None:
    """Project threads ``[first, last)``, a row of ``shape`` ``COLUMNS`` or ``NEIGHBOURS``, once
    each (``pos`` C-contiguous ``(N, 2)``): ``relax_rigid_distances`` on them, the same bits.

    Inlined into its caller, so a row costs one call, of the loop. The loops stay calls: given the
    ends as two arrays, numba's vectoriser tests once that they do not overlap; inlined, the two
    are one array to it and the loops stayed scalar (31 µs a pass against 19).
    """
    n = last - first
    a, b = np.int64(i[first]), np.int64(j[first])
    flat = pos.reshape(-1)
    if shape == COLUMNS:
        _relax_columns(
            flat[2 * a : 2 * (a + n)], flat[2 * b : 2 * (b + n)], inv_mass[a : a + n], inv_mass[b : b + n],
            rest[first:last], alive[first:last],
        )  # fmt: skip
    else:
        points = flat[2 * a : 2 * (a + 2 * n)]
        _relax_neighbours(points, inv_mass[a : a + 2 * n], rest[first:last], alive[first:last])


@numba.njit(cache=True, **INNER, **NO_DIVISION_CHECK)
def _relax_columns(
    top: npt.NDArray[np.float64],
    bottom: npt.NDArray[np.float64],
    top_mass: npt.NDArray[np.float64],
    bottom_mass: npt.NDArray[np.float64],
    rest: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
) -> None:
    """Thread ``k`` from point ``k`` of ``top`` to point ``k`` of ``bottom`` (flat x, y; the two do
    not overlap), for every ``k``: a loop numba vectorises (after its test that they do not)."""
    for k in range(rest.shape[0]):
        top[2 * k], top[2 * k + 1], bottom[2 * k], bottom[2 * k + 1] = projected_ends(
            top[2 * k], top[2 * k + 1], bottom[2 * k], bottom[2 * k + 1], top_mass[k], bottom_mass[k],
            rest[k], alive[k],
        )  # fmt: skip


@numba.njit(cache=True, **INNER, **NO_DIVISION_CHECK)
def _relax_neighbours(
    points: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    rest: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
) -> None:
    """Thread ``k`` from point ``2k`` to point ``2k + 1`` of ``points`` (flat x, y), for every ``k``.

    ``_relax_columns`` with its ends in one array: as two slices they would interleave, which the
    vectoriser's test of two slices rejects (the loop would stay scalar)."""
    for k in range(rest.shape[0]):
        points[4 * k], points[4 * k + 1], points[4 * k + 2], points[4 * k + 3] = projected_ends(
            points[4 * k], points[4 * k + 1], points[4 * k + 2], points[4 * k + 3], inv_mass[2 * k],
            inv_mass[2 * k + 1], rest[k], alive[k],
        )  # fmt: skip


@numba.njit(cache=True, inline="always", **INNER, **NO_DIVISION_CHECK)
def projected_ends(
    ax: float, ay: float, bx: float, by: float, wa: float, wb: float, rest: float, live: bool
) -> tuple[float, float, float, float]:
    """A rigid thread's two ends after one projection (``distance.relax_rigid_distances``'
    formula), unless it is dead (``live`` False) or both ends are pinned: then as they were.

    Computed always and chosen by a select, where a branch would stop the loop vectoriser (the
    quotient of a pinned pair, perhaps infinite, is never kept); a thread shorter than ``TINY`` has
    no direction to push along and gets ``s = 0``. Scalars in and out: a helper given arrays takes
    a reference to each every call (an atomic count, 20 ns)."""
    w = wa + wb
    dx = ax - bx
    dy = ay - by
    length = math.sqrt(dx * dx + dy * dy)
    s = (rest - length) / (w * length)
    s = s if length >= TINY else 0.0
    sx = s * dx
    sy = s * dy
    moved = live & (w != 0.0)
    return (
        ax + wa * sx if moved else ax,
        ay + wa * sy if moved else ay,
        bx - wb * sx if moved else bx,
        by - wb * sy if moved else by,
    )
