"""Input tools: each turns mouse events into world edits (components the systems act on)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from weft.components import Blasts, CutStroke, ForceField, Grab, Pour, Press, Shake

if TYPE_CHECKING:
    from weft.game.session import Session

WIND_STRENGTH_PER_PX = 6.0
"""px/s² of wind per px of the arrow drawn with the wind tool."""

MAX_WIND_STRENGTH = 5000.0

MAX_FIELD_FORCE = 15000.0
"""px/s² per unit mass at the centre of attract and repel at full strength."""

MAX_BLAST = 6000.0
"""px/s given to a unit mass at the centre of an explosion at full strength (fast enough to need sweeping)."""

MAX_SWING = 40.0
"""px the walls swing at full shaking strength."""

SHAKE_FREQUENCY = 5.0
"""Hz of the shaking walls."""

TILT_STEP_DEG = 5.0
"""Degrees one arrow key press tilts gravity by."""

MAX_TILT_DEG = 60.0

TILT_DEG_PER_PX = 0.25
"""Degrees of tilt per px dragged sideways with the tilt tool."""


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


class NoTool(Tool):
    """The left button of a level that offers no tool (``tools.available = []``): it does nothing."""

    name = "none"
    hotkey = ""
    summary = "this level offers no tool"


def cut_segment(session: Session, x0: float, y0: float, x1: float, y1: float) -> None:
    """Queue a cut along one mouse movement; the cut system severs what it crosses."""
    session.sim.physics.component(CutStroke).segments.append((x0, y0, x1, y1))
    session.trail.append((x0, y0, x1, y1, session.tick))


def end_cut(session: Session) -> None:
    """The blade is lifted (or put down anew): the next cut segment starts a stroke of its own."""
    session.sim.physics.component(CutStroke).end()


def cursor(session: Session, component: type):
    """One of the tools' components, on Weft's own entity."""
    return session.sim.physics.component(component)


def grab(session: Session) -> Grab:
    """The ``Grab`` component the drag tool drives."""
    return cursor(session, Grab)


def tilted(gravity: list[float], degrees: float) -> list[float]:
    """Gravity of the same strength turned ``degrees`` from straight down (positive: towards +x)."""
    strength = math.hypot(*gravity)
    angle = math.radians(max(-MAX_TILT_DEG, min(MAX_TILT_DEG, degrees)))
    return [round(strength * math.sin(angle), 6), round(-strength * math.cos(angle), 6)]


def tilt_of(gravity: list[float]) -> float | None:
    """Degrees ``gravity`` points from straight down (positive: towards +x), or None where it is zero."""
    gx, gy = gravity
    return math.degrees(math.atan2(gx, -gy)) if gx or gy else None


def tilt(session: Session, degrees: float) -> None:
    """Turn gravity by ``degrees`` more (positive: towards +x), keeping its strength, within ±60° of down
    (while it is zero, the way it will point)."""
    pointing = tilt_of(session.sim.level.model.world.gravity)
    session.tilt_to((session.tilt_deg if pointing is None else pointing) + degrees)


class DragTool(Tool):
    """Left-drag grabs the nearest point and pulls it; a pinned point moves with its pin."""

    name = "drag"
    hotkey = "1"
    summary = "left-drag pulls the nearest point (pins move too)"

    def press(self, session: Session, x: float, y: float) -> None:
        held = grab(session)
        held.target = held.pressed_at = (x, y)
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

    def press(self, session: Session, x: float, y: float) -> None:
        end_cut(session)

    def drag(self, session: Session, x: float, y: float, dx: float, dy: float) -> None:
        cut_segment(session, x - dx, y - dy, x, y)

    def release(self, session: Session, x: float, y: float) -> None:
        end_cut(session)


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
        session.set("world.wind.direction_deg", math.degrees(math.atan2(dy, dx)))
        session.set("world.wind.strength", min(MAX_WIND_STRENGTH, WIND_STRENGTH_PER_PX * length))
        session.set("world.wind.enabled", True)


class PourTool(Tool):
    """Hold the left button to stream circles from the cursor, sizes in the level's range."""

    name = "pour"
    hotkey = "4"
    summary = "hold the left button: a stream of circles"

    def press(self, session: Session, x: float, y: float) -> None:
        tools = session.sim.level.model.tools
        pour = cursor(session, Pour)
        pour.held, pour.at = True, (x, y)
        pour.rate, pour.sizes = tools.pour_rate, (tools.sizes[0], tools.sizes[1])

    def drag(self, session: Session, x: float, y: float, dx: float, dy: float) -> None:
        cursor(session, Pour).at = (x, y)

    def release(self, session: Session, x: float, y: float) -> None:
        cursor(session, Pour).held = False


