"""Input tools: each turns mouse events into world edits (components the systems act on)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import esper

from components import CutStroke, Grab

if TYPE_CHECKING:
    from game.session import Session

WIND_STRENGTH_PER_PX = 6.0
"""px/s² of wind per px of the arrow drawn with the wind tool."""

MAX_WIND_STRENGTH = 5000.0


class Tool:
    """A tool: what the left button does. The right button always cuts."""

    name: ClassVar[str]
    hotkey: ClassVar[str]
    summary: ClassVar[str]

    def press(self, session: Session, x: float, y: float) -> None:
        """The left button went down at (x, y)."""

    def drag(self, session: Session, x: float, y: float, dx: float, dy: float) -> None:
        """The mouse moved by (dx, dy) to (x, y) with the left button down."""

    def release(self, session: Session, x: float, y: float) -> None:
        """The left button went up at (x, y)."""


def cut_segment(session: Session, x0: float, y0: float, x1: float, y1: float) -> None:
    """Queue a cut along one mouse movement; the cut system severs what it crosses."""
    session.sim.activate()
    esper.component_for_entity(session.sim.cursor, CutStroke).segments.append((x0, y0, x1, y1))
    session.trail.append((x0, y0, x1, y1, session.tick))


def grab(session: Session) -> Grab:
    """The ``Grab`` component the drag tool drives."""
    session.sim.activate()
    return esper.component_for_entity(session.sim.cursor, Grab)


class DragTool(Tool):
    """Left-drag grabs the nearest point and pulls it; a pinned point moves with its pin."""

    name = "drag"
    hotkey = "1"
    summary = "left-drag pulls the nearest point (pins move too)"

    def press(self, session: Session, x: float, y: float) -> None:
        held = grab(session)
        held.target = (x, y)
        held.held = True

    def drag(self, session: Session, x: float, y: float, dx: float, dy: float) -> None:
        grab(session).target = (x, y)

    def release(self, session: Session, x: float, y: float) -> None:
        held = grab(session)
        held.target = (x, y)
        held.held = False


class CutTool(Tool):
    """Left-drag cuts every thread the stroke crosses (as right-drag does with any tool)."""

    name = "cut"
    hotkey = "2"
    summary = "left-drag cuts every thread it crosses"

    def drag(self, session: Session, x: float, y: float, dx: float, dy: float) -> None:
        cut_segment(session, x - dx, y - dy, x, y)


@dataclass
class WindTool(Tool):
    """Left-drag draws an arrow; on release the wind blows along it, stronger for a longer arrow."""

    name: ClassVar[str] = "wind"
    hotkey: ClassVar[str] = "3"
    summary: ClassVar[str] = "left-drag an arrow: the wind blows along it (W turns it on or off)"
    start: tuple[float, float] | None = None

    def press(self, session: Session, x: float, y: float) -> None:
        self.start = (x, y)

    def release(self, session: Session, x: float, y: float) -> None:
        if self.start is None:
            return
        dx, dy = x - self.start[0], y - self.start[1]
        self.start = None
        length = math.hypot(dx, dy)
        if length < 4.0:  # a click, not an arrow
            return
        session.sim.set("world.wind.direction_deg", math.degrees(math.atan2(dy, dx)))
        session.sim.set("world.wind.strength", min(MAX_WIND_STRENGTH, WIND_STRENGTH_PER_PX * length))
        session.sim.set("world.wind.enabled", True)


TOOLS: dict[str, type[Tool]] = {tool.name: tool for tool in (DragTool, CutTool, WindTool)}
