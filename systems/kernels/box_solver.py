"""Sequential impulses over box contacts: the soft step, or plain impulses with a chosen correction.

One call advances the boxes by ``dt`` in ``substeps`` substeps. Each
substep: gravity, warm start (apply the impulses the points already
carry), ``iterations`` solver passes, positions, then (soft step) one relax
pass without bias, or (split impulse) one position pass.

Every point's accumulated normal impulse is clamped at zero and its
friction impulse at ``μ`` times it (Catto, Box2D-lite). Contact anchors are
fixed for the whole call; each phase measures the current gap from how far
the two bodies moved and turned since the call began (Box2D v3), so the
contacts are found only once per call.

Corrections (``correction``):

- ``SOFT``: the contact is a stiff, heavily damped spring (``contact_hertz``,
  ``damping_ratio``; twice as stiff against walls and fixed boxes) pushing
  out at most ``push_speed``; the relax passes then take the push back out
  of the velocities, so it moves without launching (Box2D v3's soft step).
- ``BAUMGARTE``: a velocity bias ``percent / h · (s + slop)`` when ``s < -slop``.
- ``SPLIT``: no bias; after the positions, each overlap beyond the slop is
  moved apart by ``percent`` of it, shared by inverse mass, velocities untouched.
- ``NONE``: no correction: what sinks in stays in.

Points still apart (``s > 0``, speculative) may close the gap in one
substep and no more, under every correction.

Inside a call the walls are one more body, index ``n``: it never moves
under impulses, only translates at the walls' velocity. The per-point
loops are written out flat: a call to a helper that takes arrays costs
about 100 ns in numba (reference counts), more than the point's own work.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

SOFT, BAUMGARTE, SPLIT, NONE = 0, 1, 2, 3
"""Codes of ``RigidSettings.correction`` for the kernels, in ``CORRECTIONS`` order."""

MAX_SPEED = 20000.0
"""px/s: no box moves faster (a sane limit that keeps any setting from overflowing)."""

MAX_TURN = 0.25 * math.pi
"""Radians a box may turn in one substep."""


@numba.njit(cache=True)
def softness(hertz: float, zeta: float, h: float) -> tuple[float, float, float]:
    """Bias rate, mass scale and impulse scale of a soft constraint (a spring of ``hertz`` and ``zeta``).

    With ``ω = 2π·hertz``: ``bias = ω / (2ζ + hω)``, ``mass = hω(2ζ + hω) / (1 + hω(2ζ + hω))``,
    ``impulse = 1 / (1 + hω(2ζ + hω))``: the implicit spring-damper step written as an impulse.
    """
    if hertz <= 0.0:
        return 0.0, 1.0, 0.0
    omega = 2.0 * math.pi * hertz
    a1 = 2.0 * zeta + h * omega
    a2 = h * omega * a1
    a3 = 1.0 / (1.0 + a2)
    return omega / a1, a2 * a3, a3


@numba.njit(cache=True)
def _measure_gaps(
    c_a: npt.NDArray[np.int64],
    c_b: npt.NDArray[np.int64],
    normal: npt.NDArray[np.float64],
    anchor: npt.NDArray[np.float64],
    base: npt.NDArray[np.float64],
    moved: npt.NDArray[np.float64],
    turned: npt.NDArray[np.float64],
    turn: npt.NDArray[np.float64],
    gap: npt.NDArray[np.float64],
) -> None:
    """Each point's gap now: its gap when found, plus how its two anchors moved apart along the normal.

    ``turn`` ``(n + 1, 2)`` is scratch for each body's cosine and sine of ``turned``.
    """
    for i in range(turned.shape[0]):
        turn[i, 0] = math.cos(turned[i])
        turn[i, 1] = math.sin(turned[i])
    for k in range(c_a.shape[0]):
        a = c_a[k]
        b = c_b[k]
        ca = turn[a, 0]
        sa = turn[a, 1]
        cb = turn[b, 0]
        sb = turn[b, 1]
        dx = (
            moved[b, 0]
            + cb * anchor[k, 2]
            - sb * anchor[k, 3]
            - (moved[a, 0] + ca * anchor[k, 0] - sa * anchor[k, 1])
        )
        dy = (
            moved[b, 1]
            + sb * anchor[k, 2]
            + cb * anchor[k, 3]
            - (moved[a, 1] + sa * anchor[k, 0] + ca * anchor[k, 1])
        )
        gap[k] = dx * normal[k, 0] + dy * normal[k, 1] + base[k]


@numba.njit(cache=True)
def _solve(
    it: int,
    use_bias: bool,
    h: float,
    c_a: npt.NDArray[np.int64],
    c_b: npt.NDArray[np.int64],
    normal: npt.NDArray[np.float64],
    normal_impulse: npt.NDArray[np.float64],
    tangent_impulse: npt.NDArray[np.float64],
    anchor: npt.NDArray[np.float64],
    normal_mass: npt.NDArray[np.float64],
    tangent_mass: npt.NDArray[np.float64],
    mu: npt.NDArray[np.float64],
    passes: npt.NDArray[np.int64],
    rigid: npt.NDArray[np.bool_],
    gap: npt.NDArray[np.float64],
    v: npt.NDArray[np.float64],
    w: npt.NDArray[np.float64],
    wm: npt.NDArray[np.float64],
    wi: npt.NDArray[np.float64],
    correction: int,
    slop: float,
    percent: float,
    contact_soft: tuple[float, float, float],
    static_soft: tuple[float, float, float],
    push_speed: float,
) -> None:
    """One Gauss-Seidel pass over the points still owed pass ``it``: normal impulse, then friction.

    ``gap`` holds each point's current gap (positions only change between
    phases); ``v``, ``w`` are the bodies' velocities and ``wm``, ``wi``
    their inverse mass and inertia (zero for what does not move).
    """
    for k in range(c_a.shape[0]):
        if it >= passes[k]:
            continue
        a = c_a[k]
        b = c_b[k]
        nx = normal[k, 0]
        ny = normal[k, 1]
        rax = anchor[k, 0]
        ray = anchor[k, 1]
        rbx = anchor[k, 2]
        rby = anchor[k, 3]
        s = gap[k]
        bias = 0.0
        mass_scale = 1.0
        impulse_scale = 0.0
        if s > 0.0:
            bias = s / h  # speculative: close the gap, no more
        elif use_bias and s + slop < 0.0:
            if correction == SOFT:
                rate, mass_scale, impulse_scale = static_soft if rigid[k] else contact_soft
                bias = max(rate * (s + slop), -push_speed)
            elif correction == BAUMGARTE:
                bias = percent / h * (s + slop)
        # normal: relative velocity of the point on b against a
        dvx = v[b, 0] - w[b] * rby - v[a, 0] + w[a] * ray
        dvy = v[b, 1] + w[b] * rbx - v[a, 1] - w[a] * rax
        vn = dvx * nx + dvy * ny
        impulse = -normal_mass[k] * mass_scale * (vn + bias) - impulse_scale * normal_impulse[k]
        total = max(normal_impulse[k] + impulse, 0.0)
        impulse = total - normal_impulse[k]
        normal_impulse[k] = total
        px = impulse * nx
        py = impulse * ny
        v[a, 0] -= wm[a] * px
        v[a, 1] -= wm[a] * py
        w[a] -= wi[a] * (rax * py - ray * px)
        v[b, 0] += wm[b] * px
        v[b, 1] += wm[b] * py
        w[b] += wi[b] * (rbx * py - rby * px)
        # friction along t = (n.y, -n.x), at most mu times the normal impulse
        dvx = v[b, 0] - w[b] * rby - v[a, 0] + w[a] * ray
        dvy = v[b, 1] + w[b] * rbx - v[a, 1] - w[a] * rax
        vt = dvx * ny - dvy * nx
        impulse = -tangent_mass[k] * vt
        limit = mu[k] * normal_impulse[k]
        total = min(max(tangent_impulse[k] + impulse, -limit), limit)
        impulse = total - tangent_impulse[k]
        tangent_impulse[k] = total
        px = impulse * ny
        py = -impulse * nx
        v[a, 0] -= wm[a] * px
        v[a, 1] -= wm[a] * py
        w[a] -= wi[a] * (rax * py - ray * px)
        v[b, 0] += wm[b] * px
        v[b, 1] += wm[b] * py
        w[b] += wi[b] * (rbx * py - rby * px)


@numba.njit(cache=True)
def step_boxes(
    pos: npt.NDArray[np.float64],
    angle: npt.NDArray[np.float64],
    vel: npt.NDArray[np.float64],
    omega: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    inv_inertia: npt.NDArray[np.float64],
    friction: npt.NDArray[np.float64],
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

    Contacts are rows ``[0, len(c_a))``; a negative ``c_b`` is a wall. Their
    impulses come in warm (or zero) and go out as the step ended them;
    ``c_gap`` gets each point's gap at the end.
    ``spring`` holds the mouse spring ``[anchor_x, anchor_y (body frame),
    target_x, target_y, hertz, damping ratio, max force, impulse_x,
    impulse_y]``, used when ``spring_body >= 0``; its impulse carries over.
    """
    n = pos.shape[0]
    m = c_a.shape[0]
    h = dt / substeps
    contact_soft = softness(contact_hertz, damping_ratio, h)
    static_soft = softness(2.0 * contact_hertz, damping_ratio, h)

    # the bodies, and the walls as body n
    v = np.zeros((n + 1, 2))
    w = np.zeros(n + 1)
    wm = np.zeros(n + 1)
    wi = np.zeros(n + 1)
    for i in range(n):
        if moving[i]:
            v[i, 0] = vel[i, 0]
            v[i, 1] = vel[i, 1]
            w[i] = omega[i]
            wm[i] = inv_mass[i]
            wi[i] = inv_inertia[i]
    v[n, 0] = wall_vx
    v[n, 1] = wall_vy
    b_of = np.empty(m, dtype=np.int64)

    # prepare: anchors relative to the bodies, effective masses, friction, passes per point
    anchor = np.zeros((m, 4))
    base = np.empty(m)
    normal_mass = np.empty(m)
    tangent_mass = np.empty(m)
    mu = np.empty(m)
    passes = np.empty(m, dtype=np.int64)
    rigid = np.empty(m, dtype=np.bool_)
    most = iterations
    for k in range(m):
        a = c_a[k]
        b = c_b[k] if c_b[k] >= 0 else n
        b_of[k] = b
        nx = c_normal[k, 0]
        ny = c_normal[k, 1]
        rax = c_point[k, 0] - pos[a, 0]
        ray = c_point[k, 1] - pos[a, 1]
        # the walls' anchor is the point itself (their "centre" is the origin, and they never turn)
        rbx = c_point[k, 0] - (pos[b, 0] if b < n else 0.0)
        rby = c_point[k, 1] - (pos[b, 1] if b < n else 0.0)
        anchor[k, 0] = rax
        anchor[k, 1] = ray
        anchor[k, 2] = rbx
        anchor[k, 3] = rby
        rna = rax * ny - ray * nx
        rnb = rbx * ny - rby * nx
        rta = -rax * nx - ray * ny  # r × t with t = (n.y, -n.x)
        rtb = -rbx * nx - rby * ny
        k_n = wm[a] + wm[b] + wi[a] * rna * rna + wi[b] * rnb * rnb
        k_t = wm[a] + wm[b] + wi[a] * rta * rta + wi[b] * rtb * rtb
        normal_mass[k] = 1.0 / k_n if k_n > 0.0 else 0.0
        tangent_mass[k] = 1.0 / k_t if k_t > 0.0 else 0.0
        base[k] = c_separation[k] - ((rbx - rax) * nx + (rby - ray) * ny)
        if b < n:
            mu[k] = math.sqrt(friction[a] * friction[b])
            count = max(body_iterations[a], body_iterations[b])
        else:
            mu[k] = friction[a]
            count = body_iterations[a]
        rigid[k] = wm[a] == 0.0 or wm[b] == 0.0
        passes[k] = count if count > 0 else iterations
        most = max(most, passes[k])

    moved = np.zeros((n + 1, 2))
    turned = np.zeros(n + 1)
    turn = np.empty((n + 1, 2))
    gap = np.empty(m)
    spring_mass = np.zeros(3)
    limit = MAX_TURN / h
    for _ in range(substeps):
        for i in range(n):
            if moving[i]:
                v[i, 0] += h * gravity_x
                v[i, 1] += h * gravity_y
        # warm start
        for k in range(m):
            a = c_a[k]
            b = b_of[k]
            px = c_normal_impulse[k] * c_normal[k, 0] + c_tangent_impulse[k] * c_normal[k, 1]
            py = c_normal_impulse[k] * c_normal[k, 1] - c_tangent_impulse[k] * c_normal[k, 0]
            v[a, 0] -= wm[a] * px
            v[a, 1] -= wm[a] * py
            w[a] -= wi[a] * (anchor[k, 0] * py - anchor[k, 1] * px)
            v[b, 0] += wm[b] * px
            v[b, 1] += wm[b] * py
            w[b] += wi[b] * (anchor[k, 2] * py - anchor[k, 3] * px)
        _measure_gaps(c_a, b_of, c_normal, anchor, base, moved, turned, turn, gap)
        for it in range(most):
            _solve(
                it,
                True,
                h,
                c_a,
                b_of,
                c_normal,
                c_normal_impulse,
                c_tangent_impulse,
                anchor,
                normal_mass,
                tangent_mass,
                mu,
                passes,
                rigid,
                gap,
                v,
                w,
                wm,
                wi,
                correction,
                slop,
                percent,
                contact_soft,
                static_soft,
                push_speed,
            )
            if spring_body >= 0:
                _pull(spring, spring_body, spring_mass, it == 0, h, pos, angle, v, w, wm, wi)
        # positions (the walls move too)
        for i in range(n + 1):
            if i < n and not moving[i]:
                continue
            speed = math.hypot(v[i, 0], v[i, 1])
            if speed > MAX_SPEED:
                v[i, 0] *= MAX_SPEED / speed
                v[i, 1] *= MAX_SPEED / speed
            w[i] = min(max(w[i], -limit), limit)
            moved[i, 0] += h * v[i, 0]
            moved[i, 1] += h * v[i, 1]
            turned[i] += h * w[i]
            if i < n:
                pos[i, 0] += h * v[i, 0]
                pos[i, 1] += h * v[i, 1]
                angle[i] += h * w[i]
        if correction == SOFT:
            # one relax pass over every point, without bias: takes the soft push back out of the velocities
            _measure_gaps(c_a, b_of, c_normal, anchor, base, moved, turned, turn, gap)
            _solve(
                0,
                False,
                h,
                c_a,
                b_of,
                c_normal,
                c_normal_impulse,
                c_tangent_impulse,
                anchor,
                normal_mass,
                tangent_mass,
                mu,
                passes,
                rigid,
                gap,
                v,
                w,
                wm,
                wi,
                correction,
                slop,
                percent,
                contact_soft,
                static_soft,
                push_speed,
            )
        elif correction == SPLIT:
            _push_apart(c_a, b_of, c_normal, anchor, base, moved, turned, pos, wm, n, slop, percent)
    _measure_gaps(c_a, b_of, c_normal, anchor, base, moved, turned, turn, c_gap)
    for i in range(n):
        if moving[i]:
            vel[i, 0] = v[i, 0]
            vel[i, 1] = v[i, 1]
            omega[i] = w[i]


