"""What the drawing systems are told by whoever owns the window, beyond what the world holds."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

DEFAULT_PALETTE: tuple[tuple[int, int, int, int], ...] = (
    (58, 134, 255, 255),
    (138, 201, 38, 255),
    (255, 202, 58, 255),
    (255, 89, 94, 255),
)
"""The level format's default ``[view] palette`` (blue, green, yellow, red), RGBA 0-255."""


@dataclass
class DrawOptions:
    """Shared by every drawing system; the owner of the window updates it before each draw.

    ``world`` identifies the world being drawn and must change whenever bodies
    come or go (GPU buffers are cached per entity, and rows move): the
    ``Renderer`` passes ``(physics.world, physics.revision)``.
    """

    world: Hashable = None
    debug: bool = False
    """Draw every thread coloured by strain and emphasise the pins."""
    shading: float = 1.0
    """Strength of the cloth's fold shading, 0 (flat) to 1."""
    show_pins: bool = True
    """Draw pin heads on pinned points outside the debug view too."""
    zoom: float = 1.0
    """Framebuffer px per world px, as the view is fitted: sizes drawn in px (point sprites) scale by it."""
    color_by: str = "size"
    """What places a circle on the palette ramp: ``"size"`` or ``"speed"`` (the level's ``[view]``)."""
    palette: tuple[tuple[int, int, int, int], ...] = DEFAULT_PALETTE
    """The circles' colour ramp, RGBA 0-255, from small (or still) to large (or fast)."""
    hidden: frozenset[int] = frozenset()
    """Entities of bodies not drawn (a game draws them as sprites of its own)."""
