"""Whether every particle is inside the walls: the cheap test before the clamp (``bounds``).

A hanging sheet never meets a wall, yet the clamp looks at each of its
points every iteration (6.4 µs for 4000 points, 0.13 ms of the 80 × 50
sheet's frame at 20 iterations): it branches on each point's kind and
mass. This test reads only positions and radii and branches on nothing,
so numba vectorises it (1.5 µs); when it passes, the clamp would change
nothing and is skipped.

A world relaxed in two sides on two threads (``distance_sides``) is tested
in the same two halves on the same two threads (``all_inside_walls_in_two``):
each core then reads the points it has just moved. Read on the other core,
the 2000 points a side moved cross between the two cores' caches twice an
iteration (there and back for the next pass): 17 µs of a 14 µs pass, and
two threads lost to one (0.76 ms a frame of the 80 × 50 sheet against 0.58).
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.jit import kernel_with_threads


@numba.njit(cache=True, inline="always")
def inside(x: float, y: float, r: float, left: float, bottom: float, right: float, top: float) -> bool:
    """Whether the disc of radius ``r`` at ``(x, y)`` lies within the walls (edges included; not a
    number is not inside). Without branches: the loops that call it stay vectorised."""
    return (left + r <= x) & (x <= right - r) & (bottom + r <= y) & (y <= top - r)


@numba.njit(cache=True)
def all_inside_walls(
    pos: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    left: float,
    bottom: float,
    right: float,
    top: float,
) -> bool:
    """Whether every particle's disc lies within the walls (edges included): then
    ``clamp_to_bounds`` moves none of them. A coordinate that is not a number is not inside, so
    the clamp sees it as before. Shapes: ``pos`` ``(N, 2)``, ``radius`` ``(N,)``."""
    flat = pos.reshape(-1)  # x at 2k, y at 2k + 1: numba vectorises that, not pos[k, 0] with its stride
    every = True
    for k in range(pos.shape[0]):
        every &= inside(flat[2 * k], flat[2 * k + 1], radius[k], left, bottom, right, top)
    return every


@kernel_with_threads
def all_inside_walls_in_two(
    pos: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    left: float,
    bottom: float,
    right: float,
    top: float,
    split: int,
) -> bool:
    """``all_inside_walls``, particles ``[0, split)`` on one thread and the rest on the other."""
    n = pos.shape[0]
    middle = min(split, n)
    outside = 0  # halves with a particle outside: an integer sum, the same in any order
    for half in numba.prange(2):
        first = 0 if half == 0 else middle
        last = middle if half == 0 else n
        outside += 0 if all_inside_walls(pos[first:last], radius[first:last], left, bottom, right, top) else 1
    return outside == 0
