"""Which cells of a sheet are cloth, and the two triangles each is drawn with."""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.jit import INNER


@numba.njit(cache=True, **INNER)
def _twice_area(pos: npt.NDArray[np.float64], p: int, q: int, r: int) -> float:
    """Twice the signed area of triangle (p, q, r): positive counter-clockwise."""
    ux = pos[q, 0] - pos[p, 0]
    uy = pos[q, 1] - pos[p, 1]
    vx = pos[r, 0] - pos[p, 0]
    vy = pos[r, 1] - pos[p, 1]
    return ux * vy - uy * vx


@numba.njit(cache=True)
def weave_cells(
    pos: npt.NDArray[np.float64],
    cells: npt.NDArray[np.int64],
    sides: npt.NDArray[np.int64],
    alive: npt.NDArray[np.bool_],
    triangles: npt.NDArray[np.int64],
    area: npt.NDArray[np.float64],
) -> int:
    """Write two triangles per cell whose four ``sides`` are alive into ``triangles``; return how many cells.

    Corners ``a b c d`` (top-left, top-right, bottom-left, bottom-right)
    split along a-d into (a, b, d), (a, d, c), unless those two face
    opposite ways (signs of their areas differ) where the split along b-c,
    (a, b, c), (b, d, c), does not: a cell folded into a dart. ``area[k]``
    is twice the unsigned area of drawn cell ``k`` (the sum over its two
    triangles). Shapes: ``cells``, ``sides`` ``(C, 4)``; ``triangles``
    ``(2C, 3)``, filled in pairs; ``area`` ``(C,)``.
    """
    drawn = 0
    for k in range(cells.shape[0]):
        if not (alive[sides[k, 0]] and alive[sides[k, 1]] and alive[sides[k, 2]] and alive[sides[k, 3]]):
            continue
        a = cells[k, 0]
        b = cells[k, 1]
        c = cells[k, 2]
        d = cells[k, 3]
        first = _twice_area(pos, a, b, d)
        second = _twice_area(pos, a, d, c)
        row = 2 * drawn
        if (first < 0.0) != (second < 0.0):
            other_first = _twice_area(pos, a, b, c)
            other_second = _twice_area(pos, b, d, c)
            if (other_first < 0.0) == (other_second < 0.0):
                triangles[row, 0], triangles[row, 1], triangles[row, 2] = a, b, c
                triangles[row + 1, 0], triangles[row + 1, 1], triangles[row + 1, 2] = b, d, c
                area[drawn] = abs(other_first) + abs(other_second)
                drawn += 1
                continue
        triangles[row, 0], triangles[row, 1], triangles[row, 2] = a, b, d
        triangles[row + 1, 0], triangles[row + 1, 1], triangles[row + 1, 2] = a, d, c
        area[drawn] = abs(first) + abs(second)
        drawn += 1
    return drawn


@numba.njit(cache=True)
def same_triangles(triangles: npt.NDArray[np.int64], drawn: npt.NDArray[np.int64]) -> bool:
    """Whether ``triangles`` ``(T, 3)`` are ``drawn`` ``(T', 3)``, corner by corner: the index buffer
    is rewritten only when not (one loop that stops at the first difference, where numpy's
    ``array_equal`` compared every corner into a new array: 0.1 ms a frame of the default sheet)."""
    if triangles.shape[0] != drawn.shape[0]:
        return False
    for t in range(triangles.shape[0]):
        for k in range(3):
            if triangles[t, k] != drawn[t, k]:
                return False
    return True
