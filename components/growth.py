"""Capacity doubling shared by every store."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def grow(array: npt.NDArray, capacity: int, fill: float | int = 0) -> npt.NDArray:
    """Return a copy of ``array`` with ``capacity`` rows; new rows hold ``fill``."""
    bigger = np.full((capacity, *array.shape[1:]), fill, dtype=array.dtype)
    bigger[: len(array)] = array
    return bigger
