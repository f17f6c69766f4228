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

from weft.systems import world
from weft.systems.bounds import BoundsSystem, ContainSystem
from weft.systems.distances import DistanceSystem
from weft.systems.kernels.cloth_step import step_cloth, step_cloth_in_sides
from weft.systems.kernels.distance_loop import iterate_rigid_sides_in_walls
from weft.systems.pins import PinSystem
from weft.systems.schedule import Step, System
from weft.systems.tear import TearSystem


def cloth_substep(
    head: list[System], iterations: list[System], tail: list[System], step: Step
) -> Callable[[], None] | None:
    """The substep's one call, or None unless ``head`` is the integrate system (the caller) and
    perhaps the pins, the ITERATION systems with work are the distances and the walls with a rigid
    loop, and ``tail`` is contain and tear (``System.fused_substep``'s arguments)."""
    if [type(system) for system in head[1:]] not in ([], [PinSystem]):
        return None
    if [type(system) for system in tail] != [ContainSystem, TearSystem]:
        return None
    busy = [system for system in iterations if not system.idle(step)]
    if [type(system) for system in busy] != [DistanceSystem, BoundsSystem]:
        return None
    loop = busy[0].rigid_loop(busy, step)
    if loop is None:
        return None
    kernel, arguments = loop
    before = (_motion(step), *_pins(step))
    tearing = _tearing()
    if kernel is iterate_rigid_sides_in_walls:
        return lambda: step_cloth_in_sides(*before, *arguments, tearing)
    return lambda: step_cloth(*before, *arguments, tearing)


def _motion(step: Step) -> tuple[float, ...]:
    """``integrate``'s scalars, as ``IntegrateSystem`` gives them."""
    settings = world.settings()
    wind_x, wind_y = settings.wind.vector
    return (
        float(settings.gravity[0]),
        float(settings.gravity[1]),
        float(wind_x),
        float(wind_y),
        float(settings.wind.gust),
        step.time,
        settings.damping ** (1.0 / step.substeps),  # damping is per 1/60 s frame
        step.dt,
    )


def _pins(step: Step) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """``place_pins``' arrays and scalars, as ``PinSystem`` gives them (none held: empty arrays)."""
    pins = world.stores().pins
    n = pins.count
    left, bottom, right, top = world.settings().bounds
    arrays = (pins.index[:n], pins.start[:n], pins.anchor[:n], pins.speed[:n])
    scalars = (
        step.dt * step.substeps,
        float(left),
        float(bottom),
        float(right),
        float(top),
        step.substep == 0,
        step.substep / step.substeps,
        (step.substep + 1) / step.substeps,
    )
    return arrays, scalars


def _tearing() -> tuple[Any, ...]:
    """``tear_overstretched``'s ratios and ``kill_orphans``' parents."""
    distances = world.stores().distances
    m = distances.count
    return distances.tear_ratio[:m], distances.parents[:m]
