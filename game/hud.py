"""The heads-up display and the help overlay: text the window draws over the world."""

from __future__ import annotations

import textwrap
import time

import arcade

from weft.game.session import KEYS, Session

TEXT = (235, 238, 245, 255)
MUTED = (160, 168, 185, 255)
WARNING = (255, 170, 120, 255)
BACKGROUND = (22, 25, 34)
"""Behind the picker and the window's own screens."""
SHADE = (10, 12, 18, 200)

HELP_WIDTH = 760
"""px: the help box; a key's or tool's line longer than its text width wraps under its description."""
HELP_TEXT = HELP_WIDTH - 40
"""px: the help's text width inside the box."""
HELP_FONT = ("Courier New", "DejaVu Sans Mono", "monospace")
HELP_KEY_COLUMN = 8
"""Characters of the help's key column (``SPACE``, ``ESCAPE``...)."""

FPS_SMOOTHING = 0.1
"""Weight of the newest frame in the FPS and physics-time averages shown."""

HINT = "H help · P panel · Space pause · R reset · N/B next/previous level · F12 screenshot · Esc levels"
"""The bottom line: the keys a newcomer needs first."""
HINT_BAND = 30
"""Window px at the foot the hint line takes, its shade (6 to 28 px) and a margin: the world is fitted
with its floor there at least (``WorldRenderer.draw``'s ``below``)."""

NOTICE_SECONDS = 4.0
"""How long a notice ("saved cloth-000240.png", "reloaded") stays in the status line."""

PROBLEM_LINES = 12
"""Most problem lines of a broken save shown at once (the rest are counted)."""


