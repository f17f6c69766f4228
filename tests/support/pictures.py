"""Reading offscreen pictures at world points: what colour the renderer put where.

World points are mapped to pixels through the renderer's own fit (a scale
and a shift), y up in the world and rows down in the picture.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from PIL import Image

from weft.systems.schedule import Step

if TYPE_CHECKING:
    from weft.game.offscreen import Offscreen

FloatArray = npt.NDArray[np.float64]

CLOSE = 40.0
"""RGB distance under which a pixel counts as a given colour (shading and antialiasing move it a little)."""

LUMA = np.array([0.299, 0.587, 0.114])


class Picture:
    """A captured picture and how world points map onto it."""

    def __init__(self, image: Image.Image, pictures: Offscreen) -> None:
        self.pixels = np.asarray(image, dtype=np.float64)[..., :3]
        self.renderer = pictures.renderer

    def at(self, points: npt.ArrayLike) -> FloatArray:
        """RGB ``(n, 3)`` at world points ``(n, 2)``: the pixel each falls in."""
        window = self.renderer.to_window(points)
        height, width = self.pixels.shape[:2]
        cols = np.clip(np.floor(window[:, 0]).astype(int), 0, width - 1)
        rows = np.clip(np.floor(height - window[:, 1]).astype(int), 0, height - 1)
        return self.pixels[rows, cols]

    def luminance_at(self, points: npt.ArrayLike) -> FloatArray:
        """Luminance ``(n,)`` of the pixel each world point falls in."""
        return self.at(points) @ LUMA

    def smooth_luminance_at(self, points: FloatArray) -> FloatArray:
        """Luminance ``(n,)`` at world points, bilinear between pixel centres (for subpixel edges)."""
        luminance = self.pixels @ LUMA
        height, width = luminance.shape
        window = self.renderer.to_window(points)
        x = window[:, 0] - 0.5
        y = height - window[:, 1] - 0.5
        x0 = np.clip(np.floor(x).astype(int), 0, width - 2)
        y0 = np.clip(np.floor(y).astype(int), 0, height - 2)
        fx, fy = x - x0, y - y0
        top = luminance[y0, x0] * (1 - fx) + luminance[y0, x0 + 1] * fx
        bottom = luminance[y0 + 1, x0] * (1 - fx) + luminance[y0 + 1, x0 + 1] * fx
        return top * (1 - fy) + bottom * fy

    def inside(self, points: FloatArray) -> npt.NDArray[np.bool_]:
        """Which world points ``(n, 2)`` fall inside the picture."""
        window = self.renderer.to_window(points)
        height, width = self.pixels.shape[:2]
        return (window[:, 0] >= 0) & (window[:, 0] < width) & (window[:, 1] >= 0) & (window[:, 1] < height)

    def centres(self) -> FloatArray:
        """World points ``(rows, cols, 2)`` at the centre of every pixel."""
        height, width = self.pixels.shape[:2]
        origin, unit = self.renderer.to_window([[0.0, 0.0], [1.0, 1.0]])
        cols, rows = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
        window = np.stack([cols, height - rows], axis=-1)
        return (window - origin) / (unit - origin)


def near(colors: FloatArray, target: npt.ArrayLike, within: float = CLOSE) -> npt.NDArray[np.bool_]:
    """Which colours ``(..., 3)`` lie within ``within`` (RGB distance) of ``target``."""
    return np.linalg.norm(colors - np.asarray(target, dtype=np.float64)[..., :3], axis=-1) < within


def draw_calls(pictures: Offscreen, system_name: str, debug: bool = False) -> int:
    """How many draw calls the drawing system ``system_name`` issues to draw its session once.

    Counted by wrapping the GL geometry's ``render`` while the system draws (the
    pictures must have been captured once, so its buffers exist).
    """
    system = next(s for s in pictures.renderer.bodies.systems if s.name == system_name)
    geometry = type(pictures.ctx.geometry())
    render = geometry.render
    calls = 0

    def counted(self: object, *args: object, **kwargs: object) -> None:
        nonlocal calls
        calls += 1
        render(self, *args, **kwargs)

    pictures.renderer.bodies.options.debug = debug
    geometry.render = counted  # type: ignore[method-assign]
    try:
        with pictures.renderer.camera.activate(), pictures.session.sim.physics.entered():
            system.process(Step(frame=pictures.session.sim.frame))
    finally:
        geometry.render = render  # type: ignore[method-assign]
    return calls
