"""The Arcade window: physics at a fixed 60 Hz, drawing, input turned into session events."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import arcade
from arcade.gui import UIAnchorLayout, UIManager

from components import FRAME_DT
from game.events import save_script
from game.hud import Hud
from game.level.load import LoadedLevel
from game.panel import Panel
from game.render import WorldRenderer
from game.session import Session
from game.simulation import Simulation

WINDOW_SIZE = (1280, 720)
"""px: the size of the built-in levels' bounds; other levels are fitted into it."""

MAX_CATCH_UP_FRAMES = 4
"""Physics frames one update may run to catch up; a longer backlog is dropped, not chased
(arcade's own fixed update never drops it, so a slow frame would snowball)."""

BUTTONS = {
    arcade.MOUSE_BUTTON_LEFT: "left",
    arcade.MOUSE_BUTTON_RIGHT: "right",
    arcade.MOUSE_BUTTON_MIDDLE: "middle",
}

SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "swiftshader", "software")
"""GL renderers that rasterise on the CPU: there 4x multisampling halves the frame rate
(measured with llvmpipe at 1280 × 720: 51 ms a frame against 28 ms), so it is turned off."""

PREFERRED_KEY_NAMES = ("ENTER", "ESCAPE", "SPACE")
"""Where Arcade gives one key code two names (ENTER and RETURN), scripts use these."""


def _key_names() -> dict[int, str]:
    names: dict[int, str] = {}
    for name, code in vars(arcade.key).items():
        if name.isupper() and isinstance(code, int) and (code not in names or name in PREFERRED_KEY_NAMES):
            names[code] = name
    return names


KEY_NAMES = _key_names()


def pressed_buttons(mask: int) -> list[str]:
    """Arcade's button bit mask as the script vocabulary's list of names."""
    return [name for bit, name in BUTTONS.items() if mask & bit]


class PlayView(arcade.View):
    """Plays one session: steps it at 60 Hz, draws it, feeds it the player's input."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.renderer = WorldRenderer(self.window.ctx)
        self.hud = Hud(self.window.width, self.window.height)
        self.ui = UIManager()
        self.panel = Panel(session)
        anchor = self.ui.add(UIAnchorLayout())
        anchor.add(self.panel.widget, anchor_x="right", anchor_y="top", align_x=-10, align_y=-10)
        self._lag = 0.0
        self._last_draw = time.perf_counter()

    def on_show_view(self) -> None:
        self.ui.enable()

    def on_hide_view(self) -> None:
        self.ui.disable()

    def on_update(self, delta_time: float) -> None:
        self._lag = min(self._lag + delta_time, MAX_CATCH_UP_FRAMES * FRAME_DT)
        while self._lag >= FRAME_DT:
            self._lag -= FRAME_DT
            if self.session.advance():
                self.hud.count_physics(self.session.sim.step_ms[-1])

    def on_draw(self) -> None:
        now = time.perf_counter()
        self.hud.count_frame(now - self._last_draw)
        self._last_draw = now
        self.clear()
        self.renderer.draw(self.session)
        self.hud.draw(self.session)
        if self.session.show_panel:  # the UI is composited full-window even when empty
            self.ui.draw()

    def _world(self, x: float, y: float) -> tuple[float, float]:
        wx, wy = self.renderer.to_world(x, y)
        return (float(wx), float(wy))

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        if button in BUTTONS:
            wx, wy = self._world(x, y)
            self.session.queue({"type": "mouse_press", "x": wx, "y": wy, "button": BUTTONS[button]})

    def on_mouse_drag(self, x: int, y: int, dx: int, dy: int, buttons: int, modifiers: int) -> None:
        wx, wy = self._world(x, y)
        self.session.queue(
            {
                "type": "mouse_drag",
                "x": wx,
                "y": wy,
                "dx": float(dx),
                "dy": float(dy),
                "buttons": pressed_buttons(buttons),
            }
        )

    def on_mouse_release(self, x: int, y: int, button: int, modifiers: int) -> None:
        if button in BUTTONS:
            wx, wy = self._world(x, y)
            self.session.queue({"type": "mouse_release", "x": wx, "y": wy, "button": BUTTONS[button]})

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        name = KEY_NAMES.get(symbol)
        if name == "ESCAPE":
            self.window.close()
        elif name is not None:
            self.session.queue({"type": "key_press", "key": name})

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        name = KEY_NAMES.get(symbol)
        if name is not None and name != "ESCAPE":
            self.session.queue({"type": "key_release", "key": name})


def open_window(width: int, height: int, title: str) -> arcade.Window:
    """A window with anti-aliasing where the GPU makes it cheap, without it on software GL."""
    window = arcade.Window(width, height, title, update_rate=FRAME_DT, draw_rate=FRAME_DT, visible=False)
    renderer = str(window.ctx.info.RENDERER).lower()
    if any(name in renderer for name in SOFTWARE_RENDERERS):
        window.close()
        window = arcade.Window(
            width, height, title, update_rate=FRAME_DT, draw_rate=FRAME_DT, visible=False, antialiasing=False
        )
    window.set_visible(True)
    return window


def play(level: LoadedLevel, record: str | None = None, script: list[dict[str, Any]] = ()) -> None:
    """Open the window on ``level`` and run until it is closed; then write the recording, if asked."""
    session = Session(Simulation(level))
    session.follow(list(script))
    # one window size for every level: the renderer fits the level's bounds inside it
    window = open_window(*WINDOW_SIZE, f"Weft · {session.sim.name}")
    window.show_view(PlayView(session))
    try:
        arcade.run()
    finally:
        if record:
            save_script(Path(record), session.log)
            replay = f"run --frames {session.tick} --input {record}"
            print(
                f"{record}: {len(session.log)} events recorded over {session.tick} frames; "
                f"`{replay}` replays it to hash {session.sim.state_hash()[:12]}"
            )
