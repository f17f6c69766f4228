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
loses that order: the 5050-box pyramid sagged 38 px instead of 16, at two
passes a substep.)

A large scene is cut in two at its median box: the manifolds of each side
share no moving box with the other side's, so the two sides are solved on
two threads at once, and the manifolds that join them after both.

The packing is kept from step to step while the manifolds stay the same
(a resting stack keeps its contacts for many steps): ``plan_holds`` says
whether it still fits.
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.jit import INNER

LANES = 4
"""Manifolds per batch."""

PARTS = 3
"""The left side, the right side, and the seam between them."""
SEAM = 2

HEADER = 8
"""Integers at the head of a kept plan: ``CAPACITY``, ``BODIES``, ``MANIFOLDS``, ``BATCHES``, then the
``PARTS + 1`` bounds of the parts' batches from ``STARTS`` on."""
CAPACITY, BODIES, MANIFOLDS, BATCHES, STARTS = range(5)

SPLIT_FROM = 2000
"""Manifolds from which the two sides are solved on two threads at once (fewer: one part; starting
the threads costs more than they save)."""


@numba.njit(cache=True, **INNER)
def group_manifolds(
    c_a: npt.NDArray[np.int64],
    c_b: npt.NDArray[np.int64],
    walls: int,
    first_a: npt.NDArray[np.int64],
    first_b: npt.NDArray[np.int64],
    first: npt.NDArray[np.int64],
    points: npt.NDArray[np.int64],
) -> int:
    """The runs of consecutive points between the same two bodies, written into the four arrays
    (at least as long as ``c_a``): each run's bodies (a negative ``c_b``, a wall, becomes body
    ``walls``), its first point and its number of points (1 or 2). Returns how many runs."""
    j = -1
    for k in range(c_a.shape[0]):
        if k == 0 or c_a[k] != c_a[k - 1] or c_b[k] != c_b[k - 1]:
            j += 1
            first_a[j] = c_a[k]
            first_b[j] = c_b[k] if c_b[k] >= 0 else walls
            first[j] = k
            points[j] = 0
        points[j] += 1
    return j + 1


