"""The contact solver of the box step, by Box2D v3's stages: each manifold prepared (anchors, masses,
softness), the warm start, the solve and relax passes, restitution, and the split step's push.

A point's constants live in ``con`` ``(batches, 2, FIELDS, LANES)``: the
manifolds are packed into batches of ``LANES`` that share no moving box
(``box_batches``), and a pass works on a batch's four lanes at once. The
lane loops here are the reference, written as the math reads; compiled,
the warm start, the passes and the gaps run the four lanes in vector
registers (``box_lanes``, to the same bits), and as plain Python
(``NUMBA_DISABLE_JIT``) these loops run.
The substep loop that calls these stages is ``box_solver.solve_boxes``.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.box_batches import LANES, SEAM
from weft.systems.kernels.box_lanes import VECTOR_LANES, measure_lanes, solve_lanes, warm_lanes
from weft.systems.kernels.box_points import (
    BASE,
    CROSS_K,
    FIELDS,
    MAX_CONDITION,
    NORMAL_K,
    NX,
    NY,
    RNA,
    RNB,
    RTA,
    RTB,
    TANGENT_MASS,
)
from weft.systems.kernels.box_softness import softness
from weft.systems.kernels.jit import INNER, kernel_with_threads

WORLD_ITERATIONS = 0
"""A box's pass count that defers to the world's (``weft.components.rigid.WORLD_ITERATIONS``)."""

SOFT, BAUMGARTE, SPLIT, NONE = 0, 1, 2, 3
"""Codes of ``RigidSettings.correction`` for the kernels, in ``CORRECTIONS`` order."""


Batches = tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
]
"""The batches, as one argument: ``(lane_a, lane_b, passes, most, mu, soft, con, impulse)`` with
each lane's bodies, passes owed, friction and contact softness ``(batches, 3, LANES)``, each batch's
largest pass count, then each point's constants ``(batches, 2, FIELDS, LANES)`` and accumulated
normal and tangent impulses ``(batches, 2, 2, LANES)``."""

Rules = tuple[int, float, float, float]
"""The correction and its settings, as one argument: ``(correction, slop, share, push_speed)``:
``share`` is the part of the overlap Baumgarte or the split step takes each substep (``solve_boxes``)."""


@kernel_with_threads(**INNER)
def measure_gaps(
    starts: npt.NDArray[np.int64],
    batch: Batches,
    delta: npt.NDArray[np.float64],
    gap: npt.NDArray[np.float64],
) -> None:
    """Each point's gap now (``_gap``) into ``gap``; scenes large enough for two sides measure in
    two halves at once."""
    count = batch[0].shape[0]
    if two_sides(starts):
        middle = count // 2
        for side in numba.prange(2):
            _measure_range(side * middle, count if side else middle, batch, delta, gap)
    else:
        _measure_range(np.int64(0), count, batch, delta, gap)  # typed: see solve_boxes


@numba.njit(cache=True, **INNER)
def _measure_range(
    first: int, last: int, batch: Batches, delta: npt.NDArray[np.float64], gap: npt.NDArray[np.float64]
) -> None:
    """``measure_gaps`` for batches ``[first, last)``."""
    lane_a, lane_b, _, _, _, _, con, _ = batch
    for t in range(first, last):
        if VECTOR_LANES:  # the four lanes at once (box_lanes), to the same bits as the loop below
            measure_lanes(con, delta, gap, lane_a, lane_b, t)
            continue
        for lane in range(LANES):
            for p in range(2):
                gap[t, p, lane] = _gap(con, delta, t, p, lane, lane_a[t, lane], lane_b[t, lane])


@numba.njit(cache=True, inline="always", **INNER)
def _gap(
    con: npt.NDArray[np.float64], delta: npt.NDArray[np.float64], t: int, p: int, lane: int, a: int, b: int
) -> float:
    """A point's gap now: its gap when found, plus how its two anchors moved apart along the normal.

    ``delta`` ``(n + 2, 4)`` holds each body's move and the cosine and sine
    of its turn since the call began.
    """
    # an anchor r turned by (c, s) lies c (r · n) + s (r × n) along n, and r · n = -(r × t)
    nx = con[t, p, NX, lane]
    ny = con[t, p, NY, lane]
    moved = (delta[b, 0] - delta[a, 0]) * nx + (delta[b, 1] - delta[a, 1]) * ny
    turned_b = delta[b, 3] * con[t, p, RNB, lane] - delta[b, 2] * con[t, p, RTB, lane]
    turned_a = delta[a, 3] * con[t, p, RNA, lane] - delta[a, 2] * con[t, p, RTA, lane]
    return moved + (turned_b - turned_a) + con[t, p, BASE, lane]


@numba.njit(cache=True, inline="always", **INNER)
def _bodies(
    body: npt.NDArray[np.float64], inverse: npt.NDArray[np.float64], a: int, b: int
) -> tuple[float, float, float, float, float, float, float, float, float, float]:
    """A lane's state: both bodies' velocities, then their inverse masses and inertias."""
    return (
        body[a, 0],
        body[a, 1],
        body[a, 2],
        body[b, 0],
        body[b, 1],
        body[b, 2],
        inverse[a, 0],
        inverse[a, 1],
        inverse[b, 0],
        inverse[b, 1],
    )


@numba.njit(cache=True, inline="always", **INNER)
def _keep(
    body: npt.NDArray[np.float64],
    a: int,
    b: int,
    state: tuple[float, float, float, float, float, float, float, float, float, float],
) -> None:
    """Write a lane's velocities back."""
    body[a, 0] = state[0]
    body[a, 1] = state[1]
    body[a, 2] = state[2]
    body[b, 0] = state[3]
    body[b, 1] = state[4]
    body[b, 2] = state[5]


