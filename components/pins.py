"""Pins: particles held at an anchor (a level pin, or the point the mouse grabbed)."""

from __future__ import annotations

import numpy as np

from weft.components.growth import grow

ARRAYS = ("index", "anchor", "start", "saved_inv_mass", "owner", "speed")
"""The per-pin arrays of a ``PinStore``, a row each."""


class PinStore:
    """Structure-of-arrays pins; rows ``[0, count)`` are in use.

    A pinned particle has inverse mass 0, so constraints move only its
    neighbours; ``saved_inv_mass`` restores it when the pin is released.
    ``anchor`` is where the particle must be at the end of the frame;
    ``start`` is where it was at the start, so a moving anchor (a grab) is
    reached in even steps across substeps and the particle keeps a velocity
    that a throw can carry on release.

    Attributes (``P`` = capacity):
        index: ``(P,)`` int64, the pinned particle.
        anchor: ``(P, 2)`` float64, target position at the end of the frame, px.
        start: ``(P, 2)`` float64, position at the start of the frame, px.
        saved_inv_mass: ``(P,)`` float64, the particle's inverse mass before pinning.
        owner: ``(P,)`` int64, the entity that owns the pin (a body, or the grab tool).
        speed: ``(P,)`` float64, px/s at most that the pin travels towards its anchor (a level's
            pins glide slowly, so a sheet is not yanked; a grab follows the cursor up to a
            speed nothing is flung at; infinity: the anchor is reached every frame).
    """

    def __init__(self, capacity: int = 64) -> None:
        self.count = 0
        self.index = np.zeros(capacity, dtype=np.int64)
        self.anchor = np.zeros((capacity, 2))
        self.start = np.zeros((capacity, 2))
        self.saved_inv_mass = np.zeros(capacity)
        self.owner = np.zeros(capacity, dtype=np.int64)
        self.speed = np.full(capacity, np.inf)

    def find(self, particle: int) -> int:
        """Row of the pin holding ``particle``, or -1."""
        rows = np.flatnonzero(self.index[: self.count] == particle)
        return int(rows[0]) if len(rows) else -1

    def add(
        self,
        particle: int,
        anchor: tuple[float, float],
        saved_inv_mass: float,
        owner: int,
        speed: float = np.inf,
    ) -> int:
        """Append one pin; return its row."""
        row = self.count
        if row == len(self.index):
            capacity = 2 * row
            for name in ARRAYS:
                setattr(self, name, grow(getattr(self, name), capacity))
        self.index[row] = particle
        self.anchor[row] = anchor
        self.start[row] = anchor
        self.saved_inv_mass[row] = saved_inv_mass
        self.owner[row] = owner
        self.speed[row] = speed
        self.count = row + 1
        return row

    def remove(self, row: int) -> None:
        """Delete one pin, keeping the order of the others (the solve order)."""
        for name in ARRAYS:
            array = getattr(self, name)
            array[row : self.count - 1] = array[row + 1 : self.count]
        self.count -= 1
