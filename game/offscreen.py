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

import os
import statistics
import time
from typing import TYPE_CHECKING

from PIL import Image

if TYPE_CHECKING:
    import arcade

    from weft.game.session import Session

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
