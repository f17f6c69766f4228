"""The level's walls: points stop and drag on the floor, circles bounce and slide."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from weft.components.world import REST_SPEED, WorldSettings
from weft.systems import world
from weft.systems.kernels.bounds import clamp_to_bounds
from weft.systems.kernels.distance_loop import Walls
from weft.systems.kernels.inside_walls import all_inside_walls, all_inside_walls_in_two
from weft.systems.schedule import Step, System


def inside_walls(
    target: tuple[float, float], margins: tuple[float, float, float, float]
) -> tuple[float, float]:
    """``target`` moved into the walls' rectangle shrunk by ``margins`` px at its left, bottom, right and
    top (no two together past the rectangle's middle): what the hand holds is led only where the
    walls let it be. A particle held outside dragged its body through the wall it was held against
    (a rag doll's joints stretched to 3.6 times their bones, its limits 20 degrees out); a box held by
    its spring below the floor was pulled into it past its middle."""
    left, bottom, right, top = world.settings().walls
    x = _between(target[0], left, right, margins[0], margins[2])
    y = _between(target[1], bottom, top, margins[1], margins[3])
    return x, y


def _between(value: float, low: float, high: float, low_margin: float, high_margin: float) -> float:
    """``value`` within ``[low + low_margin, high - high_margin]``, the margins cut to the middle."""
    middle = 0.5 * (low + high)
    floor = min(low + max(0.0, low_margin), middle)
    ceiling = max(high - max(0.0, high_margin), middle)
    return min(max(value, floor), ceiling)


WallArguments = tuple[Callable[..., bool], tuple[Any, ...], tuple[Any, ...]]
"""The walls test, its arguments and those of ``clamp_to_bounds``, for one substep."""


class BoundsSystem(System):
    """Puts particles that left the walls' rectangle back inside it, every iteration.

    A quick test first (``all_inside_walls``): when every particle is inside,
    the clamp would move none and is skipped. A world whose threads are cut
    in two sides is tested in the same two halves at once, each on the
    thread that relaxed it (``all_inside_walls_in_two``). The arguments are
    gathered at the substep's first iteration and kept for its others.
    """

    name = "bounds"
    needs = ("particles",)

    def __init__(self) -> None:
        self._arguments: WallArguments | None = None

    def process(self, step: Step) -> None:
        if step.iteration == 0 or self._arguments is None:
            self._arguments = wall_arguments(step)
        keep_inside(self._arguments)


class ContainSystem(BoundsSystem):
    """The walls once more at the end of the substep: the last contact pass may have pushed a
    circle into a wall, and nothing may end a step outside the box."""

    name = "contain"
    needs = ("particles",)

    def process(self, step: Step) -> None:
        keep_inside(wall_arguments(step))


def keep_inside(arguments: WallArguments) -> None:
    """Clamp the particles to the walls, unless every one is inside them."""
    test, test_arguments, clamp = arguments
    if not test(*test_arguments):
        clamp_to_bounds(*clamp)


def wall_arguments(step: Step) -> WallArguments:
    """The test's and the clamp's arguments for the particles and walls of now."""
    settings = world.settings()
    stores = world.stores()
    particles, split = stores.particles, stores.distance_sides.split
    n = particles.count
    left, bottom, right, top = settings.walls
    pos, radius = particles.pos[:n], particles.radius[:n]
    test: Callable[..., bool] = all_inside_walls
    test_arguments: tuple[Any, ...] = (pos, radius, left, bottom, right, top)
    if split:  # the threads were cut: the same halves, each on its own thread
        test, test_arguments = all_inside_walls_in_two, (*test_arguments, split)
    points = (pos, particles.prev[:n], radius, particles.inv_mass[:n], particles.kind[:n])
    return test, test_arguments, (*points, *walls(settings, step.dt))


def walls(settings: WorldSettings, dt: float) -> Walls:
    """``clamp_to_bounds``' arguments after the particle arrays, for a substep of ``dt`` seconds:
    the walls now, their friction and restitution, the rest speed and the walls' velocity as
    distances a substep (floats: one typing of the tuple for the kernels that take it whole)."""
    left, bottom, right, top = settings.walls
    velocity_x, velocity_y = settings.wall_velocity
    return (
        float(left),
        float(bottom),
        float(right),
        float(top),
        float(settings.floor_friction),
        float(settings.restitution),
        float(settings.friction),
        REST_SPEED * dt,
        velocity_x * dt,
        velocity_y * dt,
    )
