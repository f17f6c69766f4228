"""Breaking threads: by overload, by a cut stroke, and with the threads they lean on."""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt


@numba.njit(cache=True)
def tear_overstretched(
    pos: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    tear_ratio: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
) -> int:
    """Kill every alive thread longer than ``tear_ratio * rest``; return how many broke.

    Run after relaxation: a thread still that long carries a load the
    solver could not spread, and once it goes its load falls on the
    neighbours, so tears run along the line of stress.
    """
    torn = 0
    for c in range(i.shape[0]):
        if not alive[c] or math.isinf(tear_ratio[c]):
            continue
        dx = pos[i[c], 0] - pos[j[c], 0]
        dy = pos[i[c], 1] - pos[j[c], 1]
        limit = tear_ratio[c] * rest[c]
        if dx * dx + dy * dy > limit * limit:
            alive[c] = False
            torn += 1
    return torn


@numba.njit(cache=True)
def kill_orphans(alive: npt.NDArray[np.bool_], parents: npt.NDArray[np.int64]) -> int:
    """Kill every alive thread that leans on a dead one (``parents`` ``(M, 4)``, -1 unused).

    Shear and bend threads never tear on their own; without this a torn
    sheet would stay joined by its invisible diagonals.
    """
    killed = 0
    for c in range(alive.shape[0]):
        if not alive[c]:
            continue
        for slot in range(parents.shape[1]):
            p = parents[c, slot]
            if p >= 0 and not alive[p]:
                alive[c] = False
                killed += 1
                break
    return killed


@numba.njit(cache=True)
def _side(ax: float, ay: float, bx: float, by: float, px: float, py: float) -> float:
    """Twice the signed area of triangle (a, b, p): which side of line ab p lies on."""
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax)


@numba.njit(cache=True)
def cut_crossing(
    pos: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    alive: npt.NDArray[np.bool_],
    x0: float,
    y0: float,
    x1: float,
    y1: float,
) -> int:
    """Kill every alive thread that crosses the segment (x0, y0)-(x1, y1); return how many.

    Two segments cross when each one's ends lie on opposite sides of the
    other's line (a touch at an end counts).
    """
    cut = 0
    for c in range(i.shape[0]):
        if not alive[c]:
            continue
        px = pos[i[c], 0]
        py = pos[i[c], 1]
        qx = pos[j[c], 0]
        qy = pos[j[c], 1]
        if _side(x0, y0, x1, y1, px, py) * _side(x0, y0, x1, y1, qx, qy) > 0.0:
            continue
        if _side(px, py, qx, qy, x0, y0) * _side(px, py, qx, qy, x1, y1) > 0.0:
            continue
        alive[c] = False
        cut += 1
    return cut
