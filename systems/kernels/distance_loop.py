"""A substep's iterations in one call, where they are the threads and the walls alone.

A sheet of cloth in a level of its own has two systems with work in its
iterations: the threads' pass (``distance``) and the walls (``bounds``:
the quick test, the clamp only when a point is out). Called one by one
from Python, each iteration costs two kernel calls and two wakings of the
thread pool beside the pass itself: 4 µs of the 80 × 50 sheet's 18 µs.
These kernels run every iteration of the substep in one call, the same
numbers in the same order (``DistanceSystem.fused_iterations``).

On two sides (``iterate_rigid_sides_in_walls``) the pool starts and joins
once a call, not once a pass (2 µs each: 40 µs of the sheet's frame), and
the passes are items the threads claim (``claims``): side 0, side 1 and
the seam, twenty times over. The first thread in (the caller, unless the
worker was still awake) leads: every side 0 is its own; side 1 and the
seam go to whichever thread claims them first, so a worker still waking
when the call starts joins in where the work has got to. No item
waits for a whole pass before it, only for what it reads
(``distance_sides``' parts):

- side 0 starts its next pass at once, and waits for the seam before only
  at its last rows, which hold the seam's ends;
- side 1 waits for the seam before, whose ends its first rows hold;
- the seam waits for side 0's pass and for side 1's first rows.

So each thread runs its side pass after pass, and neither waits for the
other's whole pass. A thread only ever waits for an item already taken,
that is by a running thread: side 0 is the lead's, which is running (it
claimed the lead), and each thread tries side 1 and the seam in order, so
every one of them before the one it waits in has been claimed, by itself
or by the other. Each constraint sees its points as it would in one pass after
another: the items that run at once share no point.

The walls' clamp moves a point inside them not at all, so clamping every
point after the iteration's last move of it is clamping them all after
the pass: each side tests and clamps its points but the seam's ends on
the core that just moved them, and the seam its ends after it. The sides'
tests leave the seam's ends out, which the seam may be moving meanwhile.

Measured (2026-12-06, the Xeon, the 80 × 50 sheet, taking turns with
pymunk's frame): the pool started once a call took the sheet's call from
0.41 ms with twenty joins to 0.34-0.36, against 0.45 on one thread. The
pipelined passes took it from 338-350 µs (a join of both sides before each
seam, as items taken in order) to 325-331, the frame from 458-477 µs to
444-455 (each tree in its own process with its own cache, alternated seven
times). A first measure had found no gain: the kernel compiled second in
its process had numba's plain ``parallel=True`` (``jit.ONLY_PRANGE`` was a
dict numba empties, so every kernel but a process's first turned its
``np.zeros`` into threaded loops of their own). Within the fused cloth
substep (``cloth_step``) the same change took its call from 347-369 µs to
334-346 (alternated four times). The same bits in all.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.bounds import CIRCLE, clamp_point, clamp_to_bounds
from weft.systems.kernels.claims import LINE, claim, count_one, new_counters, wait_until
from weft.systems.kernels.distance import relax_rigid_distances, relax_rigid_runs
from weft.systems.kernels.distance_sides import PARTS, SEAM_PART, mark_seam_ends
from weft.systems.kernels.inside_walls import all_inside_walls, inside
from weft.systems.kernels.jit import INNER, NO_DIVISION_CHECK, kernel_with_threads

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


CLAIMED_PER_PASS = 2
"""Items of one iteration in ``iterate_rigid_sides_in_walls`` that the threads claim: side 1, then
the seam (side 0 is the lead's, unclaimed)."""

SIDE_0_DONE, SIDE_1_MET, SIDE_1_DONE, SEAM_DONE, STARTED, LEAD, ITEMS = (k * LINE for k in range(7))
"""The claims' counts, a cache line apart: passes of side 0 done, of side 1 past its part on the
seam's ends and done, seams done, and the start of a call that has one (``cloth_step``); the lead's
claim; then each item's claim (``counters_for``)."""


@numba.njit(cache=True, inline="always", **INNER)
def counters_for(iterations: int) -> npt.NDArray[np.int64]:
    """The claims' counters of a call of ``iterations`` passes: all zero."""
    return new_counters(ITEMS + CLAIMED_PER_PASS * iterations)


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
    (``relax_rigid_sides``: ``runs`` and ``parts`` as there; ``split`` the first particle of side 1),
    the passes claimed and waited for as the module says."""
    points = (pos, prev, inv_mass, radius, kind)
    threads = (i, j, rest, alive)
    sides = (runs, parts, split)
    ends = np.zeros(pos.shape[0], dtype=np.bool_)
    mark_seam_ends(ends, i, j, runs[parts[SEAM_PART] : parts[PARTS]])
    counters = counters_for(iterations)
    for _ in numba.prange(2):
        lead = claim(counters, LEAD)
        relax_passes(counters, lead, iterations, points, threads, sides, ends, walls)


@numba.njit(cache=True, inline="always", **INNER)
def relax_passes(
    counters: npt.NDArray[np.int64],
    lead: bool,
    iterations: int,
    points: tuple[Any, ...],
    threads: tuple[Any, ...],
    sides: tuple[Any, ...],
    ends: npt.NDArray[np.bool_],
    walls: Walls,
) -> int:
    """A thread's share of the passes (the module's docstring): every side 0 if it is the ``lead``,
    and each side 1 and seam it claims first (``points``: positions, previous positions, inverse
    masses, radii and kinds; ``threads``: ends, rest lengths and alive flags; ``sides``: the cut's
    runs, parts and split; ``ends``: the seam's ends, marked). Returns how many items it ran."""
    pos, prev, inv_mass, radius, kind = points
    i, j, rest, alive = threads
    runs, parts, split = sides
    middle = min(split, pos.shape[0])
    lower = (pos[:middle], prev[:middle], inv_mass[:middle], radius[:middle], kind[:middle])
    upper = (pos[middle:], prev[middle:], inv_mass[middle:], radius[middle:], kind[middle:])
    seam = runs[parts[SEAM_PART] : parts[PARTS]]
    ran = 0
    for k in range(iterations):
        if lead:
            ran += 1
            relax_rigid_runs(pos, inv_mass, i, j, rest, alive, runs[parts[0] : parts[1]])
            wait_until(counters, SEAM_DONE, k)
            relax_rigid_runs(pos, inv_mass, i, j, rest, alive, runs[parts[1] : parts[2]])
            _clamp_side(lower, ends[:middle], walls)
            count_one(counters, SIDE_0_DONE)
        if claim(counters, ITEMS + CLAIMED_PER_PASS * k):
            ran += 1
            wait_until(counters, SIDE_1_DONE, k)
            wait_until(counters, SEAM_DONE, k)
            relax_rigid_runs(pos, inv_mass, i, j, rest, alive, runs[parts[2] : parts[3]])
            count_one(counters, SIDE_1_MET)
            relax_rigid_runs(pos, inv_mass, i, j, rest, alive, runs[parts[3] : parts[4]])
            _clamp_side(upper, ends[middle:], walls)
            count_one(counters, SIDE_1_DONE)
        if claim(counters, ITEMS + CLAIMED_PER_PASS * k + 1):
            ran += 1
            wait_until(counters, SIDE_0_DONE, k + 1)
            wait_until(counters, SIDE_1_MET, k + 1)
            relax_rigid_runs(pos, inv_mass, i, j, rest, alive, seam)
            if not _ends_inside(pos, radius, i, j, seam, *walls[:4]):
                _clamp_marked(points, ends, True, walls)
            count_one(counters, SEAM_DONE)
    return ran


@numba.njit(cache=True, **INNER)
def _clamp_side(points: tuple[Any, ...], ends: npt.NDArray[np.bool_], walls: Walls) -> None:
    """Clamp a side's particles (``points``, its slices of the arrays) but the seam's ``ends`` (its
    slice of them) to the walls, unless all of them are inside (the test first: vectorised, and
    nearly always enough). The test reads the seam's ends too, and leaves what it read there out
    (the seam may be moving them meanwhile)."""
    pos, radius = points[0], points[3]
    left, bottom, right, top = walls[0], walls[1], walls[2], walls[3]
    flat = pos.reshape(-1)  # the loop over plain indices: numba vectorises it (as ``all_inside_walls``)
    every = True
    for k in range(radius.shape[0]):
        every &= inside(flat[2 * k], flat[2 * k + 1], radius[k], left, bottom, right, top) | ends[k]
    if not every:
        _clamp_marked(points, ends, False, walls)


@numba.njit(cache=True, inline="always", **INNER)
def _clamp_marked(points: tuple[Any, ...], marks: npt.NDArray[np.bool_], marked: bool, walls: Walls) -> None:
    """``clamp_to_bounds`` for the particles whose ``marks`` are ``marked`` (``points``: positions,
    previous positions, inverse masses, radii and kinds)."""
    pos, prev, inv_mass, radius, kind = points
    left, bottom, right, top = walls[0], walls[1], walls[2], walls[3]
    for k in range(pos.shape[0]):
        if marks[k] != marked or inv_mass[k] == 0.0:  # first: the other thread may be moving the rest
            continue
        x, y, r = pos[k, 0], pos[k, 1], radius[k]
        if inside(x, y, r, left, bottom, right, top):
            continue
        x, y, vx, vy = clamp_point(x, y, x - prev[k, 0], y - prev[k, 1], r, kind[k] == CIRCLE, walls)
        pos[k, 0], pos[k, 1], prev[k, 0], prev[k, 1] = x, y, x - vx, y - vy


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


@numba.njit(cache=True, inline="always", **INNER)
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
