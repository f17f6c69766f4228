"""Relaxation of distance constraints, one Gauss-Seidel pass per iteration."""

from __future__ import annotations

import numpy as np

from weft.components import DistanceMode
from weft.systems import world
from weft.systems.kernels.distance import relax_distances, relax_rigid_distances
from weft.systems.schedule import Step, System


class DistanceSystem(System):
    """Pulls every alive thread back towards its rest length (PBD, or XPBD when compliant).

    Once a frame it checks whether any constraint is compliant or pull-only;
    when none is, the lighter rigid kernel runs (the same arithmetic, fewer loads).
    """

    name = "distances"
    needs_particles = True

    def __init__(self) -> None:
        self._general = True

    def process(self, step: Step) -> None:
        stores = world.stores()
        distances = stores.distances
        m = distances.count
        if m == 0:
            return
        particles = stores.particles
        if step.iteration == 0:
            if step.substep == 0:
                self._general = bool(
                    np.any(distances.compliance[:m]) or np.any(distances.mode[:m] != DistanceMode.EQUAL)
                )
            # XPBD's multipliers accumulate over the iterations of one substep only
            distances.lam[:m] = 0.0
        if not self._general:
            relax_rigid_distances(
                particles.pos,
                particles.inv_mass,
                distances.i[:m],
                distances.j[:m],
                distances.rest[:m],
                distances.alive[:m],
            )
            return
        relax_distances(
            particles.pos,
            particles.inv_mass,
            distances.i[:m],
            distances.j[:m],
            distances.rest[:m],
            distances.compliance[:m],
            distances.lam[:m],
            distances.alive[:m],
            distances.mode[:m],
            step.dt,
        )
