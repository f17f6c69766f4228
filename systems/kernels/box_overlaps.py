"""Counting the pairs of boxes that overlap where a level puts them: a grid of cells, then the
separating axis test.

Boxes placed inside each other (copies of a set at one place) push apart for
their first frames, and every such pair is a contact the solver works on: the
count is bounded at validation (``weft.budgets.BOX_OVERLAPS``), before any
store is built. Boxes are binned by their centres into cells as wide as the
largest box's bounding box, so two boxes whose bounding boxes overlap sit in
the same cell or neighbouring ones; the cells with boxes are kept in a hash
table, so a wide world of small boxes needs no array of every cell. Each
candidate pair then takes the exact test for two oriented rectangles: they
overlap when their projections overlap on each of the four edge normals (the
separating axis theorem, Gottschalk et al. 1996), ``|d·u| < ra(u) + rb(u)``
with ``r(u) = hx |x·u| + hy |y·u|`` for a box of half extents ``hx, hy`` and
axes ``x, y``.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.box_contacts import fibonacci_hash
from weft.systems.kernels.jit import INNER

TOUCH = 0.01
"""px a pair must overlap by on every axis to count: layouts set boxes edge to edge (a stack, a
pyramid without a gap), and those touch within rounding (1e-12 px), resting, not overlapping."""

MAX_SIDE = 1 << 20
"""Cells across (and down) at most: wider cells for a world of tiny boxes far apart, so that a cell's
key never overflows (their count is the boxes', whatever the side)."""

EMPTY = -(1 << 62)
"""The key of a free slot of the cells' table (a cell's key, or a neighbour's, is never so low)."""


@numba.njit(cache=True)
def count_box_overlaps(
    center: npt.NDArray[np.float64],
    angle: npt.NDArray[np.float64],
    half: npt.NDArray[np.float64],
    fixed: npt.NDArray[np.bool_],
    later: npt.NDArray[np.int64],
) -> int:
    """How many pairs of the boxes at ``center`` ``(n, 2)`` px, turned by ``angle`` ``(n,)`` rad, of
    half extents ``half`` ``(n, 2)`` px overlap by more than ``TOUCH``; pairs of two ``fixed`` boxes
    (which never act on each other) are left out. ``later`` ``(n,)`` is filled with the pairs each
    box makes with the boxes before it (a set's share is the sum over its rows)."""
    n = center.shape[0]
    later[:] = 0
    if n < 2:
        return 0
    reach_x = np.empty(n)
    reach_y = np.empty(n)
    widest = 0.0
    left, bottom = center[0, 0], center[0, 1]
    right, top = left, bottom
    for i in range(n):
        c = abs(math.cos(angle[i]))
        s = abs(math.sin(angle[i]))
        reach_x[i] = c * half[i, 0] + s * half[i, 1]
        reach_y[i] = s * half[i, 0] + c * half[i, 1]
        widest = max(widest, reach_x[i], reach_y[i])
        left, right = min(left, center[i, 0]), max(right, center[i, 0])
        bottom, top = min(bottom, center[i, 1]), max(top, center[i, 1])
    span = max(right - left, top - bottom)
    cell = max(2.0 * widest, span / MAX_SIDE, 1e-9)
    cols = np.int64(span / cell) + 3  # unused columns past the last: a neighbour never wraps to another row
    key = np.empty(n, dtype=np.int64)
    for i in range(n):
        key[i] = np.int64((center[i, 1] - bottom) / cell) * cols + np.int64((center[i, 0] - left) / cell)
    # each cell's boxes as a list through ``next_box``, its first found in an open-addressed table
    size = 2
    while size < 2 * n:  # a power of two, at least twice the cells
        size *= 2
    cell_key = np.full(size, EMPTY, dtype=np.int64)
    first = np.full(size, -1, dtype=np.int64)
    next_box = np.empty(n, dtype=np.int64)
    for i in range(n):
        slot = _slot(cell_key, key[i])
        cell_key[slot] = key[i]
        next_box[i] = first[slot]
        first[slot] = i
    total = 0
    for i in range(n):
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                j = first[_slot(cell_key, key[i] + dy * cols + dx)]  # -1: no box in that cell
                while j >= 0:
                    # each pair once, from its lower index
                    if (
                        j > i
                        and not (fixed[i] and fixed[j])
                        and boxes_overlap(center, angle, half, reach_x, reach_y, i, j)
                    ):
                        total += 1
                        later[j] += 1
                    j = next_box[j]
    return total


@numba.njit(cache=True, **INNER)
def _slot(cell_key: npt.NDArray[np.int64], key: int) -> int:
    """Where cell ``key`` is in the table ``cell_key`` (of a power-of-two size), or the free slot it
    would take: linear probing from its ``fibonacci_hash``. The keys sorted instead (``np.argsort``,
    then ``np.searchsorted`` for a neighbour) made the count 2.4 s longer to compile, in the first
    start of a level of many boxes."""
    mask = cell_key.shape[0] - 1
    slot = fibonacci_hash(key) & mask
    while cell_key[slot] != EMPTY and cell_key[slot] != key:
        slot = (slot + 1) & mask
    return slot


@numba.njit(cache=True, **INNER)
def boxes_overlap(
    center: npt.NDArray[np.float64],
    angle: npt.NDArray[np.float64],
    half: npt.NDArray[np.float64],
    reach_x: npt.NDArray[np.float64],
    reach_y: npt.NDArray[np.float64],
    i: int,
    j: int,
) -> bool:
    """Whether boxes ``i`` and ``j`` overlap by more than ``TOUCH`` on each of their four edge normals
    (their bounding boxes, half widths ``reach_x`` and heights ``reach_y``, first: most pairs fail there)."""
    dx = center[j, 0] - center[i, 0]
    dy = center[j, 1] - center[i, 1]
    if abs(dx) >= reach_x[i] + reach_x[j] - TOUCH or abs(dy) >= reach_y[i] + reach_y[j] - TOUCH:
        return False
    ci, si = math.cos(angle[i]), math.sin(angle[i])
    cj, sj = math.cos(angle[j]), math.sin(angle[j])
    axes = ((ci, si), (-si, ci), (cj, sj), (-sj, cj))
    for ux, uy in axes:
        ri = half[i, 0] * abs(ci * ux + si * uy) + half[i, 1] * abs(-si * ux + ci * uy)
        rj = half[j, 0] * abs(cj * ux + sj * uy) + half[j, 1] * abs(-sj * ux + cj * uy)
        if abs(dx * ux + dy * uy) >= ri + rj - TOUCH:
            return False
    return True
