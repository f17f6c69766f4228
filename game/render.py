"""Drawing a session: the world through the DRAW stage, then the tools' overlays.

The window's ``on_draw`` and the offscreen screenshots both call
``WorldRenderer.draw``; the HUD and the panel are the window's own, drawn after.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import arcade
import numpy as np
import numpy.typing as npt

from weft.game.level.fields import rgba
from weft.game.overlays import VIEW_MARGIN, WALL_THICKNESS, tool_overlays
from weft.game.tools import MAX_SWING
from weft.systems.draw.boxes import BoxSystem
from weft.systems.draw.circles import CircleSystem
from weft.systems.draw.cloth_mesh import ClothMeshSystem
from weft.systems.draw.creatures import CreatureSystem
from weft.systems.draw.options import DrawOptions
from weft.systems.draw.pins import PinMarkerSystem
from weft.systems.draw.skins import SkinMeshSystem
from weft.systems.draw.strokes import StrokeBatch
from weft.systems.draw.textures import ClothTextures
from weft.systems.draw.threads import ThreadDebugSystem
from weft.systems.schedule import Schedule, Step, System

if TYPE_CHECKING:
    from arcade.gl import Context

    from weft.game.session import Session


class WorldRenderer:
    """Draws a session into the active framebuffer, world bounds fitted to it.

    In levels with circles the fitted rectangle is ``view_bounds``: the
    bounds plus the walls' frame, and the shake tool's swing where it is
    offered, so world px and framebuffer px differ there (``to_window`` and
    ``to_world`` convert). Owns one instance of each drawing system and (re)inserts them into the
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
            CircleSystem(ctx, self.options),
            BoxSystem(ctx, self.options),
            SkinMeshSystem(ctx, self.options),
            CreatureSystem(ctx, self.options),
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
        model = sim.level.model
        target.clear(color=rgba(model.world.background))
        self._fit(view_bounds(session), target.size)
        options = self.options
        options.world = (sim.world_name, sim.generation)
        options.debug = session.debug
        options.zoom = self.camera.zoom
        options.color_by = model.view.color_by
        options.palette = tuple(rgba(color) for color in model.view.palette)
        self._schedule(sim.schedule)
        with self.camera.activate():
            sim.schedule.draw(Step(frame=sim.frame))
            self.strokes.draw(tool_overlays(session))

    def to_world(self, x: float, y: float) -> tuple[float, float]:
        """World px under window px ``(x, y)``, as the last ``draw`` fitted the bounds."""
        point = self.camera.unproject((x, y))
        return (point[0], point[1])

    def to_window(self, points: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Framebuffer px ``(n, 2)`` (y up) of world points ``(n, 2)``, as the last ``draw`` fitted them."""
        camera = self.camera
        points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        _left, _bottom, width, height = camera.viewport.lbwh
        center = np.array(camera.position, dtype=np.float64)
        return (points - center) * camera.zoom + np.array([width / 2, height / 2])

    def _fit(self, bounds: tuple[float, float, float, float], size: tuple[int, int]) -> None:
        """Centre the bounds in the framebuffer at the largest scale that shows them whole."""
        left, bottom, right, top = bounds
        width, height = size
        camera = self.camera
        camera.viewport = arcade.LBWH(0, 0, width, height)
        # Camera2D's projection setter multiplies by the current zoom: reset it first, or a
        # second fit at a zoom other than 1 would scale the view by that zoom once more
        camera.zoom = 1.0
        camera.projection = arcade.LRBT(-width / 2, width / 2, -height / 2, height / 2)
        camera.zoom = min(width / (right - left), height / (top - bottom))
        camera.position = ((left + right) / 2, (bottom + top) / 2)

    def _schedule(self, schedule: Schedule) -> None:
        """Put this renderer's drawing systems into ``schedule`` unless it has them.

        A system of the same class from another renderer (another GL context) is
        replaced; a custom system that merely shares a name is left alone.
        """
        stale = [
            system.name
            for system in self.systems
            if type(present := _scheduled(schedule, system.name)) is type(system) and present is not system
        ]
        # all of another renderer's go before any of ours come in: one at a time, a system put
        # back at the end could no longer keep its place between two others
        for name in stale:
            schedule.remove(name)
        for system in self.systems:
            if _scheduled(schedule, system.name) is None:
                schedule.add(system)


def _scheduled(schedule: Schedule, name: str) -> System | None:
    """The system called ``name`` in ``schedule``, or None."""
    try:
        return schedule.get(name)
    except KeyError:
        return None


def view_bounds(session: Session) -> tuple[float, float, float, float]:
    """The world rectangle the view shows: the level's bounds, widened in levels with circles.

    With circles the walls are drawn outside the bounds, so their thickness
    is added; when the level can shake, the walls (and what they push) swing
    up to ``MAX_SWING`` px to either side, so the view is as much wider.
    """
    sim = session.sim
    left, bottom, right, top = sim.settings.bounds
    if not sim.settings.circles:
        return (left, bottom, right, top)
    pad = WALL_THICKNESS + VIEW_MARGIN
    swing = MAX_SWING if "shake" in sim.level.model.tools.available else 0.0  # the walls move along x only
    return (left - pad - swing, bottom - pad, right + pad + swing, top + pad)
