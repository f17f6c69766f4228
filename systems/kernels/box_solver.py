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
(``box_batches``): each batch's four lanes are solved at once in the core's
four-wide vector registers (``box_lanes``), where one contact at a time
waits for the last one's result. Within a lane, a manifold's two normal
impulses are solved together (``box_contact_solver``), then each point's
friction.
Large scenes are cut into two sides that share no moving box; their
batches run on two threads, then the seam's (``split_sides``).
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.box_batches import (
    BATCHES,
    LANES,
    PARTS,
    STARTS,
    group_manifolds,
    keep_plan,
    pack_batches,
    plan_holds,
    split_sides,
)
from weft.systems.kernels.box_contact_solver import (
    BAUMGARTE,
    SOFT,
    SPLIT,
    apply_restitution,
    lane_softness,
    measure_gaps,
    prepare_manifolds,
    prepare_restitution,
    push_apart,
    solve_pass,
    track_impacts,
    track_peaks,
    two_sides,
    warm_start,
)
from weft.systems.kernels.box_integrate import MAX_TURN, integrate_boxes
from weft.systems.kernels.box_memory import (
    carve_batches,
    carve_bodies,
    carve_manifolds,
    carve_plan,
    plan_capacity,
    work_sizes,
)
from weft.systems.kernels.box_mouse import pull_mouse_spring
from weft.systems.kernels.jit import INNER, kernel_with_threads


@numba.njit(cache=True, **INNER)
def load_bodies(
    vel: npt.NDArray[np.float64],
    omega: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    inv_inertia: npt.NDArray[np.float64],
    moving: npt.NDArray[np.bool_],
    wall_vx: float,
    wall_vy: float,
    body: npt.NDArray[np.float64],
    inverse: npt.NDArray[np.float64],
    fixed: npt.NDArray[np.bool_],
) -> None:
    """The solver's bodies: each moving box's velocity and inverse mass and inertia (zero for the
    others), the walls' velocity as body ``n``, and which bodies take no impulse (``fixed``)."""
    n = vel.shape[0]
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
    for i in range(n + 2):
        fixed[i] = inverse[i, 0] == 0.0 and inverse[i, 1] == 0.0


@numba.njit(cache=True, **INNER)
def empty_batches(
    n: int,
    lane_a: npt.NDArray[np.int64],
    lane_b: npt.NDArray[np.int64],
    passes: npt.NDArray[np.int64],
    mu: npt.NDArray[np.float64],
    soft: npt.NDArray[np.float64],
    con: npt.NDArray[np.float64],
    impulse: npt.NDArray[np.float64],
) -> None:
    """Every lane of a fresh packing empty until a manifold fills it: between body ``n + 1`` (which
    never moves) and itself, no passes owed, no friction, rigid, no constants, nothing carried."""
    lane_a[:] = n + 1
    lane_b[:] = n + 1
    passes[:] = 0
    mu[:] = 0.0
    soft[:] = 0.0
    con[:] = 0.0
    impulse[:] = 0.0


@numba.njit(cache=True, **INNER)
def still(delta: npt.NDArray[np.float64]) -> None:
    """No body moved yet: no shift, a turn of cosine 1 and sine 0."""
    delta[:] = 0.0
    delta[:, 2] = 1.0


Settings = tuple[float, float, float, float, float, int, int, int, float, float, float, float, float, int]
"""``(gravity_x, gravity_y, wall_vx, wall_vy, dt, substeps, iterations, correction, slop, percent,
contact_hertz, damping_ratio, push_speed, threads)``, as ``solve_boxes`` takes them (``threads``:
how many the step runs on)."""