@numba.njit(cache=True)
def _push_apart(
    c_a: npt.NDArray[np.int64],
    c_b: npt.NDArray[np.int64],
    normal: npt.NDArray[np.float64],
    anchor: npt.NDArray[np.float64],
    base: npt.NDArray[np.float64],
    moved: npt.NDArray[np.float64],
    turned: npt.NDArray[np.float64],
    pos: npt.NDArray[np.float64],
    wm: npt.NDArray[np.float64],
    n: int,
    slop: float,
    percent: float,
) -> None:
    """Split impulse: move each overlapping pair apart by ``percent · max(depth − slop, 0) / (w_a + w_b)``
    along the normal, shared by inverse mass; velocities are left as they are. Each point measures
    its gap after the moves of the points before it (Gauss-Seidel), so the two points of one pair do
    not both push the whole way."""
    for k in range(c_a.shape[0]):
        a = c_a[k]
        b = c_b[k]
        total = wm[a] + wm[b]
        if total == 0.0:
            continue
        nx = normal[k, 0]
        ny = normal[k, 1]
        ca = math.cos(turned[a])
        sa = math.sin(turned[a])
        cb = math.cos(turned[b])
        sb = math.sin(turned[b])
        dx = (
            moved[b, 0]
            + cb * anchor[k, 2]
            - sb * anchor[k, 3]
            - (moved[a, 0] + ca * anchor[k, 0] - sa * anchor[k, 1])
        )
        dy = (
            moved[b, 1]
            + sb * anchor[k, 2]
            + cb * anchor[k, 3]
            - (moved[a, 1] + sa * anchor[k, 0] + ca * anchor[k, 1])
        )
        depth = -(dx * nx + dy * ny + base[k]) - slop
        if depth <= 0.0:
            continue
        push = percent * depth / total
        moved[a, 0] -= wm[a] * push * nx
        moved[a, 1] -= wm[a] * push * ny
        moved[b, 0] += wm[b] * push * nx
        moved[b, 1] += wm[b] * push * ny
        pos[a, 0] -= wm[a] * push * nx
        pos[a, 1] -= wm[a] * push * ny
        if b < n:
            pos[b, 0] += wm[b] * push * nx
            pos[b, 1] += wm[b] * push * ny


