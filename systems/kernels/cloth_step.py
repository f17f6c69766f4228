"""A cloth's whole substep in one call, where the cloth and the walls are all the substep has.

A level of cloth alone runs six systems a substep: integrate, pins, the
iterations (threads and walls, already one call: ``distance_loop``), the
walls once more (contain) and tearing. Called one by one from Python each
costs its call and its arguments gathered: 69 µs of the 80 × 50 sheet's
frame taken in turns with pymunk's, against some 15 µs of their kernels'
own work. These kernels run the six in one call, in the same order on the
same arrays, so the numbers are the very ones the systems give one by one
(``IntegrateSystem.fused_substep``).
"""

from __future__ import annotations

from typing import Any

import numba

from weft.systems.kernels.distance import NO_DIVISION_CHECK
from weft.systems.kernels.distance_loop import (
    Walls,
    clamp_unless_inside,
    iterate_rigid_in_walls,
    iterate_rigid_sides_in_walls,
)
from weft.systems.kernels.inside_walls import all_inside_walls
from weft.systems.kernels.jit import kernel_with_threads
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
) -> None:
    """One substep: ``integrate`` (``motion``: its scalars), ``place_pins`` (``pins``, ``pinning``:
    its arrays and scalars), the iterations with the walls (``iterate_rigid_in_walls``), the walls
    once more, then ``break_overstretched``."""
    _move(points, motion, pins, pinning)
    iterate_rigid_in_walls(iterations, *points, *threads, walls)
    _contain_and_tear(points, threads, walls, tearing)


@kernel_with_threads(own_prange=False, **NO_DIVISION_CHECK)
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
) -> None:
    """``step_cloth`` with the iterations in two sides at once (``iterate_rigid_sides_in_walls``;
    ``sides``: its runs, parts and split); the rest of the substep is on the calling thread."""
    _move(points, motion, pins, pinning)
    iterate_rigid_sides_in_walls(iterations, *points, *threads, *sides, walls)
    _contain_and_tear(points, threads, walls, tearing)


@numba.njit(cache=True, inline="always")
def _move(points: Points, motion: Motion, pins: PinArrays, pinning: Pinning) -> None:
    """The start of the substep: Verlet (``IntegrateSystem``), then the pins (``PinSystem``)."""
    pos, prev, inv_mass, radius, _ = points
    integrate(pos, prev, inv_mass, *motion)
    place_pins(pos, prev, radius, *pins, *pinning)


@numba.njit(cache=True, inline="always")
def _contain_and_tear(points: Points, threads: Threads, walls: Walls, tearing: Tearing) -> None:
    """The end of the substep: the walls once more (``ContainSystem``), then tearing (``TearSystem``)."""
    pos, prev, inv_mass, radius, kind = points
    clamp_unless_inside(pos, prev, inv_mass, radius, kind, walls, all_inside_walls(pos, radius, *walls[:4]))
    break_overstretched(pos, *threads, *tearing)
