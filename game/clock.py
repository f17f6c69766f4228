"""Whole 1/60 s frames from a game loop's uneven time."""

from __future__ import annotations

import math

from weft.components import FRAME_DT

MAX_CATCH_UP_FRAMES = 4
"""Frames one call may run to catch up; a longer backlog is dropped, not chased (a slow frame would
otherwise make the next one slower still: the spiral of death). Arcade's own fixed update never
drops it."""


class FrameClock:
    """Counts the frames a loop's time is worth: ``frames_for(delta_time)`` each update.

    Time left over (less than a frame) carries to the next call; more than
    ``MAX_CATCH_UP_FRAMES`` frames' worth is dropped. A negative, NaN or
    infinite ``delta_time`` counts as none.
    """

    def __init__(self) -> None:
        self.lag = 0.0
        """Seconds owed that have not made a frame yet."""

    def frames_for(self, delta_time: float) -> int:
        """How many frames to step now for ``delta_time`` seconds more of the loop."""
        if not (math.isfinite(delta_time) and delta_time > 0.0):
            delta_time = 0.0
        self.lag = min(self.lag + delta_time, MAX_CATCH_UP_FRAMES * FRAME_DT)
        frames = 0
        while self.lag >= FRAME_DT:
            self.lag -= FRAME_DT
            frames += 1
        return frames

    def reset(self) -> None:
        """Forget the time owed (a new level starts on time)."""
        self.lag = 0.0
