"""Contact points grouped into manifolds, and manifolds packed into batches the solver runs side by side.

A Gauss-Seidel pass over contacts one at a time is bound by latency: each
contact waits for the velocities the one before it wrote, often of the same
box. A batch holds ``LANES`` manifolds that share no movable box, so the
solver can work on all of them at once (four independent chains of
arithmetic instead of one) and still give the same answer as solving them
one after the other.

Batches are filled in the order the manifolds come (the walls first, then
the pairs up the grid), and two manifolds that share a moving box stay in
that order, so a pass gives the very numbers a pass one manifold at a time
would: a floor's push still travels up a stack within one pass. (Graph
colouring, which sorts all manifolds into a few large independent sets,
loses that order: the 5050-box pyramid sagged 38 px instead of 16.)
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

LANES = 4
"""Manifolds per batch."""


@numba.njit(cache=True)
def group_manifolds(
    c_a: npt.NDArray[np.int64], c_b: npt.NDArray[np.int64], walls: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The runs of consecutive points between the same two bodies: each run's bodies (a negative
    ``c_b``, a wall, becomes body ``walls``), its first point and its number of points (1 or 2)."""
    m = c_a.shape[0]
    count = 0
    for k in range(m):
        if k == 0 or c_a[k] != c_a[k - 1] or c_b[k] != c_b[k - 1]:
            count += 1
    first_a = np.empty(count, dtype=np.int64)
    first_b = np.empty(count, dtype=np.int64)
    first = np.empty(count, dtype=np.int64)
    points = np.zeros(count, dtype=np.int64)
    j = -1
    for k in range(m):
        if k == 0 or c_a[k] != c_a[k - 1] or c_b[k] != c_b[k - 1]:
            j += 1
            first_a[j] = c_a[k]
            first_b[j] = c_b[k] if c_b[k] >= 0 else walls
            first[j] = k
        points[j] += 1
    return first_a, first_b, first, points


@numba.njit(cache=True)
def pack_batches(
    m_a: npt.NDArray[np.int64], m_b: npt.NDArray[np.int64], fixed: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int]:
    """Each manifold's batch and lane, and the number of batches.

    A manifold goes to the first batch with a free lane that comes after
    every batch holding one of its moving bodies (``fixed`` bodies, such as
    the walls, take no impulse and may be in every lane). Two manifolds
    that share a moving body so keep their order, and a pass over the
    batches gives exactly what a pass over the manifolds one by one would.
    """
    count = m_a.shape[0]
    batch_of = np.empty(count, dtype=np.int64)
    lane_of = np.empty(count, dtype=np.int64)
    filled = np.zeros(count + 1, dtype=np.int64)
    onward = np.arange(count + 1)  # a batch, or one nearer the first batch with a free lane after it
    latest = np.full(fixed.shape[0], -1, dtype=np.int64)  # each body's last batch so far
    batches = 0
    for j in range(count):
        a = m_a[j]
        b = m_b[j]
        t = max(-1 if fixed[a] else latest[a], -1 if fixed[b] else latest[b]) + 1
        # follow the links to the first batch with room, then point every batch passed straight at it
        free = t
        while onward[free] != free:
            free = onward[free]
        while onward[t] != free:
            onward[t], t = free, onward[t]
        batch_of[j] = free
        lane_of[j] = filled[free]
        filled[free] += 1
        if filled[free] == LANES:
            onward[free] = free + 1
        latest[a] = free
        latest[b] = free
        batches = max(batches, free + 1)
    return batch_of, lane_of, batches
