"""Keeping particles inside the level's rectangle."""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt


@numba.njit(cache=True)
def clamp_to_bounds(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    left: float,
    bottom: float,
    right: float,
    top: float,
    floor_friction: float,
) -> None:
    """Put every free particle that left the rectangle back on its edge (inset by its radius).

    On the floor, the Verlet horizontal velocity ``x - prev_x`` is scaled by
    ``1 - floor_friction`` by moving ``prev``: friction without a velocity array.
    Shapes: ``pos``, ``prev`` ``(N, 2)``; ``radius``, ``inv_mass`` ``(N,)``.
    """
    keep = 1.0 - floor_friction
    for k in range(pos.shape[0]):
        if inv_mass[k] == 0.0:
            continue
        r = radius[k]
        x = pos[k, 0]
        y = pos[k, 1]
        if x < left + r:
            pos[k, 0] = left + r
        elif x > right - r:
            pos[k, 0] = right - r
        if y > top - r:
            pos[k, 1] = top - r
        elif y < bottom + r:
            pos[k, 1] = bottom + r
            x = pos[k, 0]
            prev[k, 0] = x - (x - prev[k, 0]) * keep
