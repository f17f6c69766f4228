"""The mouse joint: a soft point constraint pulling a held box's anchor to the cursor."""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.box_softness import softness


@numba.njit(cache=True)
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

    ``mass`` caches the inverse of the 2×2 effective mass (as ``[a, b, c]``
    of the symmetric inverse), recomputed when ``prepare``, which also warm
    starts: the substep's accumulated impulse (clamped to ``max force · h``)
    is applied again before it is refined.
    """
    c = math.cos(angle[held])
    s = math.sin(angle[held])
    rx = c * spring[0] - s * spring[1]
    ry = s * spring[0] + c * spring[1]
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
        body[held, 0] += m * spring[7]
        body[held, 1] += m * spring[8]
        body[held, 2] += i * (rx * spring[8] - ry * spring[7])
    rate, mass_scale, impulse_scale = softness(spring[4], spring[5], h)
    bias_x = rate * (pos[held, 0] + rx - spring[2])
    bias_y = rate * (pos[held, 1] + ry - spring[3])
    vx = body[held, 0] - body[held, 2] * ry + bias_x
    vy = body[held, 1] + body[held, 2] * rx + bias_y
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
    body[held, 0] += m * ix
    body[held, 1] += m * iy
    body[held, 2] += i * (rx * iy - ry * ix)
