"""What the drawing systems are told by whoever owns the window, beyond what the world holds."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass


@dataclass
class DrawOptions:
    """Shared by every drawing system; the owner of the window updates it before each draw.

    ``world`` identifies the world being drawn and must change whenever the
    world is rebuilt (entity ids restart then, so GPU buffers cached per entity
    would otherwise be reused for a different body): the game passes
    ``(simulation.world_name, simulation.generation)``.
    """

    world: Hashable = None
    debug: bool = False
    """Draw every thread coloured by strain and emphasise the pins."""
    shading: float = 1.0
    """Strength of the cloth's fold shading, 0 (flat) to 1."""
    show_pins: bool = True
    """Draw pin heads on pinned points outside the debug view too."""