class FieldTool(Tool):
    """Hold the left button: a radial force around the cursor (``sign`` +1 pushes, -1 pulls)."""

    sign: ClassVar[float]

    def press(self, session: Session, x: float, y: float) -> None:
        tools = session.sim.level.model.tools
        field = cursor(session, ForceField)
        field.active, field.center = True, (x, y)
        field.reach, field.force = tools.radius, self.sign * tools.strength * MAX_FIELD_FORCE

    def drag(self, session: Session, x: float, y: float, dx: float, dy: float) -> None:
        cursor(session, ForceField).center = (x, y)

    def release(self, session: Session, x: float, y: float) -> None:
        cursor(session, ForceField).active = False


class AttractTool(FieldTool):
    """Hold to pull everything around the cursor towards it."""

    name = "attract"
    hotkey = "5"
    summary = "hold the left button: pulls things towards the cursor"
    sign = -1.0


class RepelTool(FieldTool):
    """Hold to push everything around the cursor away."""

    name = "repel"
    hotkey = "6"
    summary = "hold the left button: pushes things away from the cursor"
    sign = 1.0


class ExplodeTool(Tool):
    """A click blows everything around it outward (strength and reach from the panel)."""

    name = "explode"
    hotkey = "7"
    summary = "click: an explosion blows everything around it outward"

    def press(self, session: Session, x: float, y: float) -> None:
        tools = session.sim.level.model.tools
        cursor(session, Blasts).pending.append((x, y, tools.radius, tools.strength * MAX_BLAST))


class ShakeTool(Tool):
    """Hold the left button: the container's walls swing side to side."""

    name = "shake"
    hotkey = "8"
    summary = "hold the left button: the walls swing side to side"

    def press(self, session: Session, x: float, y: float) -> None:
        shake = cursor(session, Shake)
        shake.held = True
        shake.amplitude = session.sim.level.model.tools.strength * MAX_SWING
        shake.frequency = SHAKE_FREQUENCY

    def release(self, session: Session, x: float, y: float) -> None:
        cursor(session, Shake).held = False


class TiltTool(Tool):
    """Drag sideways (or press the arrow keys) to tilt gravity."""

    name = "tilt"
    hotkey = "9"
    summary = "drag sideways, or LEFT / RIGHT: tilts gravity"

    def drag(self, session: Session, x: float, y: float, dx: float, dy: float) -> None:
        if dx:
            tilt(session, dx * TILT_DEG_PER_PX)


class PressTool(Tool):
    """Press and drag: a finger (a disc of 100 px radius above the cursor, its tip at the cursor) dents soft
    bodies where it presses; let go and they spring back. The finger's motion is the pressure system's."""

    name = "press"
    hotkey = "0"
    summary = "press and drag: squash a creature (Enter pokes every creature)"

    def press(self, session: Session, x: float, y: float) -> None:
        finger = cursor(session, Press)
        finger.active, finger.center = True, (x, y)

    def drag(self, session: Session, x: float, y: float, dx: float, dy: float) -> None:
        cursor(session, Press).center = (x, y)

    def release(self, session: Session, x: float, y: float) -> None:
        cursor(session, Press).active = False


TOOLS: dict[str, type[Tool]] = {
    tool.name: tool
    for tool in (
        DragTool,
        CutTool,
        WindTool,
        PourTool,
        AttractTool,
        RepelTool,
        ExplodeTool,
        ShakeTool,
        TiltTool,
        PressTool,
    )
}
"""Every tool by name, in hotkey order."""