@numba.njit(cache=True, inline="always", **INNER)
def _target(
    s: float,
    soft: tuple[float, float],
    use_soft: bool,
    use_baumgarte: bool,
    inv_h: float,
    slop: float,
    share: float,
    push_speed: float,
) -> tuple[float, float]:
    """A point's velocity bias ``b`` and softness ``γ`` at gap ``s``: its impulse ``λ`` makes the
    relative normal velocity ``vn + b + γ·K·λ = 0`` (K its effective mass's inverse; Catto's soft
    constraint, ``γ = impulse scale / mass scale``); ``soft`` is the lane's bias rate and γ.

    Speculative points (``s > 0``) may close the gap in one substep and no
    more. The soft step has no dead band, as in Box2D v3: within one, a
    tilted stack's points rest at different depths with nothing to level
    them, and the stack walks sideways until it falls.

    Every case is computed and one is selected, without a branch: resting
    and speculative points alternate in a scene, and a branch on which one
    this is mispredicts often enough to cost the pass a third of its time
    (9 µs against 5-7 µs for the 55-box pyramid's 145 manifolds).
    """
    apart = s > 0.0
    soft_bias = max(soft[0] * s, -push_speed)
    baumgarte_bias = max(share * inv_h * (s + slop), -push_speed) if s + slop < 0.0 else 0.0
    pushed = soft_bias if use_soft else (baumgarte_bias if use_baumgarte else 0.0)
    give = soft[1] if use_soft else 0.0
    return (s * inv_h if apart else pushed), (0.0 if apart else give)


FREE_RATIO = 4.0
"""Mass ratio up to which a pair of boxes has the world's contact stiffness (Box2D v3's, which sets
it by the pair's effective mass). Beyond it the stiffness grows with the ratio, so a heavy box sags
into a light one as far as into one a quarter its mass."""


@numba.njit(cache=True, inline="always", **INNER)
def _normals(
    state: tuple[float, float, float, float, float, float, float, float, float, float],
    con: npt.NDArray[np.float64],
    impulse: npt.NDArray[np.float64],
    gap: npt.NDArray[np.float64],
    t: int,
    lane: int,
    soft: tuple[float, float, float],
    use_soft: bool,
    use_baumgarte: bool,
    inv_h: float,
    slop: float,
    share: float,
    push_speed: float,
) -> tuple[float, float, float, float, float, float, float, float, float, float]:
    """A manifold's normal impulses in a pass, both points at once (``_block``, to ``_target``)."""
    b0, g0 = _target(gap[t, 0, lane], soft, use_soft, use_baumgarte, inv_h, slop, share, push_speed)
    b1, g1 = _target(gap[t, 1, lane], soft, use_soft, use_baumgarte, inv_h, slop, share, push_speed)
    use0 = con[t, 0, NORMAL_K, lane] > 0.0
    use1 = con[t, 1, NORMAL_K, lane] > 0.0
    return _block(state, con, impulse, t, lane, b0, g0, use0, b1, g1, use1)


