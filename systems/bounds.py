"""The level's walls: points stop and drag on the floor, circles bounce and slide."""

from __future__ import annotations

from typing import Any

from weft.components.world import REST_SPEED
from weft.systems import world
from weft.systems.kernels.bounds import clamp_to_bounds
from weft.systems.kernels.inside_walls import all_inside_walls
from weft.systems.schedule import Stage, Step, System

WallArguments = tuple[tuple[Any, ...], tuple[Any, ...]]
"""The arguments of ``all_inside_walls`` and of ``clamp_to_bounds``, for one substep."""


class BoundsSystem(System):
    """Puts particles that left the walls' rectangle back inside it, every iteration.

    A quick test first (``all_inside_walls``): when every particle is inside,
    the clamp would move none and is skipped. The arguments are gathered at
    the substep's first iteration and kept for its others.
    """

    name = "bounds"
    stage = Stage.ITERATION
    needs_particles = True
    after = ("distances",)

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
    stage = Stage.SUBSTEP_END
    needs_particles = True
    after = ()
    before = ("tear",)

    def process(self, step: Step) -> None:
        keep_inside(wall_arguments(step))


def keep_inside(arguments: WallArguments) -> None:
    """Clamp the particles to the walls, unless every one is inside them."""
    test, clamp = arguments
    if not all_inside_walls(*test):
        clamp_to_bounds(*clamp)


def wall_arguments(step: Step) -> WallArguments:
    """The test's and the clamp's arguments for the particles and walls of now."""
    settings = world.settings()
    particles = world.stores().particles
    n = particles.count
    left, bottom, right, top = settings.walls
    pos, radius = particles.pos[:n], particles.radius[:n]
    test = (pos, radius, left, bottom, right, top)
    clamp = (
        pos,
        particles.prev[:n],
        radius,
        particles.inv_mass[:n],
        particles.kind[:n],
        left,
        bottom,
        right,
        top,
        settings.floor_friction,
        settings.restitution,
        settings.friction,
        REST_SPEED * step.dt,
        settings.wall_velocity[0] * step.dt,
        settings.wall_velocity[1] * step.dt,
    )
    return test, clamp
