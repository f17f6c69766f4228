"""Pictures of a session without a window on screen: screenshots, filmstrips, draw timing.

Importing this module is cheap and, on a machine without a display, sets
``ARCADE_HEADLESS=1`` before anything imports arcade (arcade reads it once,
on import); arcade itself is imported only when an ``Offscreen`` is made.

Drawing goes to a framebuffer of the level's size that this class owns, not
to the window: a headless window cannot be resized, and a test process may
reuse one window for levels of different sizes. The framebuffer is
multisampled (anti-aliased edges) and resolved into a plain one to read back.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw, ImageFont

if TYPE_CHECKING:
    import arcade

    from weft.game.session import Session

FILMSTRIP_COLUMNS = 4
FILMSTRIP_SCALE = 3
"""Each filmstrip picture is shrunk to 1/3 of its size: 4 columns of 1280 px pictures make 1704 px."""

FILMSTRIP_BACKGROUND = (14, 16, 22)
LABEL_COLOR = (236, 236, 240)
LABEL_SIZE = 14

WINDOW_SIZE = (1280, 720)
"""px of the game window; every level's bounds are fitted into it."""

SAMPLES = 4
"""Multisampling of the offscreen framebuffer; 0 turns anti-aliasing off."""


def prefer_headless() -> None:
    """Ask arcade for an offscreen (EGL) context when there is no display to open a window on."""
    if not os.environ.get("DISPLAY") or "ARCADE_HEADLESS" in os.environ:
        os.environ.setdefault("ARCADE_HEADLESS", "1")


prefer_headless()


class Offscreen:
    """Draws a session into an image of the level's size, as the window would show it (no HUD).

    Example::

        session = Session(Simulation.load("levels/cloth.toml"))
        pictures = Offscreen(session)
        session.run(30)
        pictures.capture().save("cloth.png")
    """

    def __init__(self, session: Session, size: tuple[int, int] | None = None) -> None:
        """``size``: px of the pictures (the level's bounds are fitted in); default the bounds' size."""
        prefer_headless()
        from weft.game.render import WorldRenderer  # imports arcade: after the headless choice

        self.session = session
        left, bottom, right, top = session.sim.settings.bounds
        self.size = size or (max(1, round(right - left)), max(1, round(top - bottom)))
        self.window = shared_window()
        self.ctx = self.window.ctx
        self.renderer = WorldRenderer(self.ctx)
        ctx = self.ctx
        samples = min(SAMPLES, ctx.info.MAX_SAMPLES)
        self._resolved = ctx.framebuffer(color_attachments=[ctx.texture(self.size, components=4)])
        if samples > 1:
            color = ctx.texture(self.size, components=4, samples=samples)
            self._target = ctx.framebuffer(color_attachments=[color])
        else:
            self._target = self._resolved

    def draw(self) -> None:
        """Draw the session's current state into the offscreen framebuffer."""
        with self._target.activate():
            self.renderer.draw(self.session)

    def capture(self) -> Image.Image:
        """Draw the session's current state and read it back: an RGB image of the level's size."""
        self.draw()
        if self._target is not self._resolved:
            # a blit is clipped by the scissor box, which the window may have left at its own size
            with self._resolved.activate():
                self.ctx.scissor = None
                self.ctx.copy_framebuffer(self._target, self._resolved, depth=False)
        data = self._resolved.read(components=3)
        self.ctx.gc()  # free GPU objects of rebuilt worlds (a window would do this on flip)
        image = Image.frombytes("RGB", self.size, data)
        return image.transpose(Image.Transpose.FLIP_TOP_BOTTOM)  # GL rows run bottom up

    def save_filmstrip(self, path: str | Path, pictures: list[tuple[str, Image.Image]]) -> None:
        """Tile ``pictures`` (label, image) four to a row at 1/3 size, each labelled, into a PNG."""
        width, height = pictures[0][1].size if pictures else self.size
        tile = (width // FILMSTRIP_SCALE, height // FILMSTRIP_SCALE)
        rows = max(1, math.ceil(len(pictures) / FILMSTRIP_COLUMNS))
        sheet = Image.new("RGB", (FILMSTRIP_COLUMNS * tile[0], rows * tile[1]), FILMSTRIP_BACKGROUND)
        draw = ImageDraw.Draw(sheet)
        font = _label_font()
        for k, (label, picture) in enumerate(pictures):
            x = (k % FILMSTRIP_COLUMNS) * tile[0]
            y = (k // FILMSTRIP_COLUMNS) * tile[1]
            sheet.paste(picture.convert("RGB").resize(tile, Image.Resampling.LANCZOS), (x, y))
            # a hairline frame keeps neighbouring tiles apart when their backgrounds match
            draw.rectangle((x, y, x + tile[0] - 1, y + tile[1] - 1), outline=FILMSTRIP_BACKGROUND)
            left, top, right, bottom = draw.textbbox((x + 8, y + 6), label, font=font)
            draw.rectangle((left - 4, top - 3, right + 4, bottom + 3), fill=FILMSTRIP_BACKGROUND)
            draw.text((x + 8, y + 6), label, fill=LABEL_COLOR, font=font)
        sheet.save(path)

    def draw_cpu_ms(self, frames: int) -> float:
        """Median wall time (ms) of issuing one frame's drawing, over ``frames`` stepped frames.

        Measures ``WorldRenderer.draw`` alone: the CPU cost of the drawing
        systems and GL calls, without the physics step or reading pixels back.
        The GPU (here llvmpipe, on other cores) is waited for outside the timing.
        """
        self.draw()  # the first frame compiles shaders and weaves the pattern tiles
        self.ctx.finish()
        times = []
        for _ in range(frames):
            self.session.advance()
            with self._target.activate():
                started = time.perf_counter()
                self.renderer.draw(self.session)
                times.append(time.perf_counter() - started)
            self.ctx.finish()
        return statistics.median(times) * 1e3


def shared_window() -> arcade.Window:
    """Arcade's current window if there is one, else a hidden one of the game window's size.

    Pictures are drawn into framebuffers of their own, whatever the window's
    size; the window is always the game's size so that what draws to the
    screen (the picker, the play view in tests) finds the screen it expects,
    whichever test or thumbnail opened it first.
    """
    import arcade

    try:
        window = arcade.get_window()
    except RuntimeError:  # arcade 3 raises when no window is open; older versions return None
        window = None
    if window is None:
        window = arcade.Window(*WINDOW_SIZE, "weft (offscreen)", visible=False)
    return window


def _label_font() -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """Pillow's bundled font at a readable size (the bitmap one where FreeType is missing)."""
    try:
        return ImageFont.load_default(size=LABEL_SIZE)
    except (ImportError, TypeError):
        return ImageFont.load_default()
