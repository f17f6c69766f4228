"""Drawing a session as the window shows it: the bodies through ``weft.draw``, then the tools' overlays.

The window's ``on_draw`` and the offscreen screenshots both call
``WorldRenderer.draw``; the HUD and the panel are the window's own, drawn after.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import arcade
import numpy as np
import numpy.typing as npt

from weft.game.level.values import rgba
from weft.game.overlays import FLOOR_DEPTH, VIEW_MARGIN, WALL_THICKNESS, tool_overlays
from weft.game.renderer import DEFAULT_LAYERS, LAYERS, Renderer
from weft.game.tools import MAX_SWING
from weft.systems.draw.strokes import StrokeBatch

if TYPE_CHECKING:
    from arcade.gl import Context

    from weft.game.session import Session


class WorldRenderer:
    """Draws a session as the window shows it: cleared to the level's background, the world's
    bounds fitted to the framebuffer (or to its part left of the panel), the bodies (a
    ``weft.draw.Renderer``, as a game of your own would draw them), then the tools' overlays.

    The fitted rectangle is ``view_bounds``: the bounds and a floor below
    them, or in levels with circles the walls' frame and the shake tool's
    swing where it is offered, so world px and framebuffer px differ
    (``to_window`` and ``to_world`` convert). One ``Renderer`` serves every level the window
    plays (its textures are kept), handed each new level's physics.

    Example::

        renderer = WorldRenderer(window.ctx)
        def on_draw():
            renderer.draw(session)   # then the HUD and panel
    """

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.bodies: Renderer | None = None
        self.strokes = StrokeBatch(ctx)
        self.camera = arcade.Camera2D(window=ctx.window)

    def draw(self, session: Session, beside: int = 0, below: int = 0) -> None:
        """Clear to the level's background and draw the world and the tool overlays, fitted to the
        framebuffer less a column of ``beside`` px on its right (where the window's panel sits),
        with the foot of the bounds ``below`` px or more above the framebuffer's (the window's hint
        line lies over the floor there, not over what rests on it, however far the view is zoomed
        out)."""
        sim = session.sim
        if self.bodies is None:
            self.bodies = Renderer(sim.physics, self.ctx)
        bodies = self.bodies
        bodies.physics = sim.physics
        target = self.ctx.active_framebuffer
        model = sim.level.model
        target.clear(color=rgba(model.world.background))
        width, height = target.size
        ground = sim.settings.bounds[1]
        self._fit(view_bounds(session), (max(1, width - beside), height), ground, below)
        bodies.options.color_by = model.view.color_by
        bodies.options.palette = tuple(rgba(color) for color in model.view.palette)
        with self.camera.activate():
            bodies.draw(layers=LAYERS if session.debug else DEFAULT_LAYERS)
            self.strokes.draw(tool_overlays(session))

    def to_world(self, x: float, y: float) -> tuple[float, float]:
        """World px under window px ``(x, y)``, as the last ``draw`` fitted the bounds."""
        point = self.camera.unproject((x, y))
        return (point[0], point[1])

    def to_window(self, points: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Framebuffer px ``(n, 2)`` (y up) of world points ``(n, 2)``, as the last ``draw`` fitted them."""
        camera = self.camera
        points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        left, bottom, width, height = camera.viewport.lbwh
        center = np.array(camera.position, dtype=np.float64)
        return (points - center) * camera.zoom + np.array([left + width / 2, bottom + height / 2])

    def _fit(
        self, bounds: tuple[float, float, float, float], size: tuple[int, int], ground: float, below: int
    ) -> None:
        """Centre the bounds in the framebuffer's lower left ``size`` at the largest scale that shows
        them, with world height ``ground`` at ``below`` px or more (else the bounds from ``ground``
        up are centred in what lies above those px)."""
        left, bottom, right, top = bounds
        width, height = size
        camera = self.camera
        camera.viewport = arcade.LBWH(0, 0, width, height)
        # Camera2D's projection setter multiplies by the current zoom: reset it first, or a
        # second fit at a zoom other than 1 would scale the view by that zoom once more
        camera.zoom = 1.0
        camera.projection = arcade.LRBT(-width / 2, width / 2, -height / 2, height / 2)
        zoom = min(width / (right - left), height / (top - bottom))
        middle = (bottom + top) / 2
        if height / 2 + (ground - middle) * zoom < below < height:
            zoom = min(width / (right - left), (height - below) / (top - ground))
            # the view's middle in world px: the span from ground up centred in the px above below
            middle = ground + (top - ground) / 2 - below / 2 / zoom
        camera.zoom = zoom
        camera.position = ((left + right) / 2, middle)


def view_bounds(session: Session) -> tuple[float, float, float, float]:
    """The world rectangle the view shows: the level's bounds and what is drawn around them.

    Without circles that is ``FLOOR_DEPTH`` of floor below the bounds (see
    ``overlays._floor``). With circles the walls are drawn outside the bounds,
    the floor among them, so their thickness is added; when the level can
    shake, the walls (and what they push) swing up to ``MAX_SWING`` px to
    either side, so the view is as much wider.
    """
    sim = session.sim
    left, bottom, right, top = sim.settings.bounds
    if not sim.settings.circles:
        return (left, bottom - FLOOR_DEPTH, right, top)
    pad = WALL_THICKNESS + VIEW_MARGIN
    swing = MAX_SWING if "shake" in sim.level.model.tools.available else 0.0  # the walls move along x only
    return (left - pad - swing, bottom - pad, right + pad + swing, top + pad)
