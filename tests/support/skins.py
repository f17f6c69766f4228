"""Measuring a skin as it moves: which triangles face the other way, and how far each has grown.

A skinned triangle is inverted when its signed area has the other sign
from the bind pose's (it is drawn mirrored: the "glitter" at a bad seam);
its area ratio is its area now over its area then (1 for a rigid motion).
These are the invariants a skin keeps however it is thrown about.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from weft.components.skin import SkinnedMesh

FloatArray = npt.NDArray[np.float64]


def signed_areas(positions: FloatArray, triangles: npt.NDArray[np.integer]) -> FloatArray:
    """``(t,)``: each triangle's signed area (positive counter-clockwise), px²."""
    a, b, c = (positions[triangles[:, k]] for k in range(3))
    return 0.5 * ((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (c[:, 0] - a[:, 0]) * (b[:, 1] - a[:, 1]))


def area_ratios(mesh: SkinnedMesh) -> FloatArray:
    """``(t,)``: each triangle's signed area now over its signed area in the bind pose (<= 0: inverted)."""
    return signed_areas(mesh.positions, mesh.triangles) / signed_areas(mesh.bind_positions, mesh.triangles)


class SkinWatch:
    """The worst a skin has done over a run: most triangles inverted at once, the smallest and largest
    area ratio. Call ``look`` after every frame."""

    def __init__(self, mesh: SkinnedMesh) -> None:
        self.mesh = mesh
        self.inverted = 0
        self.smallest = math.inf
        self.largest = 0.0

    def look(self) -> None:
        ratio = area_ratios(self.mesh)
        self.inverted = max(self.inverted, int(np.count_nonzero(ratio <= 0.0)))
        self.smallest = min(self.smallest, float(ratio.min()))
        self.largest = max(self.largest, float(ratio.max()))


def drag(
    start: tuple[float, float], path: list[tuple[float, float]], every: int = 1
) -> Iterator[list[dict[str, Any]]]:
    """The events of a drag with the left button, one list per frame: a press at ``start``, the cursor
    at each point of ``path`` in turn (an event only every ``every`` frames, and on the last, as a busy
    window delivers them), then a release where it ended."""
    yield [{"type": "mouse_press", "x": start[0], "y": start[1], "button": "left"}]
    last = start
    for k, (x, y) in enumerate(path):
        if k % every == every - 1 or k == len(path) - 1:
            yield [
                {
                    "type": "mouse_drag",
                    "x": x,
                    "y": y,
                    "dx": x - last[0],
                    "dy": y - last[1],
                    "buttons": ["left"],
                }
            ]
            last = (x, y)
        else:
            yield []
    yield [{"type": "mouse_release", "x": last[0], "y": last[1], "button": "left"}]


def line(start: tuple[float, float], end: tuple[float, float], frames: int) -> list[tuple[float, float]]:
    """``frames`` points from ``start`` (excluded) to ``end`` (included), evenly: a drag at constant speed."""
    return [
        (start[0] + (end[0] - start[0]) * k / frames, start[1] + (end[1] - start[1]) * k / frames)
        for k in range(1, frames + 1)
    ]
