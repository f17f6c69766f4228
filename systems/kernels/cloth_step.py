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

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.distance import NO_DIVISION_CHECK
from weft.systems.kernels.distance_loop import (
    Walls,
    clamp_unless_inside,
    iterate_rigid_in_walls,
    iterate_rigid_sides_in_walls,
)
from weft.systems.kernels.inside_walls import all_inside_walls
from weft.systems.kernels.jit import kernel_with_threads
from weft.systems.kernels.pins import place_pins
from weft.systems.kernels.tear import kill_orphans, tear_overstretched
from weft.systems.kernels.verlet import integrate

Motion = tuple[float, float, float, float, float, float, float, float]
"""``integrate``'s arguments after the particle arrays: gravity (x, y), wind (x, y), gust, time,
damping per substep and the substep's length."""
Pins = tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]
"""The pins' particle indices ``(P,)``, starts ``(P, 2)``, anchors ``(P, 2)`` and speeds ``(P,)``."""
Pinning = tuple[float, float, float, float, float, bool, float, float]
"""``place_pins``' arguments after the pins' arrays: the frame's length, the bounds (left, bottom,
right, top), whether this is the frame's first substep, and the substep's start and end as shares
of the frame."""
Tearing = tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]
"""The threads' tear ratios ``(M,)`` and parents ``(M, 4)`` (``tear_overstretched``, ``kill_orphans``)."""


@numba.njit(cache=True, **NO_DIVISION_CHECK)
def step_cloth(
    motion: Motion,
    pins: Pins,
    pinning: Pinning,
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
    tearing: Tearing,
) -> None:
    """One substep: ``integrate``, ``place_pins`` (``pins``: index, start, anchor, speed), the
    iterations with the walls (``iterate_rigid_in_walls``), the walls once more, then every thread
    stretched past its tear ratio broken with the threads leaning on it. Shapes as those kernels'."""
    integrate(pos, prev, inv_mass, *motion)
    place_pins(pos, prev, radius, *pins, *pinning)
    iterate_rigid_in_walls(iterations, pos, prev, inv_mass, radius, kind, i, j, rest, alive, walls)
    _contain_and_tear(pos, prev, inv_mass, radius, kind, i, j, rest, alive, walls, tearing)


@kernel_with_threads(own_prange=False, **NO_DIVISION_CHECK)
def step_cloth_in_sides(
    motion: Motion,
    pins: Pins,
    pinning: Pinning,
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
    tearing: Tearing,
) -> None:
    """``step_cloth`` with the iterations in two sides at once (``iterate_rigid_sides_in_walls``:
    ``runs``, ``parts`` and ``split`` as there); the rest of the substep is on the calling thread."""
    integrate(pos, prev, inv_mass, *motion)
    place_pins(pos, prev, radius, *pins, *pinning)
    iterate_rigid_sides_in_walls(
        iterations, pos, prev, inv_mass, radius, kind, i, j, rest, alive, runs, parts, split, walls
    )
    _contain_and_tear(pos, prev, inv_mass, radius, kind, i, j, rest, alive, walls, tearing)


@numba.njit(cache=True, inline="always")
def _contain_and_tear(
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
    tearing: Tearing,
) -> None:
    """The end of the substep: the walls once more (``ContainSystem``), then tearing (``TearSystem``)."""
    clamp_unless_inside(pos, prev, inv_mass, radius, kind, walls, all_inside_walls(pos, radius, *walls[:4]))
    tear_ratio, parents = tearing
    if tear_overstretched(pos, i, j, rest, tear_ratio, alive):
        kill_orphans(alive, parents)