@numba.njit(cache=True, **INNER)
def median(xs: npt.NDArray[np.float64]) -> float:
    """The median of ``xs`` (the mean of the middle two for an even count, as ``np.median``; ``xs``
    is reordered). Quickselect (Hoare): numba's ``np.median`` took 1.2 s of a first start to compile."""
    n = xs.shape[0]
    if n == 0:
        return 0.0
    upper = _select(xs, n // 2)
    if n % 2:
        return upper
    lower = xs[0]
    for i in range(1, n // 2):  # the largest of the lower half, which the selection left below it
        lower = max(lower, xs[i])
    return (lower + upper) / 2


@numba.njit(cache=True, **INNER)
def _select(xs: npt.NDArray[np.float64], k: int) -> float:
    """The ``k``-th smallest of ``xs``, leaving every smaller one before index ``k``."""
    low = 0
    high = xs.shape[0] - 1
    while low < high:
        pivot = xs[(low + high) // 2]
        i = low
        j = high
        while i <= j:
            while xs[i] < pivot:
                i += 1
            while xs[j] > pivot:
                j -= 1
            if i <= j:
                xs[i], xs[j] = xs[j], xs[i]
                i += 1
                j -= 1
        if k <= j:
            high = j
        elif k >= i:
            low = i
        else:
            break
    return xs[k]


@numba.njit(cache=True, **INNER)
def split_sides(
    m_a: npt.NDArray[np.int64],
    m_b: npt.NDArray[np.int64],
    pos: npt.NDArray[np.float64],
    fixed: npt.NDArray[np.bool_],
    part: npt.NDArray[np.int64],
    xs: npt.NDArray[np.float64],
) -> None:
    """Each manifold's ``part``: 0 when its moving boxes lie left of the median moving box, 1 when
    right, ``SEAM`` when it joins the two sides (or, below ``SPLIT_FROM`` manifolds, 0 for all).
    ``xs`` is scratch as long as ``pos``."""
    count = m_a.shape[0]
    part[:] = 0
    if count < SPLIT_FROM:
        return
    moving = 0
    for i in range(pos.shape[0]):
        if not fixed[i]:
            xs[moving] = pos[i, 0]
            moving += 1
    middle = median(xs[:moving])
    for j in range(count):
        a = m_a[j]
        b = m_b[j]
        side_a = -1 if fixed[a] else (0 if pos[a, 0] < middle else 1)
        side_b = -1 if b >= pos.shape[0] or fixed[b] else (0 if pos[b, 0] < middle else 1)
        if side_a < 0:
            part[j] = side_b if side_b >= 0 else SEAM
        elif side_b < 0 or side_a == side_b:
            part[j] = side_a
        else:
            part[j] = SEAM


@numba.njit(cache=True, **INNER)
def pack_batches(
    m_a: npt.NDArray[np.int64],
    m_b: npt.NDArray[np.int64],
    fixed: npt.NDArray[np.bool_],
    part: npt.NDArray[np.int64],
    batch_of: npt.NDArray[np.int64],
    lane_of: npt.NDArray[np.int64],
    filled: npt.NDArray[np.int64],
    onward: npt.NDArray[np.int64],
    latest: npt.NDArray[np.int64],
) -> npt.NDArray[np.int64]:
    """Each manifold's ``batch_of`` and ``lane_of``; returns where each part's batches start
    (``PARTS + 1`` bounds). ``filled`` and ``onward`` are scratch one longer than ``m_a``,
    ``latest`` as long as ``fixed``.

    Each part is packed on its own, in turn. Within a part, a manifold
    goes to the first batch with a free lane that comes after every batch
    holding one of its moving bodies (``fixed`` bodies, such as the walls,
    take no impulse and may be in every lane). Two manifolds of a part that
    share a moving body so keep their order, and a pass over the part's
    batches gives exactly what a pass over its manifolds one by one would.
    """
    count = m_a.shape[0]
    filled[:] = 0
    for t in range(count + 1):
        onward[t] = t  # a batch, or one nearer the first batch with a free lane after it
    # latest: each body's last batch so far
    starts = np.zeros(PARTS + 1, dtype=np.int64)
    for this in range(PARTS):
        first = starts[this]
        latest[:] = first - 1
        end = first
        for j in range(count):
            if part[j] != this:
                continue
            a = m_a[j]
            b = m_b[j]
            t = max(first, -1 if fixed[a] else latest[a] + 1, -1 if fixed[b] else latest[b] + 1)
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
            end = max(end, free + 1)
        starts[this + 1] = end
    return starts


@numba.njit(cache=True, **INNER)
def body_key(body: int, fixed: npt.NDArray[np.bool_]) -> int:
    """A body and whether it is fixed, as one integer (a packing holds only for the same of both)."""
    return 2 * body + (1 if fixed[body] else 0)


@numba.njit(cache=True, **INNER)
def plan_holds(
    header: npt.NDArray[np.int64],
    key_a: npt.NDArray[np.int64],
    key_b: npt.NDArray[np.int64],
    capacity: int,
    bodies: int,
    m_a: npt.NDArray[np.int64],
    m_b: npt.NDArray[np.int64],
    fixed: npt.NDArray[np.bool_],
) -> bool:
    """Whether the packing kept in ``header`` and the manifolds' ``key_a``/``key_b`` (``body_key``)
    fits these manifolds: made at this ``capacity`` for as many ``bodies``, and the same manifolds in
    the same order between the same bodies, each as fixed or moving as then."""
    if header[CAPACITY] != capacity or header[BODIES] != bodies or header[MANIFOLDS] != m_a.shape[0]:
        return False
    for j in range(m_a.shape[0]):
        if key_a[j] != body_key(m_a[j], fixed) or key_b[j] != body_key(m_b[j], fixed):
            return False
    return True


@numba.njit(cache=True, **INNER)
def keep_plan(
    header: npt.NDArray[np.int64],
    key_a: npt.NDArray[np.int64],
    key_b: npt.NDArray[np.int64],
    capacity: int,
    bodies: int,
    m_a: npt.NDArray[np.int64],
    m_b: npt.NDArray[np.int64],
    fixed: npt.NDArray[np.bool_],
    starts: npt.NDArray[np.int64],
) -> None:
    """Record what a fresh packing was made for, so ``plan_holds`` can tell whether it still fits:
    the ``capacity``, the ``bodies``, the manifolds (their ``body_key``) and its parts' ``starts``."""
    header[CAPACITY] = capacity
    header[BODIES] = bodies
    header[MANIFOLDS] = m_a.shape[0]
    header[BATCHES] = starts[PARTS]
    for k in range(PARTS + 1):  # element by element: an array assigned to a slice compiles numba's
        header[STARTS + k] = starts[k]  # broadcasting and its error messages (1.6 s of a first start)
    for j in range(m_a.shape[0]):
        key_a[j] = body_key(m_a[j], fixed)
        key_b[j] = body_key(m_b[j], fixed)
