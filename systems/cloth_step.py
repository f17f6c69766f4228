"""A substep of cloth alone in one kernel call: integrate, pins, the iterations, contain and tear.

``IntegrateSystem.fused_substep`` offers it to the schedule; it is made here
because it knows the six systems it stands for. It is offered only where
they are every system with work in the substep, the distances found the
threads rigid when they last looked (``DistanceSystem.general``) and
nothing checks for NaN (``WEFT_CHECK_FINITE``); the kernel
(``kernels/cloth_step.py``) runs their kernels in their order on the same
arrays, so a level gives the same bits either way. Whether the threads are
still all rigid and the cut in two sides still fits, the kernel checks as
it starts, and declines (returns False, having changed nothing) where not:
the substep then runs one system at a time.

Integrate and pins only move points, which no ``idle`` reads: so the
iteration systems may be asked before they run, not after, as the schedule
does when the substep runs one system at a time.
"""

from __future__ import annotations

from collections.abc import Callable

from weft.components import WorldSettings
from weft.systems import world
from weft.systems.bounds import BoundsSystem, ContainSystem, walls
from weft.systems.distances import DistanceSystem, cut, loop_arrays
from weft.systems.kernels.cloth_step import step_cloth, step_cloth_in_sides
from weft.systems.kernels.distance_sides import PARALLEL_DISTANCES
from weft.systems.kernels.verlet import Motion
from weft.systems.pins import PinSystem, pin_arguments
from weft.systems.schedule import Step, System
from weft.systems.tear import TearSystem, tear_limits

ITERATIONS = (DistanceSystem, BoundsSystem)
"""The ITERATION systems with work in a substep of cloth alone."""
END = (ContainSystem, TearSystem)
"""The SUBSTEP_END systems with work in it."""


def cloth_substep(
    head: list[System],
    iterations: list[System],
    tail: list[System],
    step: Step,
    motion: Callable[[WorldSettings, Step], Motion],
) -> Callable[[], bool] | None:
    """The substep's one call, or None unless ``head`` is the integrate system (the caller) and
    perhaps the pins, the ITERATION systems with work are the distances and the walls, and ``tail``
    is contain and tear (``System.fused_substep``'s arguments), and the distances did not last find
    a thread compliant or pull-only (``DistanceSystem.general``); ``motion`` gives integrate's
    scalars (``weft.systems.integrate.motion``, handed over: that module imports this one).

    Whether every thread is rigid, and the cut in two sides still fits their ends, the kernel checks
    itself: the call returns False, having changed nothing, where they do not."""
    if tuple(map(type, head[1:])) not in ((), (PinSystem,)) or tuple(map(type, tail)) != END:
        return None
    busy = [system for system in iterations if not system.idle(step)]
    if tuple(map(type, busy)) != ITERATIONS or busy[0].general:
        return None
    settings, stores = world.settings(), world.stores()
    distances, sides = stores.distances, stores.distance_sides
    m = distances.count
    moving = (motion(settings, step), *pin_arguments(stores.pins, settings, step), step.iterations)
    bodies = loop_arrays(stores)
    ending = (walls(settings, step.dt), tear_limits(distances))
    rigid = (distances.compliance[:m], distances.mode[:m])
    if m < PARALLEL_DISTANCES:
        sides.split = 0  # one side: no cut, as the distances' own pass has it
        return lambda: step_cloth(*moving, *bodies, *ending, rigid)
    if not sides.split:  # no cut yet: made here, then kept as long as the kernel finds it fits
        cut(distances, sides)
    cut_made = (sides.runs, sides.parts, sides.split)
    kept = (*rigid, sides.i, sides.j)
    return lambda: step_cloth_in_sides(*moving, *bodies, cut_made, *ending, kept)
