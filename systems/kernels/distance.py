"""Gauss-Seidel relaxation of distance constraints (PBD, and XPBD when compliant)."""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

MAX_ONLY = 1  # DistanceMode.MAX_ONLY: a rope, it pulls but never pushes


@numba.njit(cache=True)
def relax_rigid_distances(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
) -> None:
    """One PBD pass when every constraint is rigid and two-way: ``relax_distances`` with compliance 0.

    The same projection, ``p_i += w_i s d``, ``p_j -= w_j s d`` with
    ``d = p_i - p_j`` and ``s = (rest - |d|) / ((w_i + w_j) |d|)``, without
    reading the compliance, multiplier and mode arrays: about twice as fast
    on a cloth, and bit-identical to the general kernel (a test holds them to it).
    """
    for c in range(i.shape[0]):
        if not alive[c]:
            continue
        a = i[c]
        b = j[c]
        wa = inv_mass[a]
        wb = inv_mass[b]
        w = wa + wb
        if w == 0.0:
            continue
        dx = pos[a, 0] - pos[b, 0]
        dy = pos[a, 1] - pos[b, 1]
        length = math.sqrt(dx * dx + dy * dy)
        if length < 1e-12:  # coincident points have no direction to push along
            continue
        s = (rest[c] - length) / (w * length)
        sx = s * dx
        sy = s * dy
        pos[a, 0] += wa * sx
        pos[a, 1] += wa * sy
        pos[b, 0] -= wb * sx
        pos[b, 1] -= wb * sy


@numba.njit(cache=True)
def relax_distances(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    compliance: npt.NDArray[np.float64],
    lam: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
    mode: npt.NDArray[np.uint8],
    dt: float,
) -> None:
    """One Gauss-Seidel pass over the alive constraints, in index order.

    For ``C = |p_i - p_j| - rest`` and ``n = (p_i - p_j) / |p_i - p_j|``,
    XPBD (Macklin, Müller, Chentanez 2016) gives, with ``α̃ = compliance / dt²``,

        Δλ = (-C - α̃ λ) / (w_i + w_j + α̃),   p_i += w_i Δλ n,   p_j -= w_j Δλ n

    and accumulates ``λ`` over the iterations of a substep. With compliance 0
    this is plain PBD projection (Jakobsen 2001): each end moves its
    inverse-mass share of the error, and a pinned end (w = 0) stays put.
    Shapes: ``pos`` ``(N, 2)``; every constraint array ``(M,)``.
    """
    inv_dt2 = 1.0 / (dt * dt)
    for c in range(i.shape[0]):
        if not alive[c]:
            continue
        a = i[c]
        b = j[c]
        wa = inv_mass[a]
        wb = inv_mass[b]
        w = wa + wb
        if w == 0.0:
            continue
        dx = pos[a, 0] - pos[b, 0]
        dy = pos[a, 1] - pos[b, 1]
        length = math.sqrt(dx * dx + dy * dy)
        if length < 1e-12:  # coincident points have no direction to push along
            continue
        error = length - rest[c]
        if mode[c] == MAX_ONLY and error <= 0.0:
            continue
        alpha = compliance[c] * inv_dt2
        if alpha == 0.0:
            s = (rest[c] - length) / (w * length)
        else:
            dlam = (-error - alpha * lam[c]) / (w + alpha)
            lam[c] += dlam
            s = dlam / length
        sx = s * dx
        sy = s * dy
        pos[a, 0] += wa * sx
        pos[a, 1] += wa * sy
        pos[b, 0] -= wb * sx
        pos[b, 1] -= wb * sy
