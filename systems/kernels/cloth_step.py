"""A cloth's whole substep in one call, where the cloth and the walls are all the substep has.

A level of cloth alone runs six systems a substep: integrate, pins, the
iterations (threads and walls, already one call: ``distance_loop``), the
walls once more (contain) and tearing. Called one by one from Python each
costs its call and its arguments gathered: 69 µs of the 80 × 50 sheet's
frame taken in turns with pymunk's, against some 15 µs of their kernels'
own work. These kernels run the six in one call, in the same order on the
same arrays, so the numbers are the very ones the systems give one by one
(``IntegrateSystem.fused_substep``). They run only where every thread is
rigid and a cut in two sides still fits the threads' ends, which they check
themselves as they start, returning False, having changed nothing, where
not.

Rejected (2026-12-06, the Xeon, the 80 × 50 sheet taking turns with
pymunk, items then taken in order from one list): the walls once more
and tearing as the list's last items, each split in two halves for the
two threads (points below and from the split,
the first and second half of the threads), with orphans killed after the
join where any thread broke: 356 and 372 µs against 355 and 372, the same
bits. After twenty passes the worker is spinning, and the two halves save
less than their two more phases cost.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from weft.systems.kernels.claims import claim, count_one, wait_until
from weft.systems.kernels.distance import needs_general
from weft.systems.kernels.distance_loop import (
    LEAD,
    STARTED,
    Walls,
    clamp_unless_inside,
    counters_for,
    iterate_rigid_in_walls,
    relax_passes,
)
from weft.systems.kernels.distance_sides import PARTS, SEAM_PART, mark_seam_ends, sides_hold
from weft.systems.kernels.inside_walls import all_inside_walls
from weft.systems.kernels.jit import INNER, NO_DIVISION_CHECK, kernel_with_threads
from weft.systems.kernels.pins import PinArrays, Pinning, place_pins
from weft.systems.kernels.tear import break_overstretched
from weft.systems.kernels.verlet import Motion, integrate

Points = tuple[Any, ...]
"""The particles' positions ``(N, 2)``, previous positions ``(N, 2)``, inverse masses, radii and
kinds ``(N,)``."""
Threads = tuple[Any, ...]
"""The threads' ends ``(M,)`` (uint32), rest lengths and alive flags ``(M,)``."""
Tearing = tuple[Any, ...]
"""The threads' tear ratios and parents: ``break_overstretched``'s arguments after the positions
and ``Threads`` (``weft.systems.tear.tear_limits``)."""


Rigid = tuple[Any, Any]
"""The threads' compliances and modes: a fused substep runs only where every one is rigid."""
Kept = tuple[Any, Any, Any, Any]
"""``Rigid``, then the constraint ends the cut in two sides was made for (``DistanceSides.i``, ``j``)."""


@numba.njit(cache=True, **NO_DIVISION_CHECK)
def step_cloth(
    motion: Motion,
    pins: PinArrays,
    pinning: Pinning,
    iterations: int,
    points: Points,
    threads: Threads,
    walls: Walls,
    tearing: Tearing,
    rigid: Rigid,
) -> bool:
    """One substep: ``integrate`` (``motion``: its scalars), ``place_pins`` (``pins``, ``pinning``:
    its arrays and scalars), the iterations with the walls (``iterate_rigid_in_walls``), the walls
    once more, then ``break_overstretched``. Returns False, having changed nothing, where a thread
    is compliant or pull-only (``needs_general``): the substep is then the systems' one by one."""
    if needs_general(*rigid):
        return False
    _move(points, motion, pins, pinning)
    iterate_rigid_in_walls(iterations, *points, *threads, walls)
    _contain_and_tear(points, threads, walls, tearing)
    return True


@kernel_with_threads(**NO_DIVISION_CHECK)
def step_cloth_in_sides(
    motion: Motion,
    pins: PinArrays,
    pinning: Pinning,
    iterations: int,
    points: Points,
    threads: Threads,
    sides: tuple[Any, ...],
    walls: Walls,
    tearing: Tearing,
    kept: Kept,
) -> bool:
    """``step_cloth`` with the iterations in two sides at once, as ``iterate_rigid_sides_in_walls``
    takes them (``sides``: its runs, parts and split). Returns False, having changed nothing, where
    a thread is compliant or pull-only or the cut no longer fits the threads' ends (``sides_hold``;
    ``kept``).

    The lead (``distance_loop``) makes that check and the move before its first pass, while the
    other thread wakes; the other waits for it (``STARTED``) before its first. The walls once more
    and tearing are after the join, on the calling thread.
    """
    i, j = threads[0], threads[1]
    compliance, mode, cut_i, cut_j = kept
    runs, parts, _ = sides
    ends = np.zeros(points[0].shape[0], dtype=np.bool_)  # the seam's ends, marked once the cut fits
    fits = np.zeros(1, dtype=np.bool_)  # the lead's answer, read by the other and after the join
    counters = counters_for(iterations)
    for _ in numba.prange(2):
        lead = claim(counters, LEAD)
        if lead:
            fits[0] = sides_hold(i, j, cut_i, cut_j) and not needs_general(compliance, mode)
            if fits[0]:
                mark_seam_ends(ends, i, j, runs[parts[SEAM_PART] : parts[PARTS]])
                _move(points, motion, pins, pinning)
            count_one(counters, STARTED)
        else:
            wait_until(counters, STARTED, 1)
        if fits[0]:
            relax_passes(counters, lead, iterations, points, threads, sides, ends, walls)
    if not fits[0]:
        return False
    _contain_and_tear(points, threads, walls, tearing)
    return True


@numba.njit(cache=True, inline="always", **INNER)
def _move(points: Points, motion: Motion, pins: PinArrays, pinning: Pinning) -> None:
    """The start of the substep: Verlet (``IntegrateSystem``), then the pins (``PinSystem``)."""
    pos, prev, inv_mass, radius, _ = points
    integrate(pos, prev, inv_mass, *motion)
    place_pins(pos, prev, radius, *pins, *pinning)


@numba.njit(cache=True, inline="always", **INNER)
def _contain_and_tear(points: Points, threads: Threads, walls: Walls, tearing: Tearing) -> None:
    """The end of the substep: the walls once more (``ContainSystem``), then tearing (``TearSystem``)."""
    pos, prev, inv_mass, radius, kind = points
    clamp_unless_inside(pos, prev, inv_mass, radius, kind, walls, all_inside_walls(pos, radius, *walls[:4]))
    break_overstretched(pos, *threads, *tearing)