# The twin is inlined into the step's twin (``box_step.step_boxes``), its one caller: compiled apart,
# the code of its 26 callees was optimised and made machine code once in it and once more in the
# step, 2 s of the pyramid's first start. A call of more than 30 arguments cannot be inlined (Python
# passes them as ``*args``): hence ``settings``.
@kernel_with_threads(inline_twin=True, **INNER)
def solve_boxes(
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
    settings: Settings,
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
    ``spring`` is the mouse spring (``box_mouse.SPRING_FIELDS``), pulling
    box ``spring_body`` when that is not negative; its impulse carries over.
    ``threads`` is how many the step runs on: with one, the two sides' batches
    are solved in turn, a batch of each (the same numbers either way).
    """
    gravity_x, gravity_y, wall_vx, wall_vy, dt, substeps, iterations = settings[:7]
    correction, slop, percent, contact_hertz, damping_ratio, push_speed, threads = settings[7:]
    n = pos.shape[0]
    h = dt / substeps
    m = c_a.shape[0]
    float_count, int_count = work_sizes(n, m)
    c = plan_capacity(plan_floats, plan_ints)
    if work_floats.shape[0] < float_count or work_ints.shape[0] < int_count or c < m:
        raise ValueError("solve_boxes: work or plan arrays shorter than work_sizes and plan_sizes ask")
    # Views come out of the carve functions in tuples: in a function compiled for threads numba 0.68
    # may write a slice of such a view to a copy (numba issue 5872), so views are written element by
    # element here, or whole inside the kernels they are handed to.
    body, inverse, delta, scratch_x = carve_bodies(work_floats, n)
    m_a, m_b, m_first, m_points, part, filled, onward, latest, slot = carve_manifolds(work_ints, n, m)
    header, key_a, key_b, batch_of, lane_of = carve_plan(plan_ints, c)
    fixed = np.empty(n + 2, dtype=np.bool_)
    load_bodies(vel, omega, inv_mass, inv_inertia, moving, wall_vx, wall_vy, body, inverse, fixed)

    # manifolds into batches (the last step's packing while it holds); each point into its batch
    manifolds = group_manifolds(c_a, c_b, n, m_a, m_b, m_first, m_points)
    m_a = m_a[:manifolds]
    m_b = m_b[:manifolds]
    kept = plan_holds(header, key_a, key_b, c, n, m_a, m_b, fixed)
    if not kept:
        split_sides(m_a, m_b, pos, fixed, part[:manifolds], scratch_x)
        packed = pack_batches(
            m_a, m_b, fixed, part[:manifolds], batch_of, lane_of, filled[: manifolds + 1],
            onward[: manifolds + 1], latest,
        )  # fmt: skip
        keep_plan(header, key_a, key_b, c, n, m_a, m_b, fixed, packed)
    starts = header[STARTS : STARTS + PARTS + 1]
    batches = header[BATCHES]
    lane_a, lane_b, passes, most, mu, soft, con, impulse, gap, bounce, approach, peak = carve_batches(
        plan_floats, plan_ints, c, batches
    )
    if not kept:
        empty_batches(n, lane_a, lane_b, passes, mu, soft, con, impulse)
    # the two usual softnesses once a call: twice as stiff against what never moves (Box2D v3)
    fixed_a, fixed_b = lane_softness(2.0 * contact_hertz, damping_ratio, h)
    free_a, free_b = lane_softness(contact_hertz, damping_ratio, h)
    stiffness = (contact_hertz, fixed_a, fixed_b, free_a, free_b)
    # each manifold into its lane: two halves at once when both sides have batches
    if two_sides(starts):
        middle = manifolds // 2
        for part in numba.prange(2):
            prepare_manifolds(
                part * middle, manifolds if part else middle, n, iterations, stiffness, damping_ratio, h,
                pos, friction, body_iterations, inverse, c_point, c_normal, c_separation, c_normal_impulse,
                c_tangent_impulse, m_a, m_b, m_first, m_points, batch_of, lane_of, lane_a, lane_b, passes, mu,
                soft, con, impulse, slot,
            )  # fmt: skip
    else:
        prepare_manifolds(
            np.int64(0), manifolds, n, iterations, stiffness, damping_ratio, h, pos, friction,
            body_iterations, inverse, c_point, c_normal, c_separation, c_normal_impulse, c_tangent_impulse,
            m_a, m_b, m_first, m_points, batch_of, lane_of, lane_a, lane_b, passes, mu, soft, con, impulse,
            slot,
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

    still(delta)  # each body's move, and the cosine and sine of its turn, so far
    # Baumgarte's bias takes percent / substeps of the overlap each substep (percent a frame), the
    # split step the share that leaves 1 - percent of it after all the substeps
    per_substep = percent / substeps if correction == BAUMGARTE else 1.0 - (1.0 - percent) ** (1.0 / substeps)
    rules = (correction, slop, per_substep, push_speed)
    spring_mass = np.zeros(3)
    limit = MAX_TURN / h
    measure_gaps(starts, batch, delta, gap)
    # typed values, not constants: a constant argument is a type of its own (numba's Literal), and
    # solve_pass compiled once for the biased passes and again for the relax pass (5 s each)
    biased, unbiased, first = np.bool_(True), np.bool_(False), np.int64(0)
    for _ in range(substeps):
        for i in range(n):
            if moving[i]:
                body[i, 0] += h * gravity_x
                body[i, 1] += h * gravity_y
        if bouncy:
            track_impacts(batch, body, approach, peak)
        warm_start(starts, batch, body, inverse)
        for it in range(longest):
            solve_pass(starts, it, biased, h, batch, body, inverse, gap, rules, threads)
            if spring_body >= 0:
                pull_mouse_spring(spring, spring_body, spring_mass, it == 0, h, pos, angle, body, inverse)
        # positions (the walls move too)
        if two_sides(starts):
            middle = (n + 1) // 2
            for part in numba.prange(2):
                integrate_boxes(
                    part * middle, n + 1 if part else middle, n, h, limit, moving, body, delta, pos, angle
                )
        else:
            integrate_boxes(np.int64(0), n + 1, n, h, limit, moving, body, delta, pos, angle)
        measure_gaps(starts, batch, delta, gap)
        if correction == SOFT:
            # one relax pass over every point, without bias: takes the soft push back out of the velocities
            solve_pass(starts, first, unbiased, h, batch, body, inverse, gap, rules, threads)
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
