"""Cutting: the cursor's stroke severs every thread it crosses."""

from __future__ import annotations

from weft.components import CutStroke
from weft.systems import world
from weft.systems.kernels.tear import cut_crossing
from weft.systems.schedule import Step, System
from weft.systems.tear import kill_dependents


class CutSystem(System):
    """Consumes the segments of every ``CutStroke`` and kills the threads they cross."""

    name = "cut"

    def process(self, step: Step) -> None:
        stores = world.stores()
        distances = stores.distances
        m = distances.count
        for _entity, stroke in world.by_entity(CutStroke):
            cut = 0
            for x0, y0, x1, y1 in stroke.segments:
                if (x0, y0) == (x1, y1):
                    continue  # a click, not a stroke: crosses nothing
                cut += cut_crossing(
                    stores.particles.pos,
                    distances.i[:m],
                    distances.j[:m],
                    distances.alive[:m],
                    x0,
                    y0,
                    x1,
                    y1,
                )
            stroke.segments.clear()
            if cut:
                kill_dependents(stores)
