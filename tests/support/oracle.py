"""pymunk twins of our box scenes: the reference the box solver is checked against (tests only).

Facts about pymunk 6.9 this relies on (checked on this machine, see the
shared reference notes): a settled stack rests with exactly its collision
slop (0.1 px) of overlap per contact; a pair's friction is the product of
the two shapes' (so every shape gets ``sqrt(μ)`` for a pair friction of
``μ``); positions are integrated before velocities, so pymunk's poses trail
ours by one step while things move (not once they rest).
"""

from __future__ import annotations

import math

import pymunk

FRAME_DT = 1.0 / 60.0
PYMUNK_SLOP = 0.1
"""px of overlap pymunk leaves at every resting contact (its ``collision_slop``)."""


def space(gravity: float, friction: float, iterations: int = 10) -> pymunk.Space:
    """A space with a static floor along y = 0, pair friction ``friction`` everywhere, sleeping off."""
    world = pymunk.Space()
    world.gravity = (0.0, -gravity)
    world.iterations = iterations
    floor = pymunk.Segment(world.static_body, (-10000.0, 0.0), (10000.0, 0.0), 0.0)
    floor.friction = math.sqrt(friction)
    world.add(floor)
    return world


def box(world: pymunk.Space, x: float, y: float, size: float, friction: float) -> pymunk.Body:
    """A dynamic square of side ``size`` px and mass 1 centred at (x, y)."""
    body = pymunk.Body(1.0, pymunk.moment_for_box(1.0, (size, size)))
    body.position = (x, y)
    shape = pymunk.Poly.create_box(body, (size, size))
    shape.friction = math.sqrt(friction)
    world.add(body, shape)
    return body


def run(world: pymunk.Space, frames: int) -> None:
    """Step ``frames`` frames of 1/60 s."""
    for _ in range(frames):
        world.step(FRAME_DT)