class Hud:
    """FPS, physics time per frame and counts, top left; a hint bottom left; help on H.

    ``arcade.Text`` objects are built once and only their text changes
    (``draw_text`` would lay the text out again every frame).
    """

    def __init__(self, width: int, height: int) -> None:
        self.fps = 60.0
        self.physics_ms = 0.0
        self.title = arcade.Text("", 12, 0, TEXT, 13, bold=True)
        self.stats = arcade.Text("", 12, 0, TEXT, 11)
        self.status = arcade.Text("", 12, 0, MUTED, 11)
        self.problem = arcade.Text("", 12, 34, WARNING, 11, width=width - 24, multiline=True)
        self.hint = arcade.Text(HINT, 12, 12, MUTED, 10)
        self.help = arcade.Text("", 0, 0, TEXT, 12, font_name=HELP_FONT, width=HELP_TEXT, multiline=True)
        self._help_columns = 0
        """Characters of the help's font in its text width (measured when first drawn)."""
        self._help_tools: tuple[tuple[str, str, str], ...] | None = None
        """The tools (hotkey, name, summary) the help's text was last laid out for: wrapping it
        anew took 135 µs of every frame drawn while the help shows."""
        self.problems = arcade.Text("", 24, 0, WARNING, 11, multiline=True, width=width - 48)
        self.notice = ""
        self._notice_until = 0.0
        self.resize(width, height)

    def resize(self, width: int, height: int) -> None:
        """Lay the text out for a window of ``width`` × ``height``: the counters stay at its top left."""
        self.width = width
        self.height = height
        for text, below_top in ((self.title, 22), (self.stats, 42), (self.status, 60)):
            text.y = height - below_top
        self.problem.width = max(1, width - 24)
        self.problems.width = max(1, width - 48)

    def notify(self, text: str) -> None:
        """Show ``text`` in the status line for a few seconds."""
        self.notice = text
        self._notice_until = time.monotonic() + NOTICE_SECONDS

    def count_frame(self, seconds: float) -> None:
        """Fold one drawn frame's duration into the FPS average."""
        if seconds > 0:
            self.fps += FPS_SMOOTHING * (1.0 / seconds - self.fps)

    def count_physics(self, ms: float) -> None:
        """Fold one physics frame's duration into the physics-time average."""
        self.physics_ms += FPS_SMOOTHING * (ms - self.physics_ms)

    def draw(self, session: Session) -> None:
        """Draw the counters for ``session``'s current state, and the help overlay when it is on."""
        metrics_counts = _counts(session)
        self.title.text = session.sim.name
        parts = [f"{self.fps:5.1f} FPS", f"physics {self.physics_ms:5.2f} ms"]
        if metrics_counts["circles"]:
            parts.append(f"{metrics_counts['circles']} circles")
        if metrics_counts["points"]:
            parts.append(f"{metrics_counts['points']} points")
        if metrics_counts["threads"]:
            alive = metrics_counts["threads"] - metrics_counts["torn"]
            parts += [f"{alive} threads", f"{metrics_counts['torn']} torn"]
        self.stats.text = " · ".join(parts)
        wind = session.sim.settings.wind
        flags = [f"tool: {session.tool.name}", f"wind {'on' if wind.enabled else 'off'}"]
        if session.paused:
            flags.append("PAUSED (S steps)")
        if session.debug:
            flags.append("debug view")
        if self.notice and time.monotonic() < self._notice_until:
            flags.append(self.notice)
        self.status.text = " · ".join(flags)
        self.problem.text = session.message
        # the hint sits where most levels draw their floor: a shade keeps it readable there
        arcade.draw_lrbt_rectangle_filled(6, 18 + self.hint.content_width, 6, 28, SHADE)
        for text in (self.title, self.stats, self.status, self.hint, self.problem):
            text.draw()
        if session.show_help:
            self._draw_help(session)

    def draw_problems(self, title: str, lines: list[str]) -> None:
        """A box above the hint line listing why the level file cannot be used (hot reload)."""
        shown = lines[:PROBLEM_LINES]
        if len(lines) > len(shown):
            shown.append(f"... and {len(lines) - len(shown)} more")
        self.problems.text = "\n".join([title, *shown])
        self.problems.anchor_y = "bottom"
        self.problems.y = 44
        height = self.problems.content_height
        arcade.draw_lrbt_rectangle_filled(12, self.width - 12, 32, 56 + height, SHADE)
        self.problems.draw()

    def help_lines(self, session: Session) -> list[str]:
        """The help's lines: each key and tool with what it does, a description too long for the box
        wrapped under itself (the font found decides how many characters fit: DejaVu Sans Mono,
        where Courier New is missing, is wider)."""
        if not self._help_columns:
            probe = "0" * 40
            advance = arcade.Text(probe, 0, 0, TEXT, 12, font_name=HELP_FONT).content_width / len(probe)
            self._help_columns = max(40, int(HELP_TEXT / advance) - 1)

        def entry(key: str, what: str) -> list[str]:
            first = f"  {key:<{HELP_KEY_COLUMN}} "
            hanging = " " * len(first)
            return textwrap.wrap(what, self._help_columns, initial_indent=first, subsequent_indent=hanging)

        lines = ["Keys"] + [line for key, what in KEYS.items() for line in entry(key, what)]
        lines += ["", "Tools (left button; the right button always cuts)"]
        for tool in session.tools.values():
            lines += entry(tool.hotkey, f"{tool.name}: {tool.summary}")
        return lines

    def _draw_help(self, session: Session) -> None:
        tools = tuple((tool.hotkey, tool.name, tool.summary) for tool in session.tools.values())
        if tools != self._help_tools:
            self.help.text = "\n".join(self.help_lines(session))
            self._help_tools = tools
        # whole pixels: at a half pixel (an odd content height) each line's top row of glyphs was lost
        left = (self.width - HELP_WIDTH) // 2
        top = (self.height + self.help.content_height) // 2 + 20
        arcade.draw_lrbt_rectangle_filled(
            left, left + HELP_WIDTH, top - self.help.content_height - 40, top, SHADE
        )
        self.help.x = left + 20
        self.help.y = top - 20
        self.help.anchor_y = "top"
        self.help.draw()


def _counts(session: Session) -> dict[str, int]:
    """What the stats line counts: circles, other points, and the cloth's threads as the player sees
    them (structural ones: a cut of 39 threads reads 39 torn, not the 192 hidden ones with them)."""
    stores = session.sim.stores
    circles = stores.particles.circles
    threads, torn = session.sim.thread_counts()
    return {"circles": circles, "points": stores.particles.count - circles, "threads": threads, "torn": torn}
