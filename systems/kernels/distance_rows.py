"""A row of threads that share no point, relaxed as one vector loop over consecutive points.

A sheet's threads are built row by row (``build_cloth``): a row's even
horizontals, its odd horizontals, then its verticals down to the next
row. In each of these three rows no two threads share a point, so they
may be projected in any order, all at once, with the very numbers of one
after the other. And a sheet stores a row's points even columns first
(``systems.cloth``), so each of the three joins two runs of consecutive
points: thread ``k`` joins points ``a + k`` and ``b + k`` (``a`` and ``b``
the row's first thread's ends; ``b - a`` is ``cols`` for the verticals,
about ``cols / 2`` for the horizontals). The two runs do not overlap while
``|b - a|`` is at least the row's length.

A loop over such a row loads no index at all, and numba's loop vectoriser
makes it eight threads a step: the loads are plain vector loads where the
pairs kernel (``relax_rigid_distances``) loads four indices, two masses,
two rest lengths, two flags and four points one by one for each pair. Dead
threads, pinned pairs (``w_a + w_b = 0``) and threads shorter than ``TINY``
take the scalar kernel's choice by a select, so a row gives the pairs
kernel's bits exactly (tests hold it to that).

Measured (2026-12-07, this machine, the 80 × 50 sheet hanging, one
thread, a pass over all 7870 threads): rows 2.24-2.28 ns a thread against
the pairs kernel's 2.74-2.76; the verticals alone 1.7 ns, the horizontals
2.8 while a row's points were stored left to right (each horizontal then
joined points ``2k`` and ``2k + 1``: four-way shuffles in and out of the
vector registers). Stored even columns first, a pass took 2.25 ns; with
each row's loop called on the arrays whole, not on slices of them (each
slice takes a reference, an atomic count, and the positions were reshaped
for every row), 1.92 ns the same minute; with the loop inlined into the
loop over the runs (no call a row), 1.63 against 2.02 in a later minute
(2026-12-07, evening), against a floor of 0.9-1.0 (``bench/projection.py``).

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

ANY, COLUMNS = range(2)
"""A run's shape (the third column of a cut's runs): threads in index order through the pairs
kernel, or a row of the module's."""

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
    length = 1
    while (
        c + length < last
        and np.int64(i[c + length]) == a + length
        and np.int64(j[c + length]) == b + length
        and length < abs(b - a)  # the next thread's ends are not this row's
    ):
        length += 1
    if length < SHORTEST_ROW:
        return 1, ANY
    return length, COLUMNS


@numba.njit(cache=True, inline="always", **INNER, **NO_DIVISION_CHECK)
def relax_row(
    top: npt.NDArray[np.float64],
    bottom: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    rest: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
    a: np.uint64,
    b: np.uint64,
    first: np.uint64,
    n: np.uint64,
) -> None:
    """Project the row of threads ``first + k`` (``k`` below ``n``), from point ``a + k`` of
    ``top`` to point ``b + k`` of ``bottom``, once each: ``relax_rigid_distances`` on them, the
    same bits.

    ``top`` and ``bottom`` are the positions flattened (x, y), the same array given twice as two
    arguments of the function this is inlined into: as two arrays, numba's vectoriser tests once
    a row that the two runs do not overlap; as one array it cannot, and the loop stays scalar
    (4.9 ns a thread against 1.9). Inlined, not called: a call a row, with its arguments, took a
    fifth of the pass (2.02 ns a thread against 1.63). Indices unsigned and no slices: a signed
    index takes numba's test for a negative one (the vectoriser then sees no consecutive loads),
    and a slice takes a reference to its array (an atomic count).
    """
    one = np.uint64(1)
    for k in range(n):
        ta, tb, t = np.uint64(2) * (a + k), np.uint64(2) * (b + k), first + k
        top[ta], top[ta + one], bottom[tb], bottom[tb + one] = projected_ends(
            top[ta], top[ta + one], bottom[tb], bottom[tb + one], inv_mass[a + k], inv_mass[b + k],
            rest[t], alive[t],
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
