"""Angle limits at a ragdoll's joints: elbows and knees bend one way, within a range.

A joint is a particle triple (a, b, c): b is the joint, a-b the parent
bone, b-c the child bone. Its angle is the signed turn from the parent
bone's direction to the child's,

    θ = atan2(u × v, u · v),   u = b - a,   v = c - b,

in (-π, π], counter-clockwise positive (y up): 0 for a straight limb,
±π folded flat. Measuring from the parent's direction, rather than from
b→a, keeps the wrap-around at the fold, which no limb's range includes,
instead of at the straight pose, which most do. Limits ``low <= high``
lie in [-π, π]; a range through the fold is not supported.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.jit import INNER

NEWTON_STEPS = 16
"""Enough for the worst start (a joint π out of range) at ``MAX_TURN`` per step plus a few to converge."""

MAX_TURN = 0.5
"""rad: the most one linearised step turns. The projection is linear in positions, and a turn of
θ moves a bone's end off its circle by about θ²/2 of its length: small steps stay near the circle."""

CONVERGED = 1e-12
"""rad, and relative length: well below anything visible, well above rounding (about 1e-16)."""


@numba.njit(cache=True, **INNER)
def wrap_angle(angle: float) -> float:
    """``angle`` brought into (-π, π]."""
    return angle - 2.0 * math.pi * math.ceil((angle - math.pi) / (2.0 * math.pi))


@numba.njit(cache=True, **INNER)
def joint_angle(pos: npt.NDArray[np.float64], a: int, b: int, c: int) -> float:
    """θ of the joint (a, b, c), radians (see the module's docstring)."""
    ux = pos[b, 0] - pos[a, 0]
    uy = pos[b, 1] - pos[a, 1]
    vx = pos[c, 0] - pos[b, 0]
    vy = pos[c, 1] - pos[b, 1]
    return math.atan2(ux * vy - uy * vx, ux * vx + uy * vy)


@numba.njit(cache=True)
def joint_angles(
    pos: npt.NDArray[np.float64],
    a: npt.NDArray[np.int64],
    b: npt.NDArray[np.int64],
    c: npt.NDArray[np.int64],
    out: npt.NDArray[np.float64],
) -> None:
    """θ of every joint into ``out`` ``(j,)``: how far each is bent (the tests check limits with it)."""
    for j in range(a.shape[0]):
        out[j] = joint_angle(pos, a[j], b[j], c[j])


