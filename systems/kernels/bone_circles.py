"""A ragdoll's bones against circles: a peg between two joints pushes the bone off it.

The joints collide with circles as circles do (``circle_contacts``), but
the bone between them met nothing: dropped onto a row of pegs, a rag doll
came to rest with a peg inside its torso, hung on it by the bones around
it. Each bone is a capsule as thick as its thinner joint
(``box_bones``); a circle whose centre comes nearer its segment than the
two radii is pushed apart from the nearest point of it, at ``t`` along the
bone, as a point on a segment (``box_bones``' rule): with
``w = (1 - t)² w_a + t² w_b``, ``λ = depth / (w + w_c)``, the ends move
``(1 - t) w_a λ n`` and ``t w_b λ n`` and the circle ``-w_c λ n``. At an
end (``t`` 0 or 1) the joint's own contact holds it, so only the bone's
inside is pushed here. A doll's own joints and circles are not pushed off
its bones.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.bounds import CIRCLE


@numba.njit(cache=True)
def push_bones_off_circles(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    kind: npt.NDArray[np.uint8],
    owner: npt.NDArray[np.int64],
    heads: npt.NDArray[np.int64],
    tails: npt.NDArray[np.int64],
    bone_radius: npt.NDArray[np.float64],
) -> int:
    """One pass: every circle (``kind`` ``CIRCLE``, of another body than the bone's) that reaches a
    bone pushed off it and the bone off it; returns how many were. A bone's bounds, from its ends as
    they are, keep the far circles to four comparisons each."""
    pushed = 0
    for b in range(heads.shape[0]):
        a, c = heads[b], tails[b]
        doll = owner[a]
        r = bone_radius[b]
        ax, ay = pos[a, 0], pos[a, 1]
        x0, x1 = min(ax, pos[c, 0]), max(ax, pos[c, 0])
        y0, y1 = min(ay, pos[c, 1]), max(ay, pos[c, 1])
        for k in range(pos.shape[0]):
            if kind[k] != CIRCLE or owner[k] == doll:
                continue
            reach = radius[k] + r
            x, y = pos[k, 0], pos[k, 1]
            if x < x0 - reach or x > x1 + reach or y < y0 - reach or y > y1 + reach:
                continue
            ax, ay = pos[a, 0], pos[a, 1]  # moved by the circle before
            ex, ey = pos[c, 0] - ax, pos[c, 1] - ay
            length2 = ex * ex + ey * ey
            if length2 < 1e-18:
                continue
            t = ((x - ax) * ex + (y - ay) * ey) / length2
            if t <= 0.0 or t >= 1.0:
                continue  # nearest at an end: the joint's own contact
            dx = ax + t * ex - x
            dy = ay + t * ey - y
            gap = math.hypot(dx, dy)
            if gap >= reach or gap < 1e-12:
                continue
            nx, ny = dx / gap, dy / gap
            wa = (1.0 - t) * inv_mass[a]
            wc = t * inv_mass[c]
            w = (1.0 - t) * wa + t * wc
            if w + inv_mass[k] == 0.0:
                continue
            share = (reach - gap) / (w + inv_mass[k])
            pos[a, 0] += wa * share * nx
            pos[a, 1] += wa * share * ny
            pos[c, 0] += wc * share * nx
            pos[c, 1] += wc * share * ny
            pos[k, 0] -= inv_mass[k] * share * nx
            pos[k, 1] -= inv_mass[k] * share * ny
            pushed += 1
    return pushed