@numba.njit(cache=True)
def _pull(
    spring: npt.NDArray[np.float64],
    body: int,
    mass: npt.NDArray[np.float64],
    prepare: bool,
    h: float,
    pos: npt.NDArray[np.float64],
    angle: npt.NDArray[np.float64],
    v: npt.NDArray[np.float64],
    w: npt.NDArray[np.float64],
    wm: npt.NDArray[np.float64],
    wi: npt.NDArray[np.float64],
) -> None:
    """The mouse spring: a soft point constraint pulling the body's anchor towards the target.

    It is a spring, not a contact: it keeps its softness and bias in every
    pass and stays out of the relax pass, which would cancel its pull.

    ``mass`` caches the inverse of the 2×2 effective mass (as ``[a, b, c]``
    of the symmetric inverse), recomputed when ``prepare``, which also warm
    starts: the substep's accumulated impulse (clamped to ``max force · h``)
    is applied again before it is refined.
    """
    c = math.cos(angle[body])
    s = math.sin(angle[body])
    rx = c * spring[0] - s * spring[1]
    ry = s * spring[0] + c * spring[1]
    m = wm[body]
    i = wi[body]
    if prepare:
        k11 = m + i * ry * ry
        k12 = -i * rx * ry
        k22 = m + i * rx * rx
        det = k11 * k22 - k12 * k12
        inv_det = 1.0 / det if det != 0.0 else 0.0
        mass[0] = inv_det * k22
        mass[1] = -inv_det * k12
        mass[2] = inv_det * k11
        v[body, 0] += m * spring[7]
        v[body, 1] += m * spring[8]
        w[body] += i * (rx * spring[8] - ry * spring[7])
    rate, mass_scale, impulse_scale = softness(spring[4], spring[5], h)
    bias_x = rate * (pos[body, 0] + rx - spring[2])
    bias_y = rate * (pos[body, 1] + ry - spring[3])
    vx = v[body, 0] - w[body] * ry + bias_x
    vy = v[body, 1] + w[body] * rx + bias_y
    ix = -mass_scale * (mass[0] * vx + mass[1] * vy) - impulse_scale * spring[7]
    iy = -mass_scale * (mass[1] * vx + mass[2] * vy) - impulse_scale * spring[8]
    total_x = spring[7] + ix
    total_y = spring[8] + iy
    most = spring[6] * h
    length = math.hypot(total_x, total_y)
    if length > most:
        total_x *= most / length
        total_y *= most / length
    ix = total_x - spring[7]
    iy = total_y - spring[8]
    spring[7] = total_x
    spring[8] = total_y
    v[body, 0] += m * ix
    v[body, 1] += m * iy
    w[body] += i * (rx * iy - ry * ix)
