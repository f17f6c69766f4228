"""A substep's iterations in one call, where they are the threads and the walls alone.

A sheet of cloth in a level of its own has two systems with work in its
iterations: the threads' pass (``distance``) and the walls (``bounds``:
the quick test, the clamp only when a point is out). Called one by one
from Python, each iteration costs two kernel calls and two wakings of the
thread pool beside the pass itself: 4 µs of the 80 × 50 sheet's 18 µs.
These kernels run every iteration of the substep in one call, the same
numbers in the same order (``DistanceSystem.fused_iterations``).

On two sides (``relax_rigid_sides``) the iterations are one list of
items, taken by whichever thread is free (``claims``): the pool starts and
joins once a call, not once a pass (2 µs each: 40 µs of the sheet's
frame), and a worker still waking when the call starts joins in where the
work has got to. The 80 × 50 sheet's call, taking turns with pymunk's
frame, took 0.34 to 0.36 ms on two threads where twenty joins took 0.41
with the workers asleep when it starts (``WORKER_SPIN``), 0.29 against
0.33 with them spinning through pymunk's frame (GNU OpenMP's default),
and 0.45 to 0.46 against 0.49 on one thread; the same bits in all. Each
side's item tests the points it has just relaxed, on the core that wrote
them. The seam moves points of both sides after that test, so its ends
are tested again once it is done. A point
the first test found out and the seam brought back in only sends the
clamp over points that are all inside, which moves none of them: the
positions are those of the pass, then the test, then the clamp.

Taken back (2026-12-06, the Xeon), and to be tried again: the passes
pipelined, each side cut again at the seam's ends so that side 0 waits
for the seam before only at its last rows and side 1 only at its first,
and each side clamping its own points but the seam's ends (the same
bits). Interleaved with this kernel in one process, taking turns with
pymunk's frame, it took 331 to 350 µs against 326 to 379: every pass
still ends with a wall test (1 µs a side) and the seam (1.2 µs) on one
thread's path, and only the wait's few hundred ns go. (A prototype that
seemed 35 µs faster had lost its wall tests: their results unused, LLVM
removed them.)

That measure was wrong (found 2026-12-06, later). The kernel compiled
second in that process had numba's plain ``parallel=True``
(``jit.ONLY_PRANGE`` was a dict numba empties: every kernel but a
process's first turned its ``np.zeros`` into threaded loops). With that
fixed, each tree in its own process with its own cache, alternated seven
times: the pipelined call (ab80298^) took 325 to 331 µs against 338 to
350 for the one before it (1d81167^), the frame 444 to 455 µs against
458 to 477 (one run of the latter, in a slow spell, 477 and 594). It is
not back yet: its claims (a lead, and counts waited on) need the fused
cloth substep's first item, the check and the move, worked into them.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.bounds import clamp_to_bounds
from weft.systems.kernels.claims import item_done, new_counters, next_item, wait_for
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
        held = all_inside_walls(pos, radius, *walls[:4])
        clamp_unless_inside(pos, prev, inv_mass, radius, kind, walls, held)


ITEMS_PER_PASS = 3
"""Items of one iteration in ``iterate_rigid_sides_in_walls``: side 0, side 1, then the seam."""


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

    The passes are one list of items taken by whichever thread is free (``claims``): per
    iteration side 0, side 1, then the seam with the walls. The pool starts and joins once a
    call, not once a pass, and a worker that wakes late joins in where the work has got to.
    Each side's points are tested by the thread that relaxed them, the seam's ends after it.
    """
    points = (pos, prev, inv_mass, radius, kind)
    threads = (i, j, rest, alive)
    sides = (runs, parts, split)
    total = ITEMS_PER_PASS * iterations
    counters = new_counters()
    outside = np.zeros(2, dtype=np.int64)  # each side's test: 1 where a point of it is out
    for _ in numba.prange(2):  # each thread takes items until none is left
        while True:
            item = next_item(counters)
            if item >= total:
                break
            part = wait_for_part(counters, item, 0)
            relax_part(part, points, threads, sides, walls, outside)
            item_done(counters)


@numba.njit(cache=True, inline="always")
def wait_for_part(counters: npt.NDArray[np.int64], item: int, first: int) -> int:
    """The part (side 0, side 1 or ``SEAM``) of ``item``, once the items it follows are done: the
    passes' items are numbered from ``first``, ``ITEMS_PER_PASS`` to a pass (``claims``). A side
    waits for every item of the passes before (their seam last), the seam for both sides."""
    part = (item - first) % ITEMS_PER_PASS
    wait_for(counters, item - part if part != SEAM else item)
    return part


@numba.njit(cache=True, inline="always")
def relax_part(
    part: int,
    points: tuple[Any, ...],
    threads: tuple[Any, ...],
    sides: tuple[Any, ...],
    walls: Walls,
    outside: npt.NDArray[np.int64],
) -> None:
    """One part of a pass: a side's runs, then its points tested against the walls by the thread
    that relaxed them (``outside[part]``: 1 where one is out); or the seam, then the clamp unless
    both sides' tests and the seam's ends find every point inside (``points``: positions, previous
    positions, inverse masses, radii and kinds; ``threads``: ends, rest lengths and alive flags;
    ``sides``: the cut's runs, parts and split)."""
    pos, prev, inv_mass, radius, kind = points
    i, j, rest, alive = threads
    runs, parts, split = sides
    n = pos.shape[0]
    middle = min(split, n)
    left, bottom, right, top = walls[0], walls[1], walls[2], walls[3]
    if part != SEAM:
        relax_rigid_runs(pos, inv_mass, i, j, rest, alive, runs[parts[part] : parts[part + 1]])
        first = 0 if part == 0 else middle
        last = middle if part == 0 else n
        held = all_inside_walls(pos[first:last], radius[first:last], left, bottom, right, top)
        outside[part] = 0 if held else 1
    else:
        seam = runs[parts[SEAM] : parts[SEAM + 1]]
        relax_rigid_runs(pos, inv_mass, i, j, rest, alive, seam)
        held = outside[0] + outside[1] == 0
        held = held and _ends_inside(pos, radius, i, j, seam, left, bottom, right, top)
        clamp_unless_inside(pos, prev, inv_mass, radius, kind, walls, held)


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
def clamp_unless_inside(
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
