"""A substep of cloth alone in one kernel call: integrate, pins, the iterations, contain and tear.

``IntegrateSystem.fused_substep`` offers it to the schedule; it is made here
because it knows the six systems it stands for. It is offered only where
they are every system with work in the substep, the threads are all rigid
(the distances' ``rigid_loop``) and nothing checks for NaN
(``WEFT_CHECK_FINITE``); the kernel (``kernels/cloth_step.py``) runs their
kernels in their order on the same arrays, so a level gives the same bits
either way.

Integrate and pins only move points, which no ``idle`` reads: so the
iteration systems may be asked before they run, not after, as the schedule
does when the substep runs one system at a time.
"""

from __future__ import annotations

from collections.abc import Callable

from weft.components import WorldSettings
from weft.systems import world
from weft.systems.bounds import BoundsSystem, ContainSystem
from weft.systems.distances import DistanceSystem
from weft.systems.kernels.cloth_step import step_cloth, step_cloth_in_sides
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
) -> Callable[[], None] | None:
    """The substep's one call, or None unless ``head`` is the integrate system (the caller) and
    perhaps the pins, the ITERATION systems with work are the distances and the walls with a rigid
    loop, and ``tail`` is contain and tear (``System.fused_substep``'s arguments); ``motion`` gives
    integrate's scalars (``weft.systems.integrate.motion``, handed over: that module imports this one)."""
    if tuple(map(type, head[1:])) not in ((), (PinSystem,)) or tuple(map(type, tail)) != END:
        return None
    busy = [system for system in iterations if not system.idle(step)]
    if tuple(map(type, busy)) != ITERATIONS:
        return None
    loop = busy[0].rigid_loop(busy, step)
    if loop is None:
        return None
    settings, stores = world.settings(), world.stores()
    moving = (motion(settings, step), *pin_arguments(stores.pins, settings, step), loop.iterations)
    bodies = (loop.points, loop.threads)
    ending = (loop.walls, tear_limits(stores.distances))
    if loop.sides:
        return lambda: step_cloth_in_sides(*moving, *bodies, loop.sides, *ending)
    return lambda: step_cloth(*moving, *bodies, *ending)
