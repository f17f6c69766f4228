"""Sequential impulses over box contacts: the soft step, or plain impulses with a chosen correction.

One call advances the boxes by ``dt`` in ``substeps`` substeps (Box2D v3's
solver stages; each stage's kernels are in ``box_contact_solver``,
``box_integrate`` and ``box_mouse``). Each substep: gravity, warm start
(apply the impulses the points already carry), ``iterations`` solver
passes, positions, then (soft step) one relax pass without bias, or (split
impulse) one position pass; restitution once after the last.

Every point's accumulated normal impulse is clamped at zero and its
friction impulse at ``μ`` times it (Catto, Box2D-lite). Contact anchors are
fixed for the whole call; after each move the gaps are measured again from
how far the two bodies moved and turned since the call began (Box2D v3), so
the contacts are found only once per call.

Corrections (``correction``):

- ``SOFT``: the contact is a stiff, heavily damped spring (``contact_hertz``,
  ``damping_ratio``; twice as stiff against walls and fixed boxes, stiffer
  between boxes of very different mass, ``FREE_RATIO``) pushing out at most
  ``push_speed``; the relax passes then take the push back out of the
  velocities, so it moves without launching (Box2D v3's soft step).
- ``BAUMGARTE``: a velocity bias ``percent / dt · (s + slop)`` when ``s < -slop``, at most
  ``push_speed``: ``percent`` of the overlap a frame however many substeps (as a share of each
  substep's, it grew with them and launched a box sunk 10 px out of the world), and no faster than
  a box can come back from without flying off.
- ``SPLIT``: no bias; after the positions, each overlap beyond the slop is
  moved apart by a share of it, shared by inverse mass, velocities untouched:
  ``percent`` of it a frame, over the substeps.
- ``NONE``: no correction: what sinks in stays in.

Points still apart (``s > 0``, speculative) may close the gap in one
substep and no more, under every correction.

Inside a call the walls are one more body, index ``n``: it never moves
under impulses, only translates at the walls' velocity; index ``n + 1`` is
a body that never moves at all, for the empty lanes of a batch.

A pass runs over batches of ``LANES`` manifolds that share no moving box
(``box_batches``): each batch's four lanes are four independent chains of
arithmetic the core runs side by side, where one contact at a time waits
for the last one's result. Within a lane, a manifold's two normal impulses
are solved together (``box_contact_solver``), then each point's friction.
Large scenes are cut into two sides that share no moving box; their
batches run on two threads, then the seam's (``split_sides``).
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.box_batches import (
    BATCHES,
    BODIES,
    CAPACITY,
    HEADER,
    LANES,
    MANIFOLDS,
    PARTS,
    STARTS,
    body_key,
    group_manifolds,
    pack_batches,
    plan_holds,
    split_sides,
)
from weft.systems.kernels.box_contact_solver import (
    BAUMGARTE,
    FIELDS,
    SOFT,
    SPLIT,
    apply_restitution,
    measure_gaps,
    prepare_manifold,
    prepare_restitution,
    push_apart,
    solve_pass,
    track_impacts,
    track_peaks,
    two_sides,
    warm_start,
)
from weft.systems.kernels.box_integrate import MAX_TURN, integrate_box
from weft.systems.kernels.box_mouse import pull_mouse_spring

ONLY_PRANGE = {
    "comprehension": False,
    "setitem": False,
    "inplace_binop": False,
    "reduction": False,
    "numpy": False,
    "stencil": False,
    "fusion": False,
    "prange": True,
}
"""Numba's parallel options for the step: only the loops written as ``prange`` run on threads (and only
in large scenes), so a small scene never pays for starting them."""


@numba.njit(cache=True)
def work_sizes(n: int, m: int) -> tuple[int, int]:
    """Floats and integers ``step_boxes`` works in, for ``n`` boxes and ``m`` contact points."""
    return 10 * (n + 2), 10 * m + 4 + n


PLAN_INTS = 4 + 3 * LANES + 1
PLAN_FLOATS = LANES + 2 * LANES + 2 * FIELDS * LANES + 4 * LANES + 2 * LANES + LANES + 4 * LANES
"""Integers and floats a kept plan takes per manifold it has room for (each also sizes a batch:
there are at most as many batches as manifolds). Integers: each manifold's two ``body_key``, batch
and lane; each batch's lanes' bodies and passes; each batch's most passes. Floats: each batch's
lanes' friction and softness, their points' constants, impulses and gaps, then the lanes'
restitution and their points' speeds at impact and largest impulses (``apply_restitution``)."""


