"""Box2D v3 twins of our box scenes (through ``pyb2d3``): the second oracle of the box solver (tests only).

Box2D works in metres and tunes itself for bodies of about one metre (its
linear slop is 5 mm, its push-out speed 3 m/s), so a twin is built at
``PX_PER_M`` = 40: our 40 px box is its unit box, and our gravity of 400 px/s²
its 10 m/s². Everything here takes and gives px, px/s, radians and
degrees/s as our levels do. Sleeping is on, as in both engines' defaults.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pyb2d3 as b2

PX_PER_M = 40.0
FRAME_DT = 1.0 / 60.0
SUBSTEPS = 4
"""Box2D's default, and ours."""


class Twin:
    """A Box2D world with a static floor along y = 0 (and walls where asked), in our units."""

    def __init__(self, gravity: float, *, walls: tuple[float, float] | None = None) -> None:
        self.world = b2.World(gravity=(0.0, -gravity / PX_PER_M))
        self.bodies: list[b2.Body] = []
        ground = self.world.create_static_body(position=(0.0, -1.0))
        ground.create_shape(b2.shape_def(), b2.box(1000.0, 1.0))
        if walls is not None:
            for x in walls:
                wall = self.world.create_static_body(position=(x / PX_PER_M, 0.0))
                wall.create_shape(b2.shape_def(), b2.box(0.01, 1000.0))

    def box(
        self,
        x: float,
        y: float,
        size: tuple[float, float],
        *,
        angle: float = 0.0,
        friction: float = 0.6,
        density: float = 1.0,
        restitution: float = 0.0,
        fixed: bool = False,
        velocity: tuple[float, float] = (0.0, 0.0),
        spin: float = 0.0,
    ) -> b2.Body:
        """A box ``size`` px centred at (x, y) px, turned ``angle`` radians; ``spin`` in degrees/s."""
        position = (x / PX_PER_M, y / PX_PER_M)
        rotation = b2.make_rot(angle)
        if fixed:
            body = self.world.create_static_body(position=position, rotation=rotation)
        else:
            body = self.world.create_dynamic_body(position=position, rotation=rotation)
            body.linear_velocity = (velocity[0] / PX_PER_M, velocity[1] / PX_PER_M)
            body.angular_velocity = math.radians(spin)
        material = b2.surface_material(friction=friction, restitution=restitution)
        shape = b2.shape_def(density=density, material=material)
        body.create_shape(shape, b2.box(0.5 * size[0] / PX_PER_M, 0.5 * size[1] / PX_PER_M))
        if not fixed:
            self.bodies.append(body)
        return body

    def run(self, frames: int) -> None:
        """Step ``frames`` frames of 1/60 s, ``SUBSTEPS`` substeps each."""
        for _ in range(frames):
            self.world.step(FRAME_DT, SUBSTEPS)

    def poses(self) -> npt.NDArray[np.float64]:
        """``(n, 3)``: each moving box's x, y (px) and angle (radians), in the order they were made."""
        return np.array(
            [[b.position[0] * PX_PER_M, b.position[1] * PX_PER_M, b.angle] for b in self.bodies]
        ).reshape(-1, 3)
