"""Gravity wells: a Weft plugin system that pulls circles towards fixed points (docs/extending.md)."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from weft.components import ParticleKind
from weft.systems import world
from weft.systems.registry import SystemParams, Vec2, register
from weft.systems.schedule import Stage, Step, System


@register
class GravityWells(System):
    """Pulls every free circle towards each well: `strength` within `core` px, as 1/r² beyond."""

    name = "gravity_wells"
    stage = Stage.SUBSTEP
    after = ("integrate",)  # a move after the Verlet step is an acceleration, like gravity's
    before = ("broadphase",)  # and the contacts of this substep see it
    needs = ("colliding",)  # a world without circles leaves it out

    class Params(SystemParams):
        wells: list[Vec2] = Field([[640.0, 360.0]], description="Centres of the wells [[x, y], ...], px.")
        strength: float = Field(2000.0, ge=0.0, le=100000.0, description="Pull within the core, px/s².")
        core: float = Field(100.0, gt=0.0, le=10000.0, description="Radius of the core, px.")

    params: Params  # the level's params, validated: the registry sets them

    def process(self, step: Step) -> None:
        particles = world.stores().particles
        n = particles.count
        pos = particles.pos[:n]  # a view into the store: writing it moves the circles
        free = (particles.kind[:n] == ParticleKind.CIRCLE) & (particles.inv_mass[:n] > 0.0)
        core = self.params.core
        pull = self.params.strength * step.dt**2  # Verlet keeps a move of a·dt² as an acceleration a
        for well in self.params.wells:
            offset = np.asarray(well) - pos[free]
            distance = np.maximum(np.hypot(offset[:, 0], offset[:, 1]), 1e-9)
            scale = pull * (core / np.maximum(distance, core)) ** 2 / distance
            pos[free] += offset * scale[:, None]