@numba.njit(cache=True)
def plan_sizes(m: int) -> tuple[int, int]:
    """Floats and integers of a kept plan with room for ``m`` manifolds (at most one per point)."""
    return PLAN_FLOATS * m, HEADER + PLAN_INTS * m


@numba.njit(cache=True)
def plan_capacity(plan_floats: npt.NDArray[np.float64], plan_ints: npt.NDArray[np.int64]) -> int:
    """How many manifolds (and batches) the plan arrays have room for."""
    return min(plan_floats.shape[0] // PLAN_FLOATS, max(0, plan_ints.shape[0] - HEADER) // PLAN_INTS)


@numba.njit(cache=True, parallel=ONLY_PRANGE)
def step_boxes(
    pos: npt.NDArray[np.float64],
    angle: npt.NDArray[np.float64],
    vel: npt.NDArray[np.float64],
    omega: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    inv_inertia: npt.NDArray[np.float64],
    friction: npt.NDArray[np.float64],
    restitution: npt.NDArray[np.float64],
    body_iterations: npt.NDArray[np.int64],
    moving: npt.NDArray[np.bool_],
    c_a: npt.NDArray[np.int64],
    c_b: npt.NDArray[np.int64],
    c_point: npt.NDArray[np.float64],
    c_normal: npt.NDArray[np.float64],
    c_separation: npt.NDArray[np.float64],
    c_normal_impulse: npt.NDArray[np.float64],
    c_tangent_impulse: npt.NDArray[np.float64],
    c_gap: npt.NDArray[np.float64],
    work_floats: npt.NDArray[np.float64],
    work_ints: npt.NDArray[np.int64],
    plan_floats: npt.NDArray[np.float64],
    plan_ints: npt.NDArray[np.int64],
    spring: npt.NDArray[np.float64],
    spring_body: int,
    gravity_x: float,
    gravity_y: float,
    wall_vx: float,
    wall_vy: float,
    dt: float,
    substeps: int,
    iterations: int,
    correction: int,
    slop: float,
    percent: float,
    contact_hertz: float,
    damping_ratio: float,
    push_speed: float,
) -> None:
    """Advance every ``moving`` box by ``dt`` through the given contacts (see the module docstring).

    Contacts are rows ``[0, len(c_a))``, the points of one pair next to
    each other; a negative ``c_b`` is a wall. Their impulses come in warm
    (or zero) and go out as the step ended them; ``c_gap`` gets each point's
    gap at the end. ``work_floats`` and ``work_ints`` are the solver's
    working memory, at least ``work_sizes(n, m)`` long: kept from call to
    call, where fresh arrays each call cost a page fault per 4 kB touched
    (4 ms a frame for 5050 boxes). ``plan_floats`` and ``plan_ints``, at
    least ``plan_sizes(m)`` long, keep the batches from call to call: while
    the manifolds stay the same, they are not packed again (fresh arrays:
    they are).
    ``spring`` holds the mouse spring ``[anchor_x, anchor_y (body frame),
    target_x, target_y, hertz, damping ratio, max force, impulse_x,
    impulse_y]``, used when ``spring_body >= 0``; its impulse carries over.
    """
    n = pos.shape[0]
    h = dt / substeps
    m = c_a.shape[0]
    float_count, int_count = work_sizes(n, m)
    capacity = plan_capacity(plan_floats, plan_ints)
    if work_floats.shape[0] < float_count or work_ints.shape[0] < int_count or capacity < m:
        raise ValueError("step_boxes: the work or plan arrays are shorter than work_sizes and plan_sizes ask")
    # the bodies, the walls as body n, and body n + 1 for empty lanes
    body = work_floats[: 3 * (n + 2)].reshape((n + 2, 3))
    inverse = work_floats[3 * (n + 2) : 5 * (n + 2)].reshape((n + 2, 2))
    delta = work_floats[5 * (n + 2) : 9 * (n + 2)].reshape((n + 2, 4))
    xs = work_floats[9 * (n + 2) : 10 * (n + 2)]
    body[:] = 0.0
    inverse[:] = 0.0
    for i in range(n):
        if moving[i]:
            body[i, 0] = vel[i, 0]
            body[i, 1] = vel[i, 1]
            body[i, 2] = omega[i]
            inverse[i, 0] = inv_mass[i]
            inverse[i, 1] = inv_inertia[i]
    body[n, 0] = wall_vx
    body[n, 1] = wall_vy
    fixed = np.empty(n + 2, dtype=np.bool_)
    for i in range(n + 2):
        fixed[i] = inverse[i, 0] == 0.0 and inverse[i, 1] == 0.0

    # manifolds into batches (the last step's packing while it fits); each point into its batch
    m_a = work_ints[0:m]
    m_b = work_ints[m : 2 * m]
    m_first = work_ints[2 * m : 3 * m]
    m_points = work_ints[3 * m : 4 * m]
    manifolds = group_manifolds(c_a, c_b, n, m_a, m_b, m_first, m_points)
    m_a = m_a[:manifolds]
    m_b = m_b[:manifolds]
    slot = work_ints[7 * m + 4 + n : 10 * m + 4 + n].reshape((m, 3))  # each point's batch, point and lane
    c = capacity
    header = plan_ints[:HEADER]
    key_a = plan_ints[HEADER : HEADER + c]
    key_b = plan_ints[HEADER + c : HEADER + 2 * c]
    batch_of = plan_ints[HEADER + 2 * c : HEADER + 3 * c]
    lane_of = plan_ints[HEADER + 3 * c : HEADER + 4 * c]
    kept = plan_holds(header, key_a, key_b, c, n, m_a, m_b, fixed)
    if not kept:
        part = work_ints[4 * m : 4 * m + manifolds]
        split_sides(m_a, m_b, pos, fixed, part, xs)
        packed = pack_batches(
            m_a,
            m_b,
            fixed,
            part,
            batch_of,
            lane_of,
            work_ints[5 * m : 6 * m + 1],
            work_ints[6 * m + 1 : 7 * m + 2],
            work_ints[7 * m + 2 : 7 * m + 4 + n],
        )
        header[CAPACITY] = c
        header[BODIES] = n
        header[MANIFOLDS] = manifolds
        header[BATCHES] = packed[-1]
        header[STARTS : STARTS + PARTS + 1] = packed
        for j in range(manifolds):
            key_a[j] = body_key(m_a[j], fixed)
            key_b[j] = body_key(m_b[j], fixed)
    starts = header[STARTS : STARTS + PARTS + 1]
    batches = header[BATCHES]
    at = HEADER + 4 * c
    lane_a = plan_ints[at : at + LANES * batches].reshape((batches, LANES))
    lane_b = plan_ints[at + LANES * c : at + LANES * (c + batches)].reshape((batches, LANES))
    passes = plan_ints[at + 2 * LANES * c : at + LANES * (2 * c + batches)].reshape((batches, LANES))
    most = plan_ints[at + 3 * LANES * c : at + 3 * LANES * c + batches]
    mu = plan_floats[: LANES * batches].reshape((batches, LANES))
    at = LANES * c
    soft = plan_floats[at : at + 2 * LANES * batches].reshape((batches, 2, LANES))
    at += 2 * LANES * c
    con = plan_floats[at : at + 2 * FIELDS * LANES * batches].reshape((batches, 2, FIELDS, LANES))
    at += 2 * FIELDS * LANES * c
    impulse = plan_floats[at : at + 4 * LANES * batches].reshape((batches, 2, 2, LANES))
    at += 4 * LANES * c
    gap = plan_floats[at : at + 2 * LANES * batches].reshape((batches, 2, LANES))
    at += 2 * LANES * c
    bounce = plan_floats[at : at + LANES * batches].reshape((batches, LANES))
    at += LANES * c
    approach = plan_floats[at : at + 2 * LANES * batches].reshape((batches, 2, LANES))
    at += 2 * LANES * c
    peak = plan_floats[at : at + 2 * LANES * batches].reshape((batches, 2, LANES))
    if not kept:
        # every lane empty until filled: the body that never moves, nothing owed, no constants
        lane_a[:] = n + 1
        lane_b[:] = n + 1
        passes[:] = 0
        soft[:] = 0.0  # no bias, no give: rigid (and unused: their points are empty)
        mu[:] = 0.0
        con[:] = 0.0
        impulse[:] = 0.0
    if two_sides(starts):
        for j in numba.prange(manifolds):
            prepare_manifold(
                j, n, iterations, contact_hertz, damping_ratio, h, pos, friction, body_iterations, inverse,
                c_point, c_normal, c_separation, c_normal_impulse, c_tangent_impulse, m_a, m_b, m_first,
                m_points, batch_of, lane_of, lane_a, lane_b, passes, mu, soft, con, impulse, slot
            )  # fmt: skip
    else:
        for j in range(manifolds):
            prepare_manifold(
                j, n, iterations, contact_hertz, damping_ratio, h, pos, friction, body_iterations, inverse,
                c_point, c_normal, c_separation, c_normal_impulse, c_tangent_impulse, m_a, m_b, m_first,
                m_points, batch_of, lane_of, lane_a, lane_b, passes, mu, soft, con, impulse, slot
            )  # fmt: skip
    batch = (lane_a, lane_b, passes, most, mu, soft, con, impulse)
    bouncy = False
    for i in range(n):
        bouncy = bouncy or (moving[i] and restitution[i] > 0.0)
    if bouncy:
        prepare_restitution(restitution, n, m_a, m_b, batch_of, lane_of, bounce, approach, peak)
    longest = iterations
    for t in range(batches):
        most[t] = 0
        for lane in range(LANES):
            most[t] = max(most[t], passes[t, lane])
        longest = max(longest, most[t])

    delta[:] = 0.0  # each body's move, and the cosine and sine of its turn, so far
    delta[:, 2] = 1.0
    # Baumgarte's bias takes percent / substeps of the overlap each substep (percent a frame), the
    # split step the share that leaves 1 - percent of it after all the substeps
    per_substep = percent / substeps if correction == BAUMGARTE else 1.0 - (1.0 - percent) ** (1.0 / substeps)
    rules = (correction, slop, per_substep, push_speed)
    spring_mass = np.zeros(3)
    limit = MAX_TURN / h
    measure_gaps(starts, batch, delta, gap)
    for _ in range(substeps):
        for i in range(n):
            if moving[i]:
                body[i, 0] += h * gravity_x
                body[i, 1] += h * gravity_y
        if bouncy:
            track_impacts(batch, body, approach, peak)
        warm_start(starts, batch, body, inverse)
        for it in range(longest):
            solve_pass(starts, it, True, h, batch, body, inverse, gap, rules)
            if spring_body >= 0:
                pull_mouse_spring(spring, spring_body, spring_mass, it == 0, h, pos, angle, body, inverse)
        # positions (the walls move too)
        if two_sides(starts):
            for i in numba.prange(n + 1):
                if i == n or moving[i]:
                    integrate_box(i, n, h, limit, body, delta, pos, angle)
        else:
            for i in range(n + 1):
                if i == n or moving[i]:
                    integrate_box(i, n, h, limit, body, delta, pos, angle)
        measure_gaps(starts, batch, delta, gap)
        if correction == SOFT:
            # one relax pass over every point, without bias: takes the soft push back out of the velocities
            solve_pass(starts, 0, False, h, batch, body, inverse, gap, rules)
        elif correction == SPLIT:
            push_apart(batch, delta, pos, inverse, n, slop, per_substep)
            measure_gaps(starts, batch, delta, gap)
        if bouncy:
            track_peaks(batch, peak)
    if bouncy:
        apply_restitution(batch, body, inverse, bounce, approach, peak)
    for k in range(c_a.shape[0]):
        t = slot[k, 0]
        p = slot[k, 1]
        lane = slot[k, 2]
        c_normal_impulse[k] = impulse[t, p, 0, lane]
        c_tangent_impulse[k] = impulse[t, p, 1, lane]
        c_gap[k] = gap[t, p, lane]
    for i in range(n):
        if moving[i]:
            vel[i, 0] = body[i, 0]
            vel[i, 1] = body[i, 1]
            omega[i] = body[i, 2]
