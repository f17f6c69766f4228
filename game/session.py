"""A session: a simulation driven by input events, in the window or headless.

The window and ``weft run --input`` feed the same events through
the same ``Session``, so a recording replays bit for bit: an event is
applied at the start of the tick it is queued for, never in between.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from weft.game.level.load import load_level
from weft.game.level.problems import LevelError
from weft.game.simulation import Simulation
from weft.game.tools import (
    MAX_TILT_DEG,
    TILT_STEP_DEG,
    TOOLS,
    NoTool,
    Tool,
    cut_segment,
    end_cut,
    tilt,
    tilt_of,
    tilted,
)
from weft.systems.softbody import poke_all

KEYS = {
    "SPACE": "pause or resume",
    "S": "single step (pauses)",
    "R": "reset the level",
    "W": "wind on or off",
    "D": "debug view: threads coloured by strain, pins",
    "H": "this help",
    "P": "tuning panel",
    "LEFT RIGHT": "tilt gravity (levels with the tilt tool)",
    "ENTER": "poke every creature on the head",
    "N B": "next / previous level (also Page Down / Page Up)",
    "F12": "screenshot: a PNG next to the level file",
    "ESCAPE": "back to the level list (there: quit)",
}
"""Every key the session or the window answers, with what it does (the help overlay lists these)."""

TRAIL_LENGTH = 24
"""Cut segments kept for drawing the blade's trail."""