@numba.njit(cache=True, inline="always", **INNER)
def _block(
    state: tuple[float, float, float, float, float, float, float, float, float, float],
    con: npt.NDArray[np.float64],
    impulse: npt.NDArray[np.float64],
    t: int,
    lane: int,
    b0: float,
    g0: float,
    use0: bool,
    b1: float,
    g1: float,
    use1: bool,
) -> tuple[float, float, float, float, float, float, float, float, float, float]:
    """The normal impulses of a manifold's points ``use0`` and ``use1`` (the others keep theirs), each
    to its condition ``vn + b + γ K λ = 0`` with ``λ >= 0``; the lane's new state.

    Solved one after the other, the first point of a pair takes the load
    before the second can share it, and the box turns a little every pass:
    in a tall stack those turns add up, feed friction, and the stack walks
    sideways until it falls (a 40-box stack fell in 5 s). Both points'
    conditions are one 2 × 2 linear complementarity problem, solved exactly
    by trying its four cases in turn (both pushing, the first, the second,
    neither: Box2D v2.4's block solver, with the soft step's γ on the
    diagonal). A single point, or two that make the block ill-conditioned,
    are solved alone.
    """
    vax, vay, wa, vbx, vby, wb, ma, ia, mb, ib = state
    nx = con[t, 0, NX, lane]
    ny = con[t, 0, NY, lane]
    k00 = con[t, 0, NORMAL_K, lane]
    k11 = con[t, 1, NORMAL_K, lane]
    k01 = con[t, 0, CROSS_K, lane]
    rna0 = con[t, 0, RNA, lane]
    rnb0 = con[t, 0, RNB, lane]
    rna1 = con[t, 1, RNA, lane]
    rnb1 = con[t, 1, RNB, lane]
    old0 = impulse[t, 0, 0, lane]
    old1 = impulse[t, 1, 0, lane]
    dvx = vbx - vax
    dvy = vby - vay
    vn0 = (dvx * nx + dvy * ny) + (wb * rnb0 - wa * rna0)
    vn1 = (dvx * nx + dvy * ny) + (wb * rnb1 - wa * rna1)
    x0 = old0
    x1 = old1
    solved = False
    if use0 and use1:
        # (K + Γ) λ = K λ_old − vn − b, with Γ = diag(γ K_ii)
        a00 = k00 * (1.0 + g0)
        a11 = k11 * (1.0 + g1)
        det = a00 * a11 - k01 * k01
        if a00 * a00 < MAX_CONDITION * det:
            r0 = k00 * old0 + k01 * old1 - vn0 - b0
            r1 = k01 * old0 + k11 * old1 - vn1 - b1
            solved = True
            inv_det = 1.0 / det
            x0 = (a11 * r0 - k01 * r1) * inv_det
            x1 = (a00 * r1 - k01 * r0) * inv_det
            if x0 < 0.0 or x1 < 0.0:
                # the first alone: the second point's velocity stays at its target or above without it
                x0 = r0 / a00
                x1 = 0.0
                if x0 < 0.0 or k01 * x0 - r1 < 0.0:
                    # the second alone
                    x0 = 0.0
                    x1 = r1 / a11
                    if x1 < 0.0 or k01 * x1 - r0 < 0.0:
                        x1 = 0.0  # neither: both points part
    if not solved:
        # one point (or two too close to solve as a block): one after the other
        if use0:
            x0 = max((old0 * k00 - (vn0 + b0)) / (k00 * (1.0 + g0)), 0.0)
            vn1 += (x0 - old0) * k01
        if use1:
            x1 = max((old1 * k11 - (vn1 + b1)) / (k11 * (1.0 + g1)), 0.0)
    impulse[t, 0, 0, lane] = x0
    impulse[t, 1, 0, lane] = x1
    d0 = x0 - old0
    d1 = x1 - old1
    total = d0 + d1
    vax -= total * (ma * nx)
    vay -= total * (ma * ny)
    wa -= ia * (d0 * rna0 + d1 * rna1)
    vbx += total * (mb * nx)
    vby += total * (mb * ny)
    wb += ib * (d0 * rnb0 + d1 * rnb1)
    return vax, vay, wa, vbx, vby, wb, ma, ia, mb, ib


