"""Drawing a session: the world through the DRAW stage, then the tools' overlays.

The window's ``on_draw`` and the offscreen screenshots both call
``WorldRenderer.draw``; the HUD and the panel are the window's own, drawn after.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import arcade
import esper
import numpy as np
import numpy.typing as npt

from components import Grab
from game.level.schema import rgba
from systems.draw.cloth_mesh import ClothMeshSystem
from systems.draw.options import DrawOptions
from systems.draw.pins import PinMarkerSystem
from systems.draw.strokes import SEGMENT_FIELDS, StrokeBatch, segments
from systems.draw.textures import ClothTextures
from systems.draw.threads import ThreadDebugSystem
from systems.schedule import Schedule, Step, System

if TYPE_CHECKING:
    from arcade.gl import Context

    from game.session import Session

TRAIL_FADE_TICKS = 20
"""Ticks (1/60 s each) over which a cut segment fades out after it was made."""

BLADE = (255, 250, 235)
BLADE_GLOW = (255, 196, 120)
GRAB = (255, 238, 170)
WIND = (140, 210, 255)

ARROW_HEAD_ANGLE = math.radians(28.0)


class WorldRenderer:
    """Draws a session into the active framebuffer, world bounds fitted to it.

    Owns one instance of each drawing system and (re)inserts them into the
    simulation's schedule whenever it lacks them: a reset rebuilds the
    schedule, and the systems keep their textures across it.

    Example::

        renderer = WorldRenderer(window.ctx)
        def on_draw():
            renderer.draw(session)   # then the HUD and panel
    """

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.options = DrawOptions()
        self.systems: list[System] = [
            ClothMeshSystem(ctx, self.options, ClothTextures(ctx)),
            ThreadDebugSystem(ctx, self.options),
            PinMarkerSystem(ctx, self.options),
        ]
        self.strokes = StrokeBatch(ctx)
        self.camera = arcade.Camera2D(window=ctx.window)

    def draw(self, session: Session) -> None:
        """Clear to the level's background and draw the world and the tool overlays."""
        sim = session.sim
        sim.activate()
        target = self.ctx.active_framebuffer
        target.clear(color=rgba(sim.level.model.world.background))
        self._fit(sim.settings.bounds, target.size)
        self.options.world = (sim.world_name, sim.generation)
        self.options.debug = session.debug
        self._schedule(sim.schedule)
        with self.camera.activate():
            sim.schedule.draw(Step(frame=sim.frame))
            self.strokes.draw(self.overlays(session))

    def to_world(self, x: float, y: float) -> tuple[float, float]:
        """World px under window px ``(x, y)``, as the last ``draw`` fitted the bounds."""
        point = self.camera.unproject((x, y))
        return (point[0], point[1])

    def _fit(self, bounds: tuple[float, float, float, float], size: tuple[int, int]) -> None:
        """Centre the bounds in the framebuffer at the largest scale that shows them whole."""
        left, bottom, right, top = bounds
        width, height = size
        camera = self.camera
        camera.viewport = arcade.LBWH(0, 0, width, height)
        camera.projection = arcade.LRBT(-width / 2, width / 2, -height / 2, height / 2)
        camera.zoom = min(width / (right - left), height / (top - bottom))
        camera.position = ((left + right) / 2, (bottom + top) / 2)

    def _schedule(self, schedule: Schedule) -> None:
        """Put this renderer's drawing systems into ``schedule`` unless it has them.

        A system of the same class from another renderer (another GL context) is
        replaced; a custom system that merely shares a name is left alone.
        """
        for system in self.systems:
            try:
                present = schedule.get(system.name)
            except KeyError:
                schedule.add(system)
                continue
            if present is not system and type(present) is type(system):
                schedule.remove(system.name)
                schedule.add(system)

    # -- overlays -----------------------------------------------------------

    def overlays(self, session: Session) -> npt.NDArray[np.float32]:
        """Every tool overlay as stroke rows, drawn in one call: cut trail, grab line, wind arrow."""
        parts = [self._trail(session), self._grab(session), self._wind(session)]
        return np.concatenate(
            [part for part in parts if len(part)] or [np.zeros((0, SEGMENT_FIELDS), np.float32)]
        )

    def _trail(self, session: Session) -> npt.NDArray[np.float32]:
        """The blade's recent segments: a warm glow under a white core, thinning and fading with age."""
        if not session.trail:
            return np.zeros((0, SEGMENT_FIELDS), np.float32)
        trail = np.array(session.trail, dtype=np.float64)
        life = np.clip(1.0 - (session.tick - trail[:, 4]) / TRAIL_FADE_TICKS, 0.0, 1.0)
        visible = life > 0.0
        ends, life = trail[visible, :4], life[visible]
        glow = np.column_stack([np.tile(BLADE_GLOW, (len(life), 1)), 170.0 * life])
        core = np.column_stack([np.tile(BLADE, (len(life), 1)), 240.0 * life])
        glow_radius = 3.0 + 6.0 * life
        return np.concatenate(
            [
                segments(ends[:, :2], ends[:, 2:], glow_radius, glow, feather=glow_radius),
                segments(ends[:, :2], ends[:, 2:], 0.6 + 1.6 * life, core),
            ]
        )

    def _grab(self, session: Session) -> npt.NDArray[np.float32]:
        """A line from the held point to the cursor, a ring on the point and a dot at the cursor."""
        sim = session.sim
        if session.pointer is None:
            return np.zeros((0, SEGMENT_FIELDS), np.float32)
        held = esper.component_for_entity(sim.cursor, Grab)
        if held.particle < 0:
            return np.zeros((0, SEGMENT_FIELDS), np.float32)
        point = sim.stores.particles.pos[held.particle]
        cursor = np.asarray(session.pointer, dtype=np.float64)
        return np.concatenate(
            [
                segments(point, cursor, 1.2, (*GRAB, 170)),
                segments(point, point, 7.0, (*GRAB, 235), ring=2.0),
                segments(cursor, cursor, 3.0, (*GRAB, 235)),
            ]
        )

    def _wind(self, session: Session) -> npt.NDArray[np.float32]:
        """While the wind tool is dragging: an arrow from where the drag started to the cursor."""
        tool = session.tool
        start = getattr(tool, "start", None)
        if tool.name != "wind" or start is None or session.pointer is None:
            return np.zeros((0, SEGMENT_FIELDS), np.float32)
        tail = np.asarray(start, dtype=np.float64)
        tip = np.asarray(session.pointer, dtype=np.float64)
        length = float(np.hypot(*(tip - tail)))
        if length < 1.0:
            return segments(tail, tail, 4.0, (*WIND, 230))
        back = (tail - tip) / length
        head = min(22.0, 0.35 * length)
        barbs = []
        for turn in (ARROW_HEAD_ANGLE, -ARROW_HEAD_ANGLE):
            c, s = math.cos(turn), math.sin(turn)
            barbs.append(tip + head * np.array([c * back[0] - s * back[1], s * back[0] + c * back[1]]))
        return np.concatenate(
            [
                segments(tail, tip, 8.0, (*WIND, 70), feather=8.0),
                segments(tail, tip, 2.5, (*WIND, 230)),
                segments(np.array([tip, tip]), np.array(barbs), 2.5, (*WIND, 230)),
                segments(tail, tail, 5.0, (*WIND, 230), ring=2.0),
            ]
        )
