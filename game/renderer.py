"""Drawing a ``weft.Physics`` into a game's own framebuffer, and sprites that ride on its bodies.

The public face is ``weft.draw`` (``from weft.draw import Renderer, follow``); see there.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import arcade

from weft.game.level.problems import LevelError
from weft.game.level.schema import ViewTable
from weft.game.level.values import rgba
from weft.game.physics import Physics, physics_of_current_world
from weft.systems.draw.boxes import BoxSystem
from weft.systems.draw.circles import CircleSystem
from weft.systems.draw.cloth_mesh import ClothMeshSystem
from weft.systems.draw.creatures import CreatureSystem
from weft.systems.draw.options import DrawOptions
from weft.systems.draw.pins import PinMarkerSystem
from weft.systems.draw.skins import SkinMeshSystem
from weft.systems.draw.textures import ClothTextures
from weft.systems.draw.threads import ThreadDebugSystem
from weft.systems.schedule import Schedule, Stage, Step, System

if TYPE_CHECKING:
    from arcade.gl import Context

LAYERS = ("cloth", "circles", "boxes", "skins", "creatures", "custom", "debug")
"""What ``Renderer.draw`` can draw, in the order it draws them: cloth (with its pins), circles,
boxes, skinned characters, creatures, the drawing systems of custom plugins, and the debug view
(threads coloured by strain; with it, boxes show their contacts and skins their bones)."""

DEFAULT_LAYERS = ("cloth", "circles", "boxes", "skins", "creatures", "custom")
"""What ``draw()`` draws without ``layers``: everything but the debug view."""


class Renderer:
    """Draws one ``weft.Physics`` into the active framebuffer under the active camera.

    Every kind of body is one batch, uploaded from the stores and drawn in one
    call. ``options`` (a ``DrawOptions``) holds what is yours to choose: the
    circles' ``palette`` and ``color_by`` (``"size"`` or ``"speed"``),
    ``show_pins``, the cloth's fold ``shading``; ``hide(entity)`` leaves a
    body out. Sizes drawn in screen px (circle outlines, contact dots)
    follow the active camera's zoom.
    """

    def __init__(self, physics: Physics, ctx: Context | None = None) -> None:
        if not isinstance(physics, Physics):
            raise TypeError(f"Renderer: expected a weft.Physics, got {physics!r}")
        self.physics = physics
        """Whose bodies are drawn (the window's renderer is handed each new level's)."""
        self.ctx = ctx if ctx is not None else arcade.get_window().ctx
        self.options = DrawOptions()
        ctx, options = self.ctx, self.options
        drawn = (
            ("cloth", ClothMeshSystem(ctx, options, ClothTextures(ctx))),
            ("circles", CircleSystem(ctx, options)),
            ("boxes", BoxSystem(ctx, options)),
            ("skins", SkinMeshSystem(ctx, options)),
            ("creatures", CreatureSystem(ctx, options)),
            ("debug", ThreadDebugSystem(ctx, options)),
            ("cloth", PinMarkerSystem(ctx, options)),  # pin heads on top of everything
        )
        self.systems: list[System] = [system for _, system in drawn]
        """This renderer's drawing systems, in the order they draw."""
        self._layer_of = {id(system): layer for layer, system in drawn}
        self._checked: tuple[Any, Any] = (options.palette, options.color_by)
        """The circles' palette and colouring last checked (``_check_options``)."""

    def hide(self, *entities: int) -> None:
        """Draw these bodies no more (a game that draws them as sprites of its own, say)."""
        self.options.hidden = self.options.hidden | set(entities)

    def show(self, *entities: int) -> None:
        """Draw these hidden bodies again."""
        self.options.hidden = self.options.hidden - set(entities)

    def draw(self, layers: Iterable[str] | None = None, *, zoom: float | None = None) -> None:
        """Draw ``layers`` (names from ``LAYERS``; default ``DEFAULT_LAYERS``) as they are now.

        ``zoom``: framebuffer px per world px, if not the active camera's (``Camera2D.zoom``).
        """
        if isinstance(layers, str):
            raise TypeError(f"layers: expected a list of layer names, got the string {layers!r}")
        chosen = set(DEFAULT_LAYERS if layers is None else layers)
        unknown = sorted(chosen - set(LAYERS), key=str)
        if unknown:
            raise ValueError(f"unknown layers {unknown}; expected some of {', '.join(LAYERS)}")
        if zoom is not None and not (isinstance(zoom, int | float) and math.isfinite(zoom) and zoom > 0):
            raise ValueError(f"zoom: expected a finite number > 0 (framebuffer px per world px), got {zoom}")
        self._check_options()
        physics = self.physics
        schedule = physics.schedule  # first: reading it notices a cleared world, which changes the revision
        options = self.options
        options.world = (physics.world, physics.revision)
        options.debug = "debug" in chosen
        options.zoom = float(zoom if zoom is not None else getattr(self.ctx.current_camera, "zoom", 1.0))
        self._schedule(schedule)
        step = Step(frame=physics.frame)
        with physics.entered():
            for system in schedule.systems(Stage.DRAW):
                if self._layer_of.get(id(system), "custom") in chosen:
                    system.process(step)

    def _check_options(self) -> None:
        """The circles' ``palette`` and ``color_by`` as you set them, checked as a level's ``[view]``
        table is (colours as ``"#rrggbb"`` or ``(r, g, b[, a])``, 2 to 8 of them) and the palette
        made RGBA tuples; ``LevelError`` naming the key for what it refuses. Only when they changed."""
        options = self.options
        if (options.palette, options.color_by) == self._checked:
            return
        palette = [list(c) if isinstance(c, tuple) else c for c in options.palette]
        try:
            view = ViewTable(palette=palette, color_by=options.color_by)
        except LevelError as error:
            raise LevelError([replace(p, file="renderer.options") for p in error.problems]) from None
        options.palette = tuple(rgba(color) for color in view.palette)
        self._checked = (options.palette, options.color_by)

    def _schedule(self, schedule: Schedule) -> None:
        """Put this renderer's drawing systems into ``schedule`` unless it has them.

        The schedule's DRAW stage orders them among custom drawing systems (which name
        their place ``after``/``before`` them). A system of the same class from another
        renderer (another GL context) is replaced; a custom system that merely shares a
        name is left alone.
        """
        mine = self.systems
        stale = [
            system.name
            for system in mine
            if type(present := _scheduled(schedule, system.name)) is type(system) and present is not system
        ]
        # all of another renderer's go before any of ours come in: one at a time, a system put
        # back at the end could no longer keep its place between two others
        for name in stale:
            schedule.remove(name)
        for system in mine:
            if _scheduled(schedule, system.name) is None:
                schedule.add(system)


def _scheduled(schedule: Schedule, name: str) -> System | None:
    """The system called ``name`` in ``schedule``, or None."""
    try:
        return schedule.get(name)
    except KeyError:
        return None


def follow(sprite: Any, entity: int, index: int | str = 0, *, physics: Physics | None = None) -> None:
    """After every frame, ``sprite`` takes the position and angle of a body: a box (``index``: which
    of its set), a circle of a set, a creature (its centre and tilt) or a skeleton's bone (its index
    or name). Arcade's convention is kept: ``sprite.angle`` in degrees, clockwise.

    ``physics``: whose body ``entity`` is (default: the Physics of the current esper world). The
    sprite is held weakly: a sprite you drop stops being moved; so does one whose body is removed.
    """
    (physics or physics_of_current_world()).follow(sprite, entity, index)


def unfollow(sprite: Any, *, physics: Physics | None = None) -> None:
    """Stop moving ``sprite`` (see ``follow``)."""
    (physics or physics_of_current_world()).unfollow(sprite)