@numba.njit(cache=True, inline="always", **INNER)
def _friction(
    state: tuple[float, float, float, float, float, float, float, float, float, float],
    con: npt.NDArray[np.float64],
    impulse: npt.NDArray[np.float64],
    t: int,
    p: int,
    lane: int,
    mu: float,
) -> tuple[float, float, float, float, float, float, float, float, float, float]:
    """One point's friction impulse along ``t``, at most ``mu`` times its normal impulse; the lane's
    new state. Both points' normal impulses come first (Box2D v3), so each friction impulse is
    bounded by what its point ends the pass with."""
    vax, vay, wa, vbx, vby, wb, ma, ia, mb, ib = state
    nx = con[t, p, NX, lane]
    ny = con[t, p, NY, lane]
    rta = con[t, p, RTA, lane]
    rtb = con[t, p, RTB, lane]
    vt = ((vbx - vax) * ny - (vby - vay) * nx) + (wb * rtb - wa * rta)
    old = impulse[t, p, 1, lane]
    limit = mu * impulse[t, p, 0, lane]
    total = min(max(old - con[t, p, TANGENT_MASS, lane] * vt, -limit), limit)
    impulse[t, p, 1, lane] = total
    step = total - old
    vax -= step * (ma * ny)
    vay += step * (ma * nx)
    wa -= step * (ia * rta)
    vbx += step * (mb * ny)
    vby -= step * (mb * nx)
    wb += step * (ib * rtb)
    return vax, vay, wa, vbx, vby, wb, ma, ia, mb, ib


@numba.njit(cache=True, **INNER)
def _solve(
    first: int,
    last: int,
    also_first: int,
    also_last: int,
    it: int,
    use_bias: bool,
    h: float,
    batch: Batches,
    body: npt.NDArray[np.float64],
    inverse: npt.NDArray[np.float64],
    gap: npt.NDArray[np.float64],
    rules: Rules,
) -> None:
    """One Gauss-Seidel pass over batches ``[first, last)`` and ``[also_first, also_last)`` (the two
    sides, which share no moving body, or an empty second range), to the points still owed pass
    ``it``, four lanes at a time.

    ``body`` holds the velocities ``(vx, vy, ω)`` and ``inverse`` the
    inverse mass and inertia (zero for what does not move); ``gap`` each
    point's gap, measured when the positions last moved.

    A batch's lanes share no moving body, so each lane's normals and friction
    are a chain of arithmetic of its own. Compiled, the four run at once in
    vector registers (``box_lanes.solve_lanes``): as a loop, each lane's chain
    is about 150 instructions and the core holds about two in flight, so it
    overlapped little of them (a pass over the 5050-box pyramid 0.47 -> 0.21
    ms, the 55-box one's 5 -> 3.3 µs). The loop below, as fast as written
    out lane by lane and compiled in a fifth of the time, is what runs as
    plain Python.
    """
    lane_a, lane_b, passes, most, mu, soft, con, impulse = batch
    correction, slop, share, push_speed = rules
    inv_h = 1.0 / h
    use_soft = use_bias and correction == SOFT
    use_baumgarte = use_bias and correction == BAUMGARTE
    if VECTOR_LANES:
        # the four lanes at once (box_lanes), to the same bits as the loop below; the two ranges a
        # batch of each in turn: a batch waits for the velocities the one before it wrote, and the
        # other side's batch needs none of them (the passes about 7% faster, 3% of the frame for the
        # 5050-box pyramid on one thread)
        rates = (inv_h, slop, share, push_speed)
        for i in range(max(last - first, also_last - also_first)):
            for other in range(2):  # one call written, not two: each is a whole lane solve to compile
                t = (also_first if other else first) + i
                if t < (also_last if other else last) and it < most[t]:
                    solve_lanes(
                        body, inverse, con, impulse, gap, soft, mu, lane_a, lane_b, passes, t, it, use_soft,
                        use_baumgarte, rates,
                    )  # fmt: skip
        return
    for start, end in ((first, last), (also_first, also_last)):
        for t in range(start, end):
            if it >= most[t]:
                continue
            for lane in range(LANES):
                if it >= passes[t, lane]:
                    continue
                state = _bodies(body, inverse, lane_a[t, lane], lane_b[t, lane])
                state = _normals(
                    state, con, impulse, gap, t, lane, (soft[t, 0, lane], soft[t, 1, lane]), use_soft,
                    use_baumgarte, inv_h, slop, share, push_speed,
                )  # fmt: skip
                state = _friction(state, con, impulse, t, 0, lane, mu[t, lane])
                state = _friction(state, con, impulse, t, 1, lane, mu[t, lane])
                _keep(body, lane_a[t, lane], lane_b[t, lane], state)


