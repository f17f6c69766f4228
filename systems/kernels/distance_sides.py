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

Each side is cut once more where it meets the seam's points (the seam's
ends), so that a pass of one side need not wait for the whole seam before
it (``distance_loop``): side 0 into the threads before its first one that
touches a seam end, and the rest; side 1 into the threads up to its last
one that touches a seam end, and the rest. On the sheet, side 0's last two
rows and side 1's first two.

The cut depends only on the constraints' ends, never on positions (the
box solver's sides cut at the median box, which moves): so it is the same
in every run that reaches the same constraints, and is made again only
when their ends change (``sides_hold``).
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.distance_rows import shape_runs
from weft.systems.kernels.jit import INNER

PARALLEL_DISTANCES = 2000
"""Distance constraints from which a pass is relaxed in two sides at once (fewer: one thread, in
index order; the threads' start and join, about 2 µs a pass, cost more than half such a pass)."""

SEAM = 2
"""The seam's number beside the sides' (0 and 1)."""

SEAM_PART = 4
"""The seam's part of a cut (``PARTS``)."""
PARTS = 5
"""Parts of a cut, in order: side 0 before the seam's ends, side 0 from its first thread on a seam
end, side 1 up to its last thread on a seam end, side 1 after it, the seam. Side ``s``'s runs are
``runs[parts[2 s] : parts[2 s + 2]]``, the seam's ``runs[parts[4] : parts[5]]``."""


@numba.njit(cache=True)
def split_sides(
    i: npt.NDArray[np.uint32], j: npt.NDArray[np.uint32], split: int, runs: npt.NDArray[np.int64]
) -> tuple[int, npt.NDArray[np.int64]]:
    """Cut the constraints with ends ``i``, ``j`` at particle index ``split`` in two sides and a seam,
    each side in two parts at the seam's ends (``PARTS``).

    Writes the runs of consecutive constraint indices ``[first, last)`` and their shape into
    ``runs`` (at least ``(len(i), 3)``), part after part, each in index order, a part's rows of
    threads that share no point apart (``distance_rows.shape_runs``). Returns how many runs, and
    the ``PARTS + 1`` bounds of the parts' runs in ``runs``.
    """
    m = i.shape[0]
    side = np.empty(m, dtype=np.uint8)
    for c in range(m):
        low = min(i[c], j[c])
        high = max(i[c], j[c])
        side[c] = 0 if high < split else (1 if low >= split else SEAM)
    particles = 0
    for c in range(m):
        particles = max(particles, i[c] + 1, j[c] + 1)
    ends = np.zeros(particles, dtype=np.bool_)  # the seam's ends
    for c in range(m):
        if side[c] == SEAM:
            ends[i[c]] = ends[j[c]] = True
    first_meeting = m  # side 0's first thread on a seam end
    last_meeting = -1  # side 1's last
    for c in range(m):
        if side[c] != SEAM and (ends[i[c]] or ends[j[c]]):
            if side[c] == 0:
                first_meeting = min(first_meeting, c)
            else:
                last_meeting = c
    part_of = np.empty(m, dtype=np.uint8)
    for c in range(m):
        if side[c] == 0:
            part_of[c] = 0 if c < first_meeting else 1
        elif side[c] == 1:
            part_of[c] = 2 if c <= last_meeting else 3
        else:
            part_of[c] = SEAM_PART
    parts = np.zeros(PARTS + 1, dtype=np.int64)
    plain = np.empty((m, 2), dtype=np.int64)  # the parts' runs before their rows are found
    count = 0
    for part in range(PARTS):
        parts[part] = count
        for c in range(m):
            if part_of[c] != part:
                continue
            if count > parts[part] and plain[count - 1, 1] == c:
                plain[count - 1, 1] = c + 1
            else:
                plain[count, 0] = c
                plain[count, 1] = c + 1
                count += 1
    parts[PARTS] = count
    return shape_runs(i, j, plain[:count], parts, runs)


@numba.njit(cache=True, **INNER)
def mark_seam_ends(
    ends: npt.NDArray[np.bool_],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    seam: npt.NDArray[np.int64],
) -> None:
    """Set ``ends[k]`` (all False before) where particle ``k`` is an end of a constraint in the
    runs ``seam``."""
    for r in range(seam.shape[0]):
        for c in range(seam[r, 0], seam[r, 1]):
            ends[i[c]] = ends[j[c]] = True


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
