"""Pressure soft bodies: a ring of points kept inflated, with jointed legs and a face."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from weft.components.tools import Press


@dataclass
class Legs:
    """Legs of three points: a root on the ring (between ring points ``a`` and ``b``), a knee and a foot.

    One entry per leg in each array. ``knee_range`` and ``foot_range`` are
    ``(2 * legs,)`` [low, high] pairs in radians, counter-clockwise
    positive: the knee's direction from the body's down axis, the foot's
    from the upper segment.
    """

    root_a: npt.NDArray[np.int64]
    root_b: npt.NDArray[np.int64]
    root_t: npt.NDArray[np.float64]
    knee: npt.NDArray[np.int64]
    foot: npt.NDArray[np.int64]
    length: npt.NDArray[np.float64]
    knee_range: npt.NDArray[np.float64]
    foot_range: npt.NDArray[np.float64]
    thickness: float

    @property
    def points(self) -> npt.NDArray[np.int64]:
        """Every knee and foot particle."""
        return np.concatenate([self.knee, self.foot])


@dataclass
class CreatureLook:
    """Colours of a creature, RGBA 0-255 (the shade is the body's shadow band, light from the upper left)."""

    body: tuple[int, int, int, int] = (246, 178, 107, 255)
    shade: tuple[int, int, int, int] = (214, 132, 84, 255)
    outline: tuple[int, int, int, int] = (58, 38, 42, 255)
    cheeks: tuple[int, int, int, int] = (240, 120, 120, 200)


@dataclass
class SoftBody:
    """A creature: a ring of particles (counter-clockwise) kept taut by pressure, legs below, a face above.

    No rest shape is stored: the round shape is where pressure (always
    pushing, as ``target_area`` is beyond what ``rest_perimeter`` can
    enclose) and the pull-only ring edges (``rest`` px each) agree.
    ``head`` is the position in ``ring`` of the top of the head; ``bead``
    the skin points' collision radius, drawn as the skin's thickness.
    ``pressed`` is all the face knows of the simulation.
    """

    name: str
    ring: npt.NDArray[np.int64]
    rest: float
    legs: Legs
    target_area: float
    rest_perimeter: float
    pressure: float
    head: int
    bead: float
    upright: float
    look: CreatureLook = field(default_factory=CreatureLook)
    pressed: bool = False
    poke: int = 0
    """Frames left of a poke (Enter): a press on the top of the head."""
    poke_finger: Press = field(default_factory=Press)
    """The poke's finger: held down on the head while ``poke`` lasts, moved as the press tool's is."""
    was_at: tuple[float, float] | None = None
    """The ring's centre when the last frame began, px: how fast the body moves under a finger."""

    @property
    def particles(self) -> npt.NDArray[np.int64]:
        """Every particle of the creature: ring, then knees and feet."""
        return np.concatenate([self.ring, self.legs.points])
