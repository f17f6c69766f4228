"""The distance constraints cut into two sides that share no particle, and the seam between them.

A particle index, the ``split``, cuts the particles in two: a constraint
with both ends below it is on side 0, with both at or above it on side 1,
and one that joins the two is on the seam. The two sides are relaxed at
once on two threads, then the seam (``distance.relax_sides``).

A body's particles are consecutive and its constraints join near
neighbours (a sheet is built row by row, a rope end to end), so a cut by
index runs between two rows of a sheet, or between two bodies, and the
seam is short: the 80 verticals between rows 24 and 25 of the 80 × 50
sheet, 1% of its threads. The split is the index that balances the two
sides' counts. Each side keeps its constraints in index order, as runs of
consecutive indices (one run per side for that sheet): a pass still
carries the pins' hold down the sheet row by row, and the kernels loop
over plain ranges with no index list to load.

The cut depends only on the constraints' ends and the particle count,
never on positions or on the particle count (the box solver's sides cut at
the median box, which moves): so it is the same in every run that reaches
the same constraints, and is made again only when their ends change
(``sides_hold``).
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

PARALLEL_DISTANCES = 2000
"""Distance constraints from which a pass is relaxed in two sides at once (fewer: one thread, in
index order; the threads' start and join, about 2 µs a pass, cost more than half such a pass)."""

SEAM = 2
"""The part of the constraints that join the two sides (0 and 1 are the sides)."""


@numba.njit(cache=True)
def split_sides(
    i: npt.NDArray[np.uint32], j: npt.NDArray[np.uint32], split: int, runs: npt.NDArray[np.int64]
) -> tuple[int, npt.NDArray[np.int64]]:
    """Cut the constraints with ends ``i``, ``j`` at particle index ``split`` in two sides and a seam.

    Writes the runs of consecutive constraint indices ``[first, last)`` into ``runs`` (at least
    ``(len(i), 2)``): side 0's first, then side 1's, then the seam's, each part in index order.
    Returns how many runs, and the 4 bounds of the parts' runs in ``runs``.
    """
    parts = np.zeros(SEAM + 2, dtype=np.int64)
    count = 0
    for part in range(SEAM + 1):
        parts[part] = count
        for c in range(i.shape[0]):
            low = min(i[c], j[c])
            high = max(i[c], j[c])
            side = 0 if high < split else (1 if low >= split else SEAM)
            if side != part:
                continue
            if count > parts[part] and runs[count - 1, 1] == c:
                runs[count - 1, 1] = c + 1
            else:
                runs[count, 0] = c
                runs[count, 1] = c + 1
                count += 1
    parts[SEAM + 1] = count
    return count, parts


@numba.njit(cache=True)
def balanced_split(i: npt.NDArray[np.uint32], j: npt.NDArray[np.uint32]) -> int:
    """The particle index whose cut leaves the two sides' counts of constraints closest (the lowest
    such): side 0 holds those with both ends below it, side 1 those with both at or above it."""
    m = i.shape[0]
    particles = 0
    for c in range(m):
        particles = max(particles, i[c] + 1, j[c] + 1)
    highest = np.zeros(particles + 1, dtype=np.int64)  # constraints whose higher end is each index
    lowest = np.zeros(particles + 1, dtype=np.int64)  # and whose lower end is
    for c in range(m):
        highest[max(i[c], j[c])] += 1
        lowest[min(i[c], j[c])] += 1
    below = 0  # constraints wholly below the split
    from_split = m  # constraints wholly at or above it
    best = 0
    best_gap = m
    for split in range(particles + 1):
        gap = abs(below - from_split)
        if gap < best_gap:
            best, best_gap = split, gap
        if split < particles:
            below += highest[split]
            from_split -= lowest[split]
    return best


@numba.njit(cache=True)
def sides_hold(
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    cut_i: npt.NDArray[np.uint32],
    cut_j: npt.NDArray[np.uint32],
) -> bool:
    """Whether a cut made for the constraint ends ``cut_i``, ``cut_j`` still fits ends ``i``, ``j``:
    the same constraints between the same particles (a body removed renumbers them)."""
    if i.shape[0] != cut_i.shape[0]:
        return False
    same = True
    for c in range(i.shape[0]):
        same &= (i[c] == cut_i[c]) & (j[c] == cut_j[c])
    return same
