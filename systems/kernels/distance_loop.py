"""A substep's iterations in one call, where they are the threads and the walls alone.

A sheet of cloth in a level of its own has two systems with work in its
iterations: the threads' pass (``distance``) and the walls (``bounds``:
the quick test, the clamp only when a point is out). Called one by one
from Python, each iteration costs two kernel calls and two wakings of the
thread pool beside the pass itself: 4 µs of the 80 × 50 sheet's 18 µs.
These kernels run every iteration of the substep in one call, the same
numbers in the same order (``DistanceSystem.fused_iterations``).

On two sides (``relax_rigid_sides``) each thread tests the points of its
own side as soon as it has relaxed them, in the region it relaxed them
in: the wall test then reads what the core has just written, and the pool
wakes once an iteration, not twice. The seam moves points of both sides
after that test, so its ends are tested again once it is done. A point
the first test found out and the seam brought back in only sends the
clamp over points that are all inside, which moves none of them: the
positions are those of the pass, then the test, then the clamp.
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.bounds import clamp_to_bounds
from weft.systems.kernels.distance import NO_DIVISION_CHECK, relax_rigid_distances, relax_rigid_runs
from weft.systems.kernels.distance_sides import SEAM
from weft.systems.kernels.inside_walls import all_inside_walls, inside
from weft.systems.kernels.jit import INNER, kernel_with_threads

Walls = tuple[float, float, float, float, float, float, float, float, float, float]
"""``clamp_to_bounds``'s arguments after the particle arrays: left, bottom, right, top, floor
friction, restitution, friction, rest speed and the walls' velocity (x, y) per step."""


@numba.njit(cache=True, **NO_DIVISION_CHECK)
def iterate_rigid_in_walls(
    iterations: int,
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    kind: npt.NDArray[np.uint8],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
    walls: Walls,
) -> None:
    """``iterations`` times: one ``relax_rigid_distances`` pass, then the points kept inside the
    walls (``clamp_to_bounds`` unless ``all_inside_walls``). Shapes: particle arrays ``(N, 2)`` and
    ``(N,)``, the first ``N`` of the stores; constraint arrays ``(M,)``."""
    for _ in range(iterations):
        relax_rigid_distances(pos, inv_mass, i, j, rest, alive)
        _keep_inside(pos, prev, inv_mass, radius, kind, walls, all_inside_walls(pos, radius, *walls[:4]))


@kernel_with_threads(**NO_DIVISION_CHECK)
def iterate_rigid_sides_in_walls(
    iterations: int,
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    kind: npt.NDArray[np.uint8],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
    runs: npt.NDArray[np.int64],
    parts: npt.NDArray[np.int64],
    split: int,
    walls: Walls,
) -> None:
    """``iterate_rigid_in_walls`` with each pass in two sides at once, then the seam
    (``relax_rigid_sides``: ``runs`` and ``parts`` as there; ``split`` the first particle of side 1).
    Each side's points are tested on the thread that relaxed them, the seam's ends after it."""
    n = pos.shape[0]
    middle = min(split, n)
    left, bottom, right, top = walls[0], walls[1], walls[2], walls[3]
    seam = runs[parts[SEAM] : parts[SEAM + 1]]
    for _ in range(iterations):
        outside = 0  # sides with a point out: an integer sum, the same in any order
        for side in numba.prange(2):
            relax_rigid_runs(pos, inv_mass, i, j, rest, alive, runs[parts[side] : parts[side + 1]])
            first = 0 if side == 0 else middle
            last = middle if side == 0 else n
            held = all_inside_walls(pos[first:last], radius[first:last], left, bottom, right, top)
            outside += 0 if held else 1
        relax_rigid_runs(pos, inv_mass, i, j, rest, alive, seam)
        held = outside == 0 and _ends_inside(pos, radius, i, j, seam, left, bottom, right, top)
        _keep_inside(pos, prev, inv_mass, radius, kind, walls, held)


@numba.njit(cache=True, **INNER)
def _ends_inside(
    pos: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    runs: npt.NDArray[np.int64],
    left: float,
    bottom: float,
    right: float,
    top: float,
) -> bool:
    """Whether both ends of every constraint in ``runs`` are inside the walls (``inside``)."""
    every = True
    for r in range(runs.shape[0]):
        for c in range(runs[r, 0], runs[r, 1]):
            for k in (i[c], j[c]):
                every &= inside(pos[k, 0], pos[k, 1], radius[k], left, bottom, right, top)
    return every


@numba.njit(cache=True, inline="always")
def _keep_inside(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    kind: npt.NDArray[np.uint8],
    walls: Walls,
    held: bool,
) -> None:
    """The clamp, unless every point is ``held`` inside: it would move none (``BoundsSystem``)."""
    if not held:
        clamp_to_bounds(pos, prev, radius, inv_mass, kind, *walls)