@kernel_with_threads(**INNER)
def warm_start(
    starts: npt.NDArray[np.int64],
    batch: Batches,
    body: npt.NDArray[np.float64],
    inverse: npt.NDArray[np.float64],
) -> None:
    """Apply the impulses the points already carry: the two sides at once when both have some."""
    if two_sides(starts):
        for side in numba.prange(2):
            _warm_start_range(starts[side], starts[side + 1], batch, body, inverse)
    else:
        _warm_start_range(starts[0], starts[SEAM], batch, body, inverse)
    _warm_start_range(starts[SEAM], starts[SEAM + 1], batch, body, inverse)


@numba.njit(cache=True, **INNER)
def _warm_start_range(
    first: int, last: int, batch: Batches, body: npt.NDArray[np.float64], inverse: npt.NDArray[np.float64]
) -> None:
    """``warm_start`` for batches ``[first, last)``."""
    lane_a, lane_b, _, _, _, _, con, impulse = batch
    for t in range(first, last):
        if VECTOR_LANES:  # the four lanes at once (box_lanes), to the same bits as the loop below
            warm_lanes(body, inverse, con, impulse, lane_a, lane_b, t)
            continue
        for lane in range(LANES):
            if lane_a[t, lane] == body.shape[0] - 1:
                continue  # an empty lane (the body that never moves, the last row)
            # both points' impulses summed, then each body's velocities written once
            px = 0.0
            py = 0.0
            turn_a = 0.0
            turn_b = 0.0
            for p in range(2):
                normal = impulse[t, p, 0, lane]
                tangent = impulse[t, p, 1, lane]
                nx = con[t, p, NX, lane]
                ny = con[t, p, NY, lane]
                px += normal * nx + tangent * ny
                py += normal * ny - tangent * nx
                turn_a += normal * con[t, p, RNA, lane] + tangent * con[t, p, RTA, lane]
                turn_b += normal * con[t, p, RNB, lane] + tangent * con[t, p, RTB, lane]
            a = lane_a[t, lane]
            b = lane_b[t, lane]
            body[a, 0] -= inverse[a, 0] * px
            body[a, 1] -= inverse[a, 0] * py
            body[a, 2] -= inverse[a, 1] * turn_a
            body[b, 0] += inverse[b, 0] * px
            body[b, 1] += inverse[b, 0] * py
            body[b, 2] += inverse[b, 1] * turn_b


@numba.njit(cache=True, **INNER)
def two_sides(starts: npt.NDArray[np.int64]) -> bool:
    """Whether both sides have batches (then they run on two threads)."""
    return starts[1] > starts[0] and starts[2] > starts[1]


@kernel_with_threads(**INNER)
def solve_pass(
    starts: npt.NDArray[np.int64],
    it: int,
    use_bias: bool,
    h: float,
    batch: Batches,
    body: npt.NDArray[np.float64],
    inverse: npt.NDArray[np.float64],
    gap: npt.NDArray[np.float64],
    rules: Rules,
    threads: int,
) -> None:
    """One pass over every batch: the two sides (on two threads when both have some and the step has
    ``threads`` for them, else a batch of each in turn), then the seam."""
    if two_sides(starts) and threads > 1:
        for side in numba.prange(2):
            end = starts[side + 1]
            _solve(starts[side], end, end, end, it, use_bias, h, batch, body, inverse, gap, rules)
    else:
        _solve(
            starts[0], starts[1], starts[1], starts[SEAM], it, use_bias, h, batch, body, inverse, gap, rules
        )
    end = starts[SEAM + 1]
    _solve(starts[SEAM], end, end, end, it, use_bias, h, batch, body, inverse, gap, rules)


