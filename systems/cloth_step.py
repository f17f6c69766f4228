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
from typing import Any

from weft.components import Stores, WorldSettings
from weft.systems import world
from weft.systems.bounds import BoundsSystem, ContainSystem
from weft.systems.distances import DistanceSystem
from weft.systems.kernels.cloth_step import step_cloth, step_cloth_in_sides
from weft.systems.kernels.distance_loop import iterate_rigid_sides_in_walls
from weft.systems.pins import PinSystem
from weft.systems.schedule import Step, System
from weft.systems.tear import TearSystem

ITERATIONS = (DistanceSystem, BoundsSystem)
"""The ITERATION systems with work in a substep of cloth alone."""
END = (ContainSystem, TearSystem)
"""The SUBSTEP_END systems with work in it."""


def cloth_substep(
    head: list[System], iterations: list[System], tail: list[System], step: Step
) -> Callable[[], None] | None:
    """The substep's one call, or None unless ``head`` is the integrate system (the caller) and
    perhaps the pins, the ITERATION systems with work are the distances and the walls with a rigid
    loop, and ``tail`` is contain and tear (``System.fused_substep``'s arguments)."""
    if tuple(map(type, head[1:])) not in ((), (PinSystem,)) or tuple(map(type, tail)) != END:
        return None
    busy = [system for system in iterations if not system.idle(step)]
    if tuple(map(type, busy)) != ITERATIONS:
        return None
    loop = busy[0].rigid_loop(busy, step)
    if loop is None:
        return None
    kernel, arguments = loop
    settings, stores = world.settings(), world.stores()
    before = (_motion(settings, step), *_pins(settings, stores, step))
    distances = stores.distances
    tearing = (distances.tear_ratio[: distances.count], distances.parents[: distances.count])
    if kernel is iterate_rigid_sides_in_walls:
        return lambda: step_cloth_in_sides(*before, *arguments, tearing)
    return lambda: step_cloth(*before, *arguments, tearing)


def _motion(settings: WorldSettings, step: Step) -> tuple[float, ...]:
    """``integrate``'s scalars, as ``IntegrateSystem`` gives them."""
    wind_x, wind_y = settings.wind.vector
    gravity_x, gravity_y = settings.gravity
    damping = settings.damping ** (1.0 / step.substeps)  # damping is per 1/60 s frame
    # floats: a number set as an int would type the kernel anew (a compile in the middle of a game)
    wind = (float(wind_x), float(wind_y), float(settings.wind.gust))
    return float(gravity_x), float(gravity_y), *wind, step.time, float(damping), step.dt


def _pins(settings: WorldSettings, stores: Stores, step: Step) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """``place_pins``' arrays and scalars, as ``PinSystem`` gives them (none held: empty arrays)."""
    pins = stores.pins
    n = pins.count
    left, bottom, right, top = settings.bounds
    arrays = (pins.index[:n], pins.start[:n], pins.anchor[:n], pins.speed[:n])
    times = (step.substep == 0, step.substep / step.substeps, (step.substep + 1) / step.substeps)
    return arrays, (step.dt * step.substeps, float(left), float(bottom), float(right), float(top), *times)
