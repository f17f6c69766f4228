"""Box positions and turns from their velocities, once a substep (Box2D v3's integration)."""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.jit import INNER

MAX_SPEED = 20000.0
"""px/s: no box moves faster (a sane limit that keeps any setting from overflowing)."""

MAX_TURN = 0.25 * math.pi
"""Radians a box may turn in one substep."""


@numba.njit(cache=True, **INNER)
def integrate_boxes(
    first: int,
    last: int,
    n: int,
    h: float,
    limit: float,
    moving: npt.NDArray[np.bool_],
    body: npt.NDArray[np.float64],
    delta: npt.NDArray[np.float64],
    pos: npt.NDArray[np.float64],
    angle: npt.NDArray[np.float64],
) -> None:
    """Each moving body of ``[first, last)`` moves and turns for ``h`` (its speed and spin clamped);
    the walls (``i == n``) only keep count of their move."""
    for i in range(first, last):
        if i < n and not moving[i]:
            continue
        speed2 = body[i, 0] * body[i, 0] + body[i, 1] * body[i, 1]
        if speed2 > MAX_SPEED * MAX_SPEED:
            scale = MAX_SPEED / math.sqrt(speed2)
            body[i, 0] *= scale
            body[i, 1] *= scale
        body[i, 2] = min(max(body[i, 2], -limit), limit)
        delta[i, 0] += h * body[i, 0]
        delta[i, 1] += h * body[i, 1]
        # the turn so far, as a unit vector turned on by h·ω (Box2D v3's integration; no sine or cosine)
        turn = h * body[i, 2]
        c = delta[i, 2] - turn * delta[i, 3]
        s = delta[i, 3] + turn * delta[i, 2]
        length = math.sqrt(c * c + s * s)
        delta[i, 2] = c / length
        delta[i, 3] = s / length
        if i < n:
            pos[i, 0] += h * body[i, 0]
            pos[i, 1] += h * body[i, 1]
            angle[i] += turn
