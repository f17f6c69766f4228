"""The box solver's working memory: every array ``solve_boxes`` works in, carved by name from four kept
buffers.

Arrays made fresh each call cost a page fault per 4 kB touched (4 ms a
frame for 5050 boxes), so the caller keeps four buffers from call to call,
``work_sizes`` and ``plan_sizes`` long, and the ``carve_*`` functions cut
them into views. Each view's length per unit is one constant below, read
by the sizes and by the carving alike.

- **Work floats**, per body (the ``n`` boxes, the walls as body ``n``, and
  body ``n + 1``, which never moves, for empty lanes).
- **Work ints**, per contact point (a manifold has one or two), plus the
  packing's scratch.
- **The plan**, per manifold it has room for (its ``capacity``; there are
  at most as many batches as manifolds): the packing, kept while the
  manifolds stay the same (``box_batches.plan_holds``), and each batch's
  constants, impulses and gaps.
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.box_batches import HEADER, LANES
from weft.systems.kernels.box_points import FIELDS
from weft.systems.kernels.jit import INNER

BODY, INVERSE, DELTA, SCRATCH_X = 3, 2, 4, 1
"""Work floats per body: its velocity ``(vx, vy, ω)``, inverse mass and inertia, its move so far
``(dx, dy, cos, sin)`` of its turn, and a scratch x (``split_sides``' median)."""
PER_BODY = BODY + INVERSE + DELTA + SCRATCH_X

M_A, M_B, M_FIRST, M_POINTS, PART, FILLED, ONWARD, SLOT, LATEST = 1, 1, 1, 1, 1, 1, 1, 3, 1
"""Work ints: per contact point (as many manifolds at most) a manifold's two bodies, first point,
point count and part (``split_sides``), the packing's two counters (``pack_batches``; one more of
each), and each point's slot (batch, point, lane); per body the packing's latest batch."""
PER_POINT = M_A + M_B + M_FIRST + M_POINTS + PART + FILLED + ONWARD + SLOT

KEY_A, KEY_B, BATCH_OF, LANE_OF, LANE_A, LANE_B, PASSES, MOST = 1, 1, 1, 1, LANES, LANES, LANES, 1
"""Plan ints per manifold, after the ``HEADER``: each manifold's two ``body_key`` (what the packing
was made for), batch and lane; then per batch its lanes' bodies and passes owed, and its most passes."""
PLAN_INTS = KEY_A + KEY_B + BATCH_OF + LANE_OF + LANE_A + LANE_B + PASSES + MOST

MU, SOFT, CONSTANTS, IMPULSE, GAP = LANES, 2 * LANES, 2 * FIELDS * LANES, 2 * 2 * LANES, 2 * LANES
BOUNCE, APPROACH, PEAK = LANES, 2 * LANES, 2 * LANES
"""Plan floats per batch: its lanes' friction and softness (bias rate, compliance), its points'
constants (``box_points.FIELDS``), normal and tangent impulses and gaps; its lanes'
restitution, and its points' speeds at impact and largest impulses (``apply_restitution``)."""
PLAN_FLOATS = MU + SOFT + CONSTANTS + IMPULSE + GAP + BOUNCE + APPROACH + PEAK


@numba.njit(cache=True)
def work_sizes(n: int, m: int) -> tuple[int, int]:
    """Work floats and ints ``solve_boxes`` needs for ``n`` boxes and ``m`` contact points."""
    return PER_BODY * (n + 2), PER_POINT * m + FILLED + ONWARD + LATEST * (n + 2)


@numba.njit(cache=True)
def plan_sizes(m: int) -> tuple[int, int]:
    """Floats and ints of a kept plan with room for ``m`` manifolds."""
    return PLAN_FLOATS * m, HEADER + PLAN_INTS * m


@numba.njit(cache=True, **INNER)
def plan_capacity(plan_floats: npt.NDArray[np.float64], plan_ints: npt.NDArray[np.int64]) -> int:
    """How many manifolds (and batches) the plan buffers have room for."""
    return min(plan_floats.shape[0] // PLAN_FLOATS, max(0, plan_ints.shape[0] - HEADER) // PLAN_INTS)


@numba.njit(cache=True, inline="always", **INNER)
def _cut(memory: npt.NDArray, at: int, length: int) -> tuple[npt.NDArray, int]:
    """``memory[at : at + length]`` and where the next view starts."""
    return memory[at : at + length], at + length


@numba.njit(cache=True, **INNER)
def carve_bodies(work_floats: npt.NDArray[np.float64], n: int) -> tuple[npt.NDArray[np.float64], ...]:
    """``(body (n + 2, 3), inverse (n + 2, 2), delta (n + 2, 4), scratch_x (n + 2,))``."""
    rows = n + 2
    body, at = _cut(work_floats, 0, BODY * rows)
    inverse, at = _cut(work_floats, at, INVERSE * rows)
    delta, at = _cut(work_floats, at, DELTA * rows)
    scratch_x, at = _cut(work_floats, at, SCRATCH_X * rows)
    return (
        body.reshape((rows, BODY)),
        inverse.reshape((rows, INVERSE)),
        delta.reshape((rows, DELTA)),
        scratch_x,
    )


@numba.njit(cache=True, **INNER)
def carve_manifolds(work_ints: npt.NDArray[np.int64], n: int, m: int) -> tuple[npt.NDArray[np.int64], ...]:
    """``(m_a, m_b, m_first, m_points, part, filled, onward, latest, slot)``: per manifold (``m``
    long) its bodies, first point, point count and part; the packing's scratch (``m + 1``,
    ``m + 1``, ``n + 2``); each point's ``(batch, point, lane)`` ``(m, 3)``."""
    m_a, at = _cut(work_ints, 0, M_A * m)
    m_b, at = _cut(work_ints, at, M_B * m)
    m_first, at = _cut(work_ints, at, M_FIRST * m)
    m_points, at = _cut(work_ints, at, M_POINTS * m)
    part, at = _cut(work_ints, at, PART * m)
    filled, at = _cut(work_ints, at, FILLED * (m + 1))
    onward, at = _cut(work_ints, at, ONWARD * (m + 1))
    latest, at = _cut(work_ints, at, LATEST * (n + 2))
    slot, at = _cut(work_ints, at, SLOT * m)
    return m_a, m_b, m_first, m_points, part, filled, onward, latest, slot.reshape((m, SLOT))


@numba.njit(cache=True, **INNER)
def carve_plan(plan_ints: npt.NDArray[np.int64], capacity: int) -> tuple[npt.NDArray[np.int64], ...]:
    """``(header, key_a, key_b, batch_of, lane_of)``: the packing kept, ``capacity`` manifolds long."""
    header, at = _cut(plan_ints, 0, HEADER)
    key_a, at = _cut(plan_ints, at, KEY_A * capacity)
    key_b, at = _cut(plan_ints, at, KEY_B * capacity)
    batch_of, at = _cut(plan_ints, at, BATCH_OF * capacity)
    lane_of, at = _cut(plan_ints, at, LANE_OF * capacity)
    return header, key_a, key_b, batch_of, lane_of


@numba.njit(cache=True, inline="always", **INNER)
def _batch_view(
    memory: npt.NDArray, at: int, per_batch: int, capacity: int, batches: int
) -> tuple[npt.NDArray, int]:
    """The first ``batches`` rows of a view with room for ``capacity`` rows of ``per_batch``, and where
    the next view starts."""
    return memory[at : at + per_batch * batches], at + per_batch * capacity


@numba.njit(cache=True, **INNER)
def carve_batches(
    plan_floats: npt.NDArray[np.float64], plan_ints: npt.NDArray[np.int64], capacity: int, batches: int
) -> tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
]:
    """``(lane_a, lane_b, passes, most, mu, soft, con, impulse, gap, bounce, approach, peak)`` of the
    first ``batches`` batches: the lanes' bodies and passes ``(batches, LANES)``, each batch's most
    passes, the lanes' friction ``(batches, LANES)`` and softness ``(batches, 2, LANES)``, the points'
    constants ``(batches, 2, FIELDS, LANES)``, impulses ``(batches, 2, 2, LANES)`` and gaps
    ``(batches, 2, LANES)``, the lanes' restitution, the points' speeds at impact and peaks."""
    c, b = capacity, batches
    at = HEADER + (KEY_A + KEY_B + BATCH_OF + LANE_OF) * c
    lane_a, at = _batch_view(plan_ints, at, LANE_A, c, b)
    lane_b, at = _batch_view(plan_ints, at, LANE_B, c, b)
    passes, at = _batch_view(plan_ints, at, PASSES, c, b)
    most, at = _batch_view(plan_ints, at, MOST, c, b)
    mu, at = _batch_view(plan_floats, 0, MU, c, b)
    soft, at = _batch_view(plan_floats, at, SOFT, c, b)
    con, at = _batch_view(plan_floats, at, CONSTANTS, c, b)
    impulse, at = _batch_view(plan_floats, at, IMPULSE, c, b)
    gap, at = _batch_view(plan_floats, at, GAP, c, b)
    bounce, at = _batch_view(plan_floats, at, BOUNCE, c, b)
    approach, at = _batch_view(plan_floats, at, APPROACH, c, b)
    peak, at = _batch_view(plan_floats, at, PEAK, c, b)
    return (
        lane_a.reshape((b, LANES)),
        lane_b.reshape((b, LANES)),
        passes.reshape((b, LANES)),
        most,
        mu.reshape((b, LANES)),
        soft.reshape((b, 2, LANES)),
        con.reshape((b, 2, FIELDS, LANES)),
        impulse.reshape((b, 2, 2, LANES)),
        gap.reshape((b, 2, LANES)),
        bounce.reshape((b, LANES)),
        approach.reshape((b, 2, LANES)),
        peak.reshape((b, 2, LANES)),
    )