@numba.njit(cache=True, **INNER)
def lane_softness(hertz: float, zeta: float, h: float) -> tuple[float, float]:
    """A lane's soft contact as the solver reads it: the bias rate and ``γ`` (impulse scale over mass
    scale) of a spring of ``hertz`` (``softness``)."""
    rate, mass_scale, impulse_scale = softness(hertz, zeta, h)
    return rate, impulse_scale / mass_scale


@numba.njit(cache=True, **INNER)
def prepare_manifolds(
    first: int,
    last: int,
    n: int,
    iterations: int,
    stiffness: tuple[float, float, float, float, float],
    zeta: float,
    h: float,
    pos: npt.NDArray[np.float64],
    friction: npt.NDArray[np.float64],
    body_iterations: npt.NDArray[np.int64],
    inverse: npt.NDArray[np.float64],
    c_point: npt.NDArray[np.float64],
    c_normal: npt.NDArray[np.float64],
    c_separation: npt.NDArray[np.float64],
    c_normal_impulse: npt.NDArray[np.float64],
    c_tangent_impulse: npt.NDArray[np.float64],
    m_a: npt.NDArray[np.int64],
    m_b: npt.NDArray[np.int64],
    m_first: npt.NDArray[np.int64],
    m_points: npt.NDArray[np.int64],
    batch_of: npt.NDArray[np.int64],
    lane_of: npt.NDArray[np.int64],
    lane_a: npt.NDArray[np.int64],
    lane_b: npt.NDArray[np.int64],
    passes: npt.NDArray[np.int64],
    mu: npt.NDArray[np.float64],
    soft: npt.NDArray[np.float64],
    con: npt.NDArray[np.float64],
    impulse: npt.NDArray[np.float64],
    slot: npt.NDArray[np.int64],
) -> None:
    """Manifolds ``[first, last)`` into their batches and lanes: bodies, passes, friction, and each
    point's constants. ``stiffness`` is the contact hertz, then ``lane_softness`` at twice it
    (against what never moves) and at it (between boxes of like mass): made once a call, not once a
    manifold.

    The arrays come one by one, not bundled as ``Batches`` (bundled, this
    loop cost 35 µs more a frame for the 55-box pyramid, a fifth of its
    step), and the loop is here, not around a call per manifold: inlined
    into a loop, a function of arrays takes a reference to each of them at
    every turn (two atomic operations an array: 30 µs a frame).
    """
    hertz, fixed_rate, fixed_gamma, free_rate, free_gamma = stiffness
    for j in range(first, last):
        t = batch_of[j]
        lane = lane_of[j]
        a = m_a[j]
        b = m_b[j]
        lane_a[t, lane] = a
        lane_b[t, lane] = b
        count = max(body_iterations[a], body_iterations[b]) if b < n else body_iterations[a]
        passes[t, lane] = iterations if count == WORLD_ITERATIONS else count
        mu[t, lane] = math.sqrt(friction[a] * friction[b]) if b < n else friction[a]
        for p in range(m_points[j]):
            k = m_first[j] + p
            slot[k, 0] = t
            slot[k, 1] = p
            slot[k, 2] = lane
            nx = c_normal[k, 0]
            ny = c_normal[k, 1]
            rax = c_point[k, 0] - pos[a, 0]
            ray = c_point[k, 1] - pos[a, 1]
            # the walls' anchor is the point itself (their "centre" is the origin, and they never turn)
            rbx = c_point[k, 0] - (pos[b, 0] if b < n else 0.0)
            rby = c_point[k, 1] - (pos[b, 1] if b < n else 0.0)
            rna = rax * ny - ray * nx
            rnb = rbx * ny - rby * nx
            rta = -rax * nx - ray * ny  # r × t with t = (n.y, -n.x)
            rtb = -rbx * nx - rby * ny
            k_n = inverse[a, 0] + inverse[b, 0] + inverse[a, 1] * rna * rna + inverse[b, 1] * rnb * rnb
            k_t = inverse[a, 0] + inverse[b, 0] + inverse[a, 1] * rta * rta + inverse[b, 1] * rtb * rtb
            con[t, p, NX, lane] = nx
            con[t, p, NY, lane] = ny
            con[t, p, RNA, lane] = rna
            con[t, p, RNB, lane] = rnb
            con[t, p, RTA, lane] = rta
            con[t, p, RTB, lane] = rtb
            con[t, p, NORMAL_K, lane] = k_n
            con[t, p, TANGENT_MASS, lane] = 1.0 / k_t if k_t > 0.0 else 0.0
            con[t, p, BASE, lane] = c_separation[k] + (rtb - rta)
            impulse[t, p, 0, lane] = c_normal_impulse[k]
            impulse[t, p, 1, lane] = c_tangent_impulse[k]
        for p in range(m_points[j], 2):
            # no second point (the kept plan may have had one here): no constants, nothing owed
            for field in range(FIELDS):  # element by element: the batches come in a tuple (solve_boxes)
                con[t, p, field, lane] = 0.0
            impulse[t, p, 0, lane] = 0.0
            impulse[t, p, 1, lane] = 0.0
        # twice as stiff against what never moves (Box2D v3); between two boxes of very different mass,
        # as stiff as for the heavier one's: the lighter sets the pair's effective mass, and a heavy box
        # sagged into a light one 3.5 px at a mass ratio of 100 (Box2D v3 too)
        rate = free_rate
        gamma = free_gamma
        if inverse[a, 0] == 0.0 or inverse[b, 0] == 0.0:
            rate = fixed_rate
            gamma = fixed_gamma
        else:
            ratio = max(inverse[a, 0], inverse[b, 0]) / min(inverse[a, 0], inverse[b, 0])
            if ratio > FREE_RATIO:
                rate, gamma = lane_softness(hertz * math.sqrt(ratio / FREE_RATIO), zeta, h)
        soft[t, 0, lane] = rate
        soft[t, 1, lane] = gamma
        con[t, 0, CROSS_K, lane] = (inverse[a, 0] + inverse[b, 0]) + (
            inverse[a, 1] * con[t, 0, RNA, lane] * con[t, 1, RNA, lane]
            + inverse[b, 1] * con[t, 0, RNB, lane] * con[t, 1, RNB, lane]
        )  # a second point's anchors are zero when there is none


