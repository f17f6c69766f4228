"""The mouse joint: a soft point constraint pulling a held box's anchor to the cursor."""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.box_softness import softness
from weft.systems.kernels.jit import INNER

ANCHOR_X, ANCHOR_Y, TARGET_X, TARGET_Y, HERTZ, DAMPING_RATIO, MAX_FORCE, IMPULSE_X, IMPULSE_Y = range(9)
"""The mouse spring's fields: the anchor (px in the held box's own frame), the target (the cursor,
px), its stiffness and damping ratio, the most force it pulls with, and its accumulated impulse
(carried from substep to substep and frame to frame while the same box is held)."""
SPRING_FIELDS = 9


@numba.njit(cache=True, **INNER)
def pull_mouse_spring(
    spring: npt.NDArray[np.float64],
    held: int,
    mass: npt.NDArray[np.float64],
    prepare: bool,
    h: float,
    pos: npt.NDArray[np.float64],
    angle: npt.NDArray[np.float64],
    body: npt.NDArray[np.float64],
    inverse: npt.NDArray[np.float64],
) -> None:
    """The mouse spring: a soft point constraint pulling box ``held``'s anchor towards the target.

    It is a spring, not a contact: it keeps its softness and bias in every
    pass and stays out of the relax pass, which would cancel its pull.

    ``spring`` holds the fields above (``SPRING_FIELDS``). ``mass`` caches
    the inverse of the 2×2 effective mass (as ``[a, b, c]`` of the
    symmetric inverse), recomputed when ``prepare``, which also warm starts:
    the substep's accumulated impulse (clamped to ``max force · h``) is
    applied again before it is refined.
    """
    c = math.cos(angle[held])
    s = math.sin(angle[held])
    rx = c * spring[ANCHOR_X] - s * spring[ANCHOR_Y]
    ry = s * spring[ANCHOR_X] + c * spring[ANCHOR_Y]
    m = inverse[held, 0]
    i = inverse[held, 1]
    if prepare:
        k11 = m + i * ry * ry
        k12 = -i * rx * ry
        k22 = m + i * rx * rx
        det = k11 * k22 - k12 * k12
        inv_det = 1.0 / det if det != 0.0 else 0.0
        mass[0] = inv_det * k22
        mass[1] = -inv_det * k12
        mass[2] = inv_det * k11
        body[held, 0] += m * spring[IMPULSE_X]
        body[held, 1] += m * spring[IMPULSE_Y]
        body[held, 2] += i * (rx * spring[IMPULSE_Y] - ry * spring[IMPULSE_X])
    rate, mass_scale, impulse_scale = softness(spring[HERTZ], spring[DAMPING_RATIO], h)
    bias_x = rate * (pos[held, 0] + rx - spring[TARGET_X])
    bias_y = rate * (pos[held, 1] + ry - spring[TARGET_Y])
    vx = body[held, 0] - body[held, 2] * ry + bias_x
    vy = body[held, 1] + body[held, 2] * rx + bias_y
    ix = -mass_scale * (mass[0] * vx + mass[1] * vy) - impulse_scale * spring[IMPULSE_X]
    iy = -mass_scale * (mass[1] * vx + mass[2] * vy) - impulse_scale * spring[IMPULSE_Y]
    total_x = spring[IMPULSE_X] + ix
    total_y = spring[IMPULSE_Y] + iy
    most = spring[MAX_FORCE] * h
    length = math.hypot(total_x, total_y)
    if length > most:
        total_x *= most / length
        total_y *= most / length
    ix = total_x - spring[IMPULSE_X]
    iy = total_y - spring[IMPULSE_Y]
    spring[IMPULSE_X] = total_x
    spring[IMPULSE_Y] = total_y
    body[held, 0] += m * ix
    body[held, 1] += m * iy
    body[held, 2] += i * (rx * iy - ry * ix)