@numba.njit(cache=True, **INNER)
def limit_joint_angles(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    a: npt.NDArray[np.int64],
    b: npt.NDArray[np.int64],
    c: npt.NDArray[np.int64],
    low: npt.NDArray[np.float64],
    high: npt.NDArray[np.float64],
) -> float:
    """Bring every joint's angle back into [low, high], Gauss-Seidel in joint order; return the
    largest violation found, rad.

    A joint out of range goes to its nearer limit (round the circle). The
    move is the smallest in the mass-weighted sense that turns the joint
    there and keeps both bone lengths as they were: a PBD projection of
    the three constraints together,

        C = (θ - θ_limit, |u| - |u|₀, |v| - |v|₀),   Δx = W Jᵀ λ,   (J W Jᵀ) λ = -C,

    with ``J`` the constraints' gradients and ``W`` the inverse masses
    (Müller et al. 2007, for constraints solved as a block). Projecting the
    angle alone would slide the joint along its bones and change their
    lengths to first order; with the lengths in the block the outer
    particles swing about the joint and the joint itself moves only as its
    mass allows. Each step is linear, so it repeats (Newton) until C
    vanishes, at most ``MAX_TURN`` rad at a time: lengths are kept exactly
    (to 1e-12), not only to first order. Pinned particles (inverse mass 0)
    never move; a joint that cannot turn without changing a length (both
    outer particles pinned) is left as it is.
    Shapes: ``pos`` ``(N, 2)``; ``inv_mass`` ``(N,)``; the rest ``(j,)``.
    """
    worst = 0.0
    for j in range(a.shape[0]):
        ia = a[j]
        ib = b[j]
        ic = c[j]
        theta = joint_angle(pos, ia, ib, ic)
        if low[j] <= theta <= high[j]:
            continue
        to_low = wrap_angle(low[j] - theta)
        to_high = wrap_angle(high[j] - theta)
        target = low[j] if abs(to_low) <= abs(to_high) else high[j]
        worst = max(worst, min(abs(to_low), abs(to_high)))
        wa = inv_mass[ia]
        wb = inv_mass[ib]
        wc = inv_mass[ic]
        rest_u = math.hypot(pos[ib, 0] - pos[ia, 0], pos[ib, 1] - pos[ia, 1])
        rest_v = math.hypot(pos[ic, 0] - pos[ib, 0], pos[ic, 1] - pos[ib, 1])
        if rest_u < 1e-9 or rest_v < 1e-9:
            continue  # a bone of no length has no direction to limit
        for _ in range(NEWTON_STEPS):
            ux = pos[ib, 0] - pos[ia, 0]
            uy = pos[ib, 1] - pos[ia, 1]
            vx = pos[ic, 0] - pos[ib, 0]
            vy = pos[ic, 1] - pos[ib, 1]
            lu2 = ux * ux + uy * uy
            lv2 = vx * vx + vy * vy
            lu = math.sqrt(lu2)
            lv = math.sqrt(lv2)
            c_theta = wrap_angle(math.atan2(ux * vy - uy * vx, ux * vx + uy * vy) - target)
            c_u = lu - rest_u
            c_v = lv - rest_v
            if abs(c_theta) < CONVERGED and abs(c_u) < CONVERGED * rest_u and abs(c_v) < CONVERGED * rest_v:
                break
            c_theta = min(MAX_TURN, max(-MAX_TURN, c_theta))
            # gradients: ∂θ/∂a = u⊥/|u|², ∂θ/∂c = v⊥/|v|², ∂θ/∂b = -(both) (x⊥ = x turned +90°);
            # ∂|u|/∂b = û = -∂|u|/∂a, ∂|v|/∂c = v̂ = -∂|v|/∂b
            gax = -uy / lu2
            gay = ux / lu2
            gcx = -vy / lv2
            gcy = vx / lv2
            gbx = -gax - gcx
            gby = -gay - gcy
            hux = ux / lu
            huy = uy / lu
            hvx = vx / lv
            hvy = vy / lv
            # J W Jᵀ (the θ gradient at a is perpendicular to u, at c to v: those products vanish)
            k_tt = wa * (gax * gax + gay * gay) + wb * (gbx * gbx + gby * gby) + wc * (gcx * gcx + gcy * gcy)
            k_uu = wa + wb
            k_vv = wb + wc
            k_tu = wb * (gbx * hux + gby * huy)
            k_tv = -wb * (gbx * hvx + gby * hvy)
            k_uv = -wb * (hux * hvx + huy * hvy)
            r_t = -c_theta
            r_u = -c_u
            r_v = -c_v
            if k_tt <= 0.0:
                break
            # a length no free particle can change holds by itself: drop its row
            if k_uu == 0.0:
                k_uu, k_tu, k_uv, r_u = 1.0, 0.0, 0.0, 0.0
            if k_vv == 0.0:
                k_vv, k_tv, k_uv, r_v = 1.0, 0.0, 0.0, 0.0
            det = (
                k_tt * (k_uu * k_vv - k_uv * k_uv)
                - k_tu * (k_tu * k_vv - k_uv * k_tv)
                + k_tv * (k_tu * k_uv - k_uu * k_tv)
            )
            if abs(det) <= 1e-9 * k_tt * k_uu * k_vv:
                break  # no move turns the joint and keeps both lengths
            # Cramer's rule on the symmetric 3×3 system
            lam_t = (
                r_t * (k_uu * k_vv - k_uv * k_uv)
                - k_tu * (r_u * k_vv - k_uv * r_v)
                + k_tv * (r_u * k_uv - k_uu * r_v)
            ) / det
            lam_u = (
                k_tt * (r_u * k_vv - k_uv * r_v)
                - r_t * (k_tu * k_vv - k_uv * k_tv)
                + k_tv * (k_tu * r_v - r_u * k_tv)
            ) / det
            lam_v = (
                k_tt * (k_uu * r_v - r_u * k_uv)
                - k_tu * (k_tu * r_v - r_u * k_tv)
                + r_t * (k_tu * k_uv - k_uu * k_tv)
            ) / det
            pos[ia, 0] += wa * (lam_t * gax - lam_u * hux)
            pos[ia, 1] += wa * (lam_t * gay - lam_u * huy)
            pos[ib, 0] += wb * (lam_t * gbx + lam_u * hux - lam_v * hvx)
            pos[ib, 1] += wb * (lam_t * gby + lam_u * huy - lam_v * hvy)
            pos[ic, 0] += wc * (lam_t * gcx + lam_v * hvx)
            pos[ic, 1] += wc * (lam_t * gcy + lam_v * hvy)
    return worst


@numba.njit(cache=True)
def sweep_joint_limits(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    a: npt.NDArray[np.int64],
    b: npt.NDArray[np.int64],
    c: npt.NDArray[np.int64],
    low: npt.NDArray[np.float64],
    high: npt.NDArray[np.float64],
    first: int,
    last: int,
    sweeps: int,
    settled: float,
    runaway: float,
) -> float:
    """``limit_joint_angles`` swept up to ``sweeps`` times, as joints share particles and righting
    one can push a neighbour out; returns the last sweep's largest violation, rad.

    The sweeps end once one finds no joint more than ``settled`` out, or
    once one moves a particle of the doll (rows ``[first, last)``) more
    than ``runaway`` px and more than the sweep before: that sweep is
    undone, as the sweeps are not converging (limits that a held joint and
    the links leave unmeetable for now: each sweep moved the pelvis
    farther, 78 px, 159, 213, ... 51 000, and the doll was flung from corner
    to corner). Converging sweeps move particles less each time.
    """
    # the doll's rows as the last sweep left them (loops, not slices: numba compiles array
    # expressions slowly, 3.6 s for this kernel with them)
    before = np.empty((last - first, 2))
    for k in range(first, last):
        before[k - first, 0] = pos[k, 0]
        before[k - first, 1] = pos[k, 1]
    moved = math.inf
    worst = 0.0
    for _ in range(sweeps):
        worst = limit_joint_angles(pos, inv_mass, a, b, c, low, high)
        if worst < settled:
            break
        move = 0.0
        for k in range(first, last):
            move = max(move, abs(pos[k, 0] - before[k - first, 0]))
            move = max(move, abs(pos[k, 1] - before[k - first, 1]))
        runaway_sweep = move > moved and move > runaway
        for k in range(first, last):
            if runaway_sweep:  # undone
                pos[k, 0] = before[k - first, 0]
                pos[k, 1] = before[k - first, 1]
            else:
                before[k - first, 0] = pos[k, 0]
                before[k - first, 1] = pos[k, 1]
        if runaway_sweep:
            break
        moved = move
    return worst