RESTITUTION_SPEED = 40.0
"""px/s: slower impacts never bounce (Box2D's 1 m/s at 40 px a metre): a box resting on another, or
on a bouncy floor, would otherwise jitter for ever."""


@numba.njit(cache=True, **INNER)
def prepare_restitution(
    restitution: npt.NDArray[np.float64],
    n: int,
    m_a: npt.NDArray[np.int64],
    m_b: npt.NDArray[np.int64],
    batch_of: npt.NDArray[np.int64],
    lane_of: npt.NDArray[np.int64],
    bounce: npt.NDArray[np.float64],
    approach: npt.NDArray[np.float64],
    peak: npt.NDArray[np.float64],
) -> None:
    """Each lane's restitution (a pair's larger, a wall's the box's own); no point has pushed yet."""
    bounce[:] = 0.0
    approach[:] = 0.0
    peak[:] = 0.0
    for j in range(m_a.shape[0]):
        a = m_a[j]
        b = m_b[j]
        bounce[batch_of[j], lane_of[j]] = max(restitution[a], restitution[b]) if b < n else restitution[a]


@numba.njit(cache=True, **INNER)
def track_impacts(
    batch: Batches,
    body: npt.NDArray[np.float64],
    approach: npt.NDArray[np.float64],
    peak: npt.NDArray[np.float64],
) -> None:
    """Before a substep's passes: each point that has not pushed yet notes its normal speed
    (``approach``, negative when closing), so the speed restitution gives back is the one it hit
    with, not the slower one the frame began with (a box dropped 400 px lost 4% of its rebound)."""
    lane_a, lane_b, _, _, _, _, con, _ = batch
    for t in range(lane_a.shape[0]):
        for lane in range(LANES):
            a = lane_a[t, lane]
            b = lane_b[t, lane]
            for p in range(2):
                if peak[t, p, lane] > 0.0:
                    continue
                nx = con[t, p, NX, lane]
                ny = con[t, p, NY, lane]
                approach[t, p, lane] = ((body[b, 0] - body[a, 0]) * nx + (body[b, 1] - body[a, 1]) * ny) + (
                    body[b, 2] * con[t, p, RNB, lane] - body[a, 2] * con[t, p, RNA, lane]
                )


