"""Cutting: the cursor's stroke severs every thread it crosses, swept through the frames between events."""

from __future__ import annotations

import math

import numpy as np

from weft.components import CutStroke
from weft.systems import world
from weft.systems.kernels.tear import sweep_cut
from weft.systems.schedule import Step, System
from weft.systems.tear import kill_dependents

REST_FRAMES = 15
"""Frames (1/4 s) after which a blade that has not moved counts as resting: the next segment is
swept against the cloth from then on, not from where it was when the blade stopped. Event
gaps in a slow window (a few frames) stay well below it."""


class CutSystem(System):
    """Consumes the segments of every ``CutStroke`` and kills the threads they cross.

    A frame's segments are one stretch of the stroke, from the last event
    (when the cloth was at ``stroke.then``) to now; each segment gets its
    share of that time by length, and ``sweep_cut`` moves the blade along
    it while the cloth moves between the two states.
    """

    name = "cut"

    def process(self, step: Step) -> None:
        stores = world.stores()
        distances = stores.distances
        particles = stores.particles
        m = distances.count
        n = particles.count
        now = particles.pos[:n]
        for _entity, stroke in world.by_entity(CutStroke):
            moves = [
                segment for segment in stroke.segments if segment[:2] != segment[2:]
            ]  # a click cuts nothing
            stroke.segments.clear()
            if not moves:
                stroke.idle += 1
                if stroke.then is not None and stroke.idle >= REST_FRAMES:
                    stroke.then = now.copy()
                    stroke.idle = 0
                continue
            then = _then(stroke, moves[0], now)
            lengths = [math.hypot(x1 - x0, y1 - y0) for x0, y0, x1, y1 in moves]
            total = sum(lengths)
            cut = 0
            done = 0.0
            for (x0, y0, x1, y1), length in zip(moves, lengths, strict=True):
                t0, done = done / total, done + length
                cut += sweep_cut(
                    then,
                    now,
                    distances.i[:m],
                    distances.j[:m],
                    distances.alive[:m],
                    x0,
                    y0,
                    x1,
                    y1,
                    t0,
                    done / total,
                )
            stroke.then = now.copy()
            stroke.tip = moves[-1][2:]
            stroke.idle = 0
            if cut:
                kill_dependents(stores)


def _then(stroke: CutStroke, first: tuple[float, float, float, float], now: np.ndarray) -> np.ndarray:
    """The cloth as it was when the blade reached the start of ``first``: ``stroke.then`` if the
    segment continues the stroke (rows added since, a pour's, are taken as they are now), else now."""
    tip = stroke.tip
    then = stroke.then
    if then is None or tip is None or math.hypot(first[0] - tip[0], first[1] - tip[1]) > 1e-6:
        return now
    if len(then) < len(now):
        return np.concatenate([then, now[len(then) :]])
    return then if len(then) == len(now) else now