class Session:
    """A ``Simulation`` plus what the player does to it: tools, pause, view toggles, recording.

    ``tick`` counts calls to ``advance`` (paused ones included): events are
    stamped with it, so pauses replay too.
    """

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.tick = 0
        self.paused = False
        self.debug = False
        self.show_help = False
        self.show_panel = sim.level.model.panel.open
        self.tools: dict[str, Tool] = {name: TOOLS[name]() for name in sim.level.model.tools.available}
        self.tool = self.tools[sim.level.model.tools.start] if self.tools else NoTool()
        self.pointer: tuple[float, float] | None = None
        """The cursor while a button is held, px (for drawing the grab line or wind arrow)."""
        self.pressing = False
        """Whether the left button is down on ``tool`` (pressed with it, not yet released)."""
        self.trail: deque[tuple[float, float, float, float, int]] = deque(maxlen=TRAIL_LENGTH)
        """Recent cut segments ``(x0, y0, x1, y1, tick)``, for drawing the blade's fading trail."""
        self.log: list[dict[str, Any]] = []
        """Every event applied, stamped with its tick: a recording."""
        self.message = ""
        """The last problem an event caused (a rejected value) or a custom system's setting brought
        back into range, for the HUD."""
        self.settings_notes: list[str] = []
        """What the last frame's custom systems left out of range and was brought back, once each."""
        self.event_notes: list[str] = []
        """What this tick's events said (a value clamped or refused), as the HUD shows it: ``run``
        prints them."""
        self._queue: list[dict[str, Any]] = []
        self._script: deque[dict[str, Any]] = deque()
        self._step_once = False
        self.tilt_deg = tilt_of(sim.level.model.world.gravity) or 0.0
        """The way gravity last pointed, degrees from straight down: the gravity slider at 0 leaves a
        vector with no direction, and brought up again gravity pointed straight down, its tilt lost."""

    def queue(self, event: dict[str, Any]) -> None:
        """Schedule an event (without ``frame``) for the start of the next tick."""
        self._queue.append(event)

    def follow(self, script: list[dict[str, Any]]) -> None:
        """Replay a script: each event is queued at the start of the tick its ``frame`` names."""
        self._script = deque(sorted(script, key=lambda event: event["frame"]))  # stable: file order kept

    def advance(self) -> bool:
        """Run one tick: apply queued events, then step one frame unless paused. True if it stepped."""
        while self._script and self._script[0]["frame"] <= self.tick:
            self.queue({k: v for k, v in self._script.popleft().items() if k != "frame"})
        events, self._queue = self._queue, []
        self.event_notes = []
        for event in events:
            self.apply(event)
        stepped = not self.paused or self._step_once
        if stepped:
            self.sim.step()
            self.settings_notes = self.sim.physics.guard.take_notes()
            if self.settings_notes:
                self.message = "; ".join(self.settings_notes)
        self._step_once = False
        self.tick += 1
        return stepped

    def run(self, frames: int, script: list[dict[str, Any]] | None = None) -> None:
        """Advance ``frames`` ticks; with a ``script``, follow it from now on."""
        if script is not None:
            self.follow(script)
        for _ in range(frames):
            self.advance()

    def apply(self, event: dict[str, Any]) -> None:
        """Apply one event now and record it."""
        self.log.append({"frame": self.tick, **event})
        kind = event["type"]
        if kind.startswith("mouse_"):
            # floats, as the window's are: a script's whole pixels would compile the tools' kernels again
            x, y = float(event["x"]), float(event["y"])
            if kind == "mouse_press":
                self._press(x, y, event["button"])
            elif kind == "mouse_drag":
                self._drag(x, y, float(event["dx"]), float(event["dy"]), event["buttons"])
            else:
                self._release(x, y, event["button"])
        elif kind == "key_press":
            self._key(event["key"])
        elif kind == "tool":
            self.choose_tool(event["name"])
        elif kind == "tilt":
            self.tilt_to(float(event["degrees"]))
        elif kind == "set":
            self.set(event["key"], event["value"])

    def set(self, key: str, value: Any) -> bool:
        """Change a level key while running, as a tool, slider or script does: a number outside the
        schema's range is clamped into it, a count past the level's budgets down to the most they
        allow, and what cannot be used is refused; either way the HUD says so (``message``) and the
        level keeps running. True when the value was taken."""
        try:
            self.sim.set(key, value, clamp=True)
        except LevelError as error:
            self.message = "; ".join(str(problem) for problem in error.problems)
            self.event_notes.append(self.message)
            return False
        clamped = "; ".join(self.sim.clamped)
        self.message = f"{key}: clamped into what the level allows ({clamped})" if clamped else ""
        pointing = tilt_of(self.sim.level.model.world.gravity)
        if pointing is not None:
            self.tilt_deg = pointing
        if self.message:
            self.event_notes.append(self.message)
        return True

    def tilt_to(self, degrees: float) -> None:
        """Point gravity ``degrees`` from straight down (kept within ``MAX_TILT_DEG``), at its strength;
        while gravity is zero, the way it will point when it comes back."""
        degrees = max(-MAX_TILT_DEG, min(MAX_TILT_DEG, degrees))
        gravity = self.sim.level.model.world.gravity
        if tilt_of(gravity) is None:
            self.tilt_deg = degrees
        else:
            self.set("world.gravity", tilted(gravity, degrees))

    def choose_tool(self, name: str) -> None:
        """Make ``name`` the left button's tool, if the level offers it."""
        if name in self.tools:
            self._switch(self.tools[name])

    def _switch(self, tool: Tool) -> None:
        """Make ``tool`` the left button's; one chosen while the button is down lets go of what the
        last one held (a box held up, a pour running), and acts from the next press."""
        if tool is not self.tool and self.pressing:
            self.tool.release(self, *(self.pointer or (0.0, 0.0)))
            self.pressing = False
        self.tool = tool

    def _press(self, x: float, y: float, button: str) -> None:
        self.pointer = (x, y)
        if button == "left":
            self.tool.press(self, x, y)
            self.pressing = True
        elif button == "right":
            end_cut(self)

    def _drag(self, x: float, y: float, dx: float, dy: float, buttons: list[str]) -> None:
        if self.pointer is not None:
            # the move from where the cursor was last seen, so a stroke has no gaps whatever dx said
            dx, dy = x - self.pointer[0], y - self.pointer[1]
        self.pointer = (x, y)
        if "left" in buttons and self.pressing:
            self.tool.drag(self, x, y, dx, dy)
        if "right" in buttons:
            cut_segment(self, x - dx, y - dy, x, y)

    def _release(self, x: float, y: float, button: str) -> None:
        self.pointer = None
        if button == "left" and self.pressing:
            self.tool.release(self, x, y)
            self.pressing = False
        elif button == "right":
            end_cut(self)

    def _key(self, key: str) -> None:
        if key == "SPACE":
            self.paused = not self.paused
        elif key == "S":
            self.paused = True
            self._step_once = True
        elif key == "R":
            self.sim.reset()
            self.trail.clear()
        elif key == "W":
            self.set("world.wind.enabled", not self.sim.settings.wind.enabled)
        elif key == "D":
            self.debug = not self.debug
        elif key == "H":
            self.show_help = not self.show_help
        elif key == "P":
            self.show_panel = not self.show_panel
        elif key == "ENTER":
            with self.sim.physics.entered():
                poke_all()
        elif key in ("LEFT", "RIGHT") and "tilt" in self.tools:
            tilt(self, TILT_STEP_DEG if key == "RIGHT" else -TILT_STEP_DEG)
        else:
            for tool in self.tools.values():
                if key == f"KEY_{tool.hotkey}" or key == tool.hotkey:
                    self._switch(tool)


def open_session(path: Path, allow_import: Sequence[str] = ()) -> Session | None:
    """A session of the level at ``path``, or None when it does not load or its systems cannot be built."""
    try:
        return Session(Simulation(load_level(path, allow_import=allow_import)))
    except LevelError:
        return None
