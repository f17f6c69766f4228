"""Shaking the container: while the tool is held, the walls swing side to side."""

from __future__ import annotations

import math

from weft.components import Shake
from weft.systems import world
from weft.systems.schedule import Step, System
from weft.systems.world import by_entity


class ShakeSystem(System):
    """Moves the walls along ``x = A sin(2π f t)`` while a ``Shake`` is held, every substep.

    Moving walls push what they meet with their own velocity (the walls
    system bounces circles in the wall's frame), so the shaking reaches the
    pile through contacts, as in a real box. On release the swing finishes
    its half-period and the walls come to rest at home.
    """

    name = "shake"

    def idle(self, step: Step) -> bool:
        settings = world.settings()
        if settings.wall_offset != (0.0, 0.0) or settings.wall_velocity != (0.0, 0.0):
            return False
        return all(not shake.held and shake.phase == 0.0 for _, shake in by_entity(Shake))

    def process(self, step: Step) -> None:
        settings = world.settings()
        offset = 0.0
        velocity = 0.0
        for _, shake in by_entity(Shake):
            if not shake.held and shake.phase == 0.0:
                continue
            shake.phase += step.dt
            turns = shake.frequency * shake.phase
            if not shake.held and turns % 0.5 < shake.frequency * step.dt:
                shake.phase = 0.0  # back home after a whole half-swing
                continue
            omega = 2.0 * math.pi * shake.frequency
            offset += shake.amplitude * math.sin(omega * shake.phase)
            velocity += shake.amplitude * omega * math.cos(omega * shake.phase)
        settings.wall_offset = (offset, 0.0)
        settings.wall_velocity = (velocity, 0.0)