@numba.njit(cache=True, **INNER)
def track_peaks(batch: Batches, peak: npt.NDArray[np.float64]) -> None:
    """After a substep: the largest normal impulse each point has carried (zero: it never touched)."""
    impulse = batch[7]
    for t in range(impulse.shape[0]):
        for p in range(2):
            for lane in range(LANES):
                peak[t, p, lane] = max(peak[t, p, lane], impulse[t, p, 0, lane])


@numba.njit(cache=True, **INNER)
def apply_restitution(
    batch: Batches,
    body: npt.NDArray[np.float64],
    inverse: npt.NDArray[np.float64],
    bounce: npt.NDArray[np.float64],
    approach: npt.NDArray[np.float64],
    peak: npt.NDArray[np.float64],
) -> None:
    """Restitution, once after the substeps (Box2D v3): every point that hit faster than
    ``RESTITUTION_SPEED`` and pushed in some substep leaves at ``e`` times the speed it hit with,
    ``vn = -e · approach``; both points of a manifold at once (``_block``), so a box landing flat
    leaves flat."""
    lane_a, lane_b, _, _, _, _, con, impulse = batch
    for t in range(lane_a.shape[0]):
        for lane in range(LANES):
            e = bounce[t, lane]
            if e == 0.0:
                continue
            a = lane_a[t, lane]
            b = lane_b[t, lane]
            use0 = approach[t, 0, lane] < -RESTITUTION_SPEED and peak[t, 0, lane] > 0.0
            use1 = approach[t, 1, lane] < -RESTITUTION_SPEED and peak[t, 1, lane] > 0.0
            if not (use0 or use1):
                continue
            state = _bodies(body, inverse, a, b)
            b0 = e * approach[t, 0, lane]
            b1 = e * approach[t, 1, lane]
            state = _block(state, con, impulse, t, lane, b0, 0.0, use0, b1, 0.0, use1)
            _keep(body, a, b, state)


@numba.njit(cache=True, **INNER)
def push_apart(
    batch: Batches,
    delta: npt.NDArray[np.float64],
    pos: npt.NDArray[np.float64],
    inverse: npt.NDArray[np.float64],
    n: int,
    slop: float,
    share: float,
) -> None:
    """Split impulse: move each overlapping pair apart by ``share · max(depth − slop, 0) / (w_a + w_b)``
    along the normal, shared by inverse mass; velocities are left as they are. Each point measures
    its gap after the moves of the points before it (Gauss-Seidel), so the two points of one pair do
    not both push the whole way."""
    lane_a, lane_b, _, _, _, _, con, _ = batch
    for t in range(lane_a.shape[0]):
        for lane in range(LANES):
            a = lane_a[t, lane]
            b = lane_b[t, lane]
            total = inverse[a, 0] + inverse[b, 0]
            if total == 0.0:
                continue
            for p in range(2):
                if con[t, p, NORMAL_K, lane] == 0.0:
                    continue  # an empty point of a one-point manifold
                depth = -_gap(con, delta, t, p, lane, a, b) - slop
                if depth <= 0.0:
                    continue
                nx = con[t, p, NX, lane]
                ny = con[t, p, NY, lane]
                push = share * depth / total
                ma = inverse[a, 0]
                mb = inverse[b, 0]
                delta[a, 0] -= ma * push * nx
                delta[a, 1] -= ma * push * ny
                delta[b, 0] += mb * push * nx
                delta[b, 1] += mb * push * ny
                pos[a, 0] -= ma * push * nx
                pos[a, 1] -= ma * push * ny
                if b < n:
                    pos[b, 0] += mb * push * nx
                    pos[b, 1] += mb * push * ny
