"""Pushing overlapping particles apart, with position-based Coulomb friction."""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt


@numba.njit(cache=True)
def collide_pairs(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    pair_i: npt.NDArray[np.uint32],
    pair_j: npt.NDArray[np.uint32],
    friction: float,
) -> None:
    """One Gauss-Seidel pass over the candidate pairs: separate every overlapping pair.

    Along the line of centres ``n``, an overlap ``d = r_a + r_b - |p_a - p_b|``
    moves a by ``+w_a / (w_a + w_b) · d · n`` and b by the opposite share
    (PBD contact; no bounce: inelastic by construction). Friction then
    removes the pair's relative tangential motion over the substep, at most
    ``friction · d`` of it (Macklin et al. 2014, "Unified particle physics"):
    small slips stop entirely (static), large ones are slowed (kinetic).
    Shapes: ``pos``, ``prev`` ``(N, 2)``; pairs ``(P,)``.
    """
    for p in range(pair_i.shape[0]):
        a = pair_i[p]
        b = pair_j[p]
        wa = inv_mass[a]
        wb = inv_mass[b]
        w = wa + wb
        if w == 0.0:
            continue
        dx = pos[a, 0] - pos[b, 0]
        dy = pos[a, 1] - pos[b, 1]
        reach = radius[a] + radius[b]
        dist2 = dx * dx + dy * dy
        if dist2 >= reach * reach:
            continue
        dist = math.sqrt(dist2)
        if dist < 1e-9:  # exactly on top of each other: part them vertically, the same way every run
            dx, dy, dist, dist2 = 0.0, 1.0, 1.0, 1.0
        depth = reach - dist
        # one division: the shares of both ends, already scaled by 1 / |d|
        scale = depth / (w * dist)
        sa = wa * scale
        sb = wb * scale
        pos[a, 0] += sa * dx
        pos[a, 1] += sa * dy
        pos[b, 0] -= sb * dx
        pos[b, 1] -= sb * dy
        if friction <= 0.0:
            continue
        # relative motion over the substep, less its normal part (n = d / |d|)
        rx = (pos[a, 0] - prev[a, 0]) - (pos[b, 0] - prev[b, 0])
        ry = (pos[a, 1] - prev[a, 1]) - (pos[b, 1] - prev[b, 1])
        along = (rx * dx + ry * dy) / dist2 if dist2 > 0.0 else 0.0
        tx = rx - along * dx
        ty = ry - along * dy
        slip2 = tx * tx + ty * ty
        limit = friction * depth
        # static friction removes a small slip entirely, kinetic friction at most ``limit`` of a large one
        keep = 1.0 if slip2 <= limit * limit else limit / math.sqrt(slip2)
        fa = wa / w * keep
        fb = wb / w * keep
        pos[a, 0] -= fa * tx
        pos[a, 1] -= fa * ty
        pos[b, 0] += fb * tx
        pos[b, 1] += fb * ty
