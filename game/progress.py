"""A one-line progress bar on the terminal for long headless runs (``run --frames 100000``).

It draws only when its stream is a terminal: piped or captured output (tests,
CI logs, ``> out.txt``) stays exactly the one-line summary it was.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterator
from typing import TextIO

REDRAW_INTERVAL = 0.25
"""s between redraws: four a second reads as live without costing the run anything measurable."""

BAR_WIDTH = 24
"""Characters of the bar itself."""


class Progress:
    """Frames done out of ``total``, frames per second and the time left, redrawn in place on stderr.

    Example::

        progress = Progress(100_000, label="cloth.toml")
        for _ in progress.track(100_000):
            session.advance()
        progress.close()            # clears the line

    ``tty`` forces the choice (tests); by default it is ``stream.isatty()``.
    """

    def __init__(
        self,
        total: int,
        label: str = "",
        stream: TextIO | None = None,
        tty: bool | None = None,
        interval: float = REDRAW_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = max(1, total)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if tty is None else tty
        self.interval = interval
        self.done = 0
        self._clock = clock
        self._started = clock()
        self._next_draw = self._started + interval
        self._drawn_width = 0

    def track(self, frames: int) -> Iterator[int]:
        """Yield ``frames`` times, counting each as one frame done once the loop body has run."""
        for k in range(frames):
            yield k
            self.update(self.done + 1)

    def update(self, done: int) -> None:
        """Record ``done`` frames finished; redraw if the last redraw is ``interval`` s old."""
        self.done = done
        if not self.enabled:
            return
        now = self._clock()
        if now >= self._next_draw:
            self._next_draw = now + self.interval
            self._draw(self.line(now))

    def line(self, now: float | None = None) -> str:
        """The progress line: label, bar, frames, rate and ETA (``--:--`` until there is a rate)."""
        elapsed = (self._clock() if now is None else now) - self._started
        fraction = min(1.0, self.done / self.total)
        filled = int(fraction * BAR_WIDTH)
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = _clock_time((self.total - self.done) / rate) if rate > 0 else "--:--"
        width = len(str(self.total))
        parts = [
            f"[{bar}] {self.done:>{width}}/{self.total} frames",
            f"{rate:6.0f} fps",
            f"ETA {eta}",
        ]
        return "  ".join(([self.label] if self.label else []) + parts)

    def close(self) -> None:
        """Clear the line, so whatever is printed next starts on a clean one."""
        if self.enabled and self._drawn_width:
            self.stream.write("\r" + " " * self._drawn_width + "\r")
            self.stream.flush()
            self._drawn_width = 0

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _draw(self, line: str) -> None:
        # pad with spaces to cover a longer previous line (the ETA can shrink)
        padded = line.ljust(self._drawn_width)
        self.stream.write("\r" + padded)
        self.stream.flush()
        self._drawn_width = len(padded)


def _clock_time(seconds: float) -> str:
    """``h:mm:ss`` or ``m:ss``."""
    seconds = math.ceil(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
