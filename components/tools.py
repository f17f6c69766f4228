"""What the input tools leave in the world for the systems to act on."""

from __future__ import annotations

from dataclasses import dataclass, field

NOTHING = -1


@dataclass
class Grab:
    """The mouse holding a particle: a pin whose anchor follows the cursor.

    The tool sets ``target`` (the cursor, px) and ``held``; the grab system
    picks the nearest particle within ``reach`` px on the first frame and
    records it in ``particle`` until release.
    """

    target: tuple[float, float] = (0.0, 0.0)
    held: bool = False
    reach: float = 40.0
    particle: int = NOTHING


@dataclass
class CutStroke:
    """Segments ``(x0, y0, x1, y1)`` the cursor swept since the last frame; every thread they cross is cut."""

    segments: list[tuple[float, float, float, float]] = field(default_factory=list)
