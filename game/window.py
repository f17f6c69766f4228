"""The Arcade window: the level picker, and a level played at a fixed 60 Hz with its input as events.

``Game`` decides what the window shows: the picker (``weft.game.picker``) or a
``PlayView``. Keys that belong to the window rather than to the level (next
and previous level, screenshot, Escape) are handled here and never become
session events, so recordings hold only what happened inside the level.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import arcade
import pyglet
from arcade.gui import UIAnchorLayout, UIManager

from weft.components import FRAME_DT
from weft.game.catalog import level_paths, neighbour, remember_problems
from weft.game.clock import FrameClock
from weft.game.events import save_script
from weft.game.hud import BACKGROUND, HINT_BAND, WARNING, Hud
from weft.game.level import LevelError, load_level
from weft.game.level.loaded import LoadedLevel
from weft.game.offscreen import WINDOW_SIZE
from weft.game.panel import PANEL_MARGIN, PANEL_WIDTH, Panel
from weft.game.picker import PickerView
from weft.game.reload import LevelWatcher
from weft.game.render import WorldRenderer
from weft.game.screenshot import save_screenshot
from weft.game.session import Session, open_session
from weft.game.simulation import Simulation
from weft.game.thumbnails import ThumbnailCache
from weft.game.warmup import Preparation, kernels_ready, load_level_kernels
from weft.levels import DEFAULT_LEVEL, LEVELS_DIR
from weft.systems.schedule import SystemFailed

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

LEVEL_STEP_KEYS = {arcade.key.N: 1, arcade.key.PAGEDOWN: 1, arcade.key.B: -1, arcade.key.PAGEUP: -1}
"""Window keys that open the next (+1) or previous (-1) level, in the picker's order."""

SCREENSHOT_KEY = arcade.key.F12
"""Writes a PNG of the world as drawn (no HUD or panel) next to the level file."""

PREPARING_DRAW_DT = 0.1
"""s: how often a level about to open redraws its line (``PreparingView``; the seconds in it change
once a second). At the game's 60 a second, software GL took 17% of a core for it, from the two
processes compiling the level's kernels; keys are still heard at once."""


def pressed_buttons(mask: int) -> list[str]:
    """Arcade's button bit mask as the script vocabulary's list of names."""
    return [name for bit, name in BUTTONS.items() if mask & bit]


def watch(session: Session, overrides: Sequence[str] = ()) -> LevelWatcher:
    """A watcher of ``session``'s level file, which reloads it with the same ``--set`` overrides and
    ``--allow-import`` patterns."""
    level = session.sim.level
    return LevelWatcher(level.source, overrides, level.allow_import)


class PlayView(arcade.View):
    """Plays one session: steps it at 60 Hz, draws it, feeds it the player's input.

    It also watches the level file (hot reload: a good save rebuilds the
    level, keeping the tool, pause and view toggles; a bad one leaves the
    running level alone and lists its problems on screen until a fixed save),
    steps to the next or previous level, and takes screenshots. ``game`` is
    where Escape goes back to the picker; without one, Escape closes the window.
    """

    def __init__(self, session: Session, game: Game | None = None, overrides: Sequence[str] = ()) -> None:
        super().__init__()
        load_level_kernels(session.sim, overrides)  # none loads mid-play: a frame held up 15-30 ms
        self.session = session
        self.game = game
        self.directory = game.directory if game is not None else LEVELS_DIR
        self.renderer = WorldRenderer(self.window.ctx)
        self.hud = Hud(self.window.width, self.window.height)
        self.ui = UIManager()
        self.panel = Panel(session)
        self.watcher = watch(session, overrides)
        self.screenshots: list[Path] = []
        """PNGs written by the screenshot key, oldest first."""
        self._screenshot_asked = False
        self._mount_panel()
        self.clock = FrameClock()
        """Turns the window's updates into 1/60 s ticks of the session (as ``weft.Physics`` does)."""
        self._last_draw = time.perf_counter()

    def _mount_panel(self) -> None:
        self.ui.clear()
        anchor = self.ui.add(UIAnchorLayout())
        anchor.add(
            self.panel.widget, anchor_x="right", anchor_y="top", align_x=-PANEL_MARGIN, align_y=-PANEL_MARGIN
        )

    def on_show_view(self) -> None:
        self.ui.enable()
        self.window.set_caption(f"Weft · {self.session.sim.name}")
        self.hud.resize(self.window.width, self.window.height)  # resized while another view showed

    def on_resize(self, width: int, height: int) -> None:
        self.hud.resize(width, height)

    def on_hide_view(self) -> None:
        self.ui.disable()

    def use(self, session: Session, watcher: LevelWatcher) -> None:
        """Play ``session`` from now on (another level, or the same one reloaded), its file watched by
        ``watcher``; the old one is closed."""
        load_level_kernels(session.sim, watcher.overrides)
        old = self.session
        self.session = session
        self.panel = Panel(session)
        self._mount_panel()
        self.watcher = watcher
        self.window.set_caption(f"Weft · {session.sim.name}")
        self.clock.reset()
        if old is not session:
            old.sim.close()

    def step_level(self, step: int) -> Path | None:
        """Open the level ``step`` places on in the picker's order, skipping broken ones; its path."""
        paths = level_paths(self.directory)
        path = self.session.sim.level.source
        allow_import = self.session.sim.level.allow_import
        for _ in range(len(paths)):
            path = neighbour(paths, path, step)
            if self.game is not None:  # through the game: on a first start its kernels compile aside
                if self.game.open(path) is None:
                    continue  # the picker shows why; stepping just passes it by
                return path
            session = open_session(path, allow_import)
            if session is None:
                continue
            self.use(session, watch(session))
            return path
        return None

    def reload(self, level: LoadedLevel) -> None:
        """Rebuild from a freshly saved ``level``, keeping the tool, pause and view toggles."""
        old = self.session
        try:
            session = Session(Simulation(level))
        except Exception as error:  # a valid file can still fail to build: keep playing the old level
            self.watcher.problems = [f"{level.source.name}: the level could not be built: {error}"]
            return
        # carried over as events at tick 0, so a recording of the reloaded level replays the same
        carried: list[dict[str, Any]] = []
        if old.tool.name != session.tool.name and old.tool.name in session.tools:
            carried.append({"type": "tool", "name": old.tool.name})
        toggles = {"SPACE": "paused", "D": "debug", "H": "show_help", "P": "show_panel"}
        for key, flag in toggles.items():
            if getattr(old, flag) != getattr(session, flag):
                carried.append({"type": "key_press", "key": key})
        for event in carried:
            session.apply(event)
        # drawing caches image files by path: a new renderer reads a saved texture again
        self.renderer = WorldRenderer(self.window.ctx)
        self.use(session, self.watcher)
        self.hud.notify(f"reloaded {level.source.name}")

    def screenshot(self) -> None:
        """Write a PNG of the next drawn frame next to the level file, or for a shipped level of an
        installed copy into the user's pictures (see ``weft.game.screenshot``)."""
        self._screenshot_asked = True

    def on_update(self, delta_time: float) -> None:
        fresh = self.watcher.poll()
        if fresh is not None:
            self.reload(fresh)
        for _ in range(self.clock.frames_for(delta_time)):
            try:
                stepped = self.session.advance()
            except SystemFailed as error:  # the level's own code: said, and paused, not raised
                self.session.paused = True
                self.session.message = f"{error}: paused (fix it and save the level, or press Esc)"
                return
            if stepped:
                self.hud.count_physics(self.session.sim.step_ms[-1])

    def on_draw(self) -> None:
        now = time.perf_counter()
        self.hud.count_frame(now - self._last_draw)
        self._last_draw = now
        self.clear()
        if self._screenshot_asked:  # the whole world, as drawn without the panel beside it
            self._screenshot_asked = False
            self.renderer.draw(self.session)
            self._save_screenshot()
        # with the panel shown, the world is fitted beside it: nothing of the level lies under it
        beside = self._panel_column() if self.session.show_panel else 0
        below = round(HINT_BAND * self.window.get_pixel_ratio())  # the hint line over the floor only
        self.renderer.draw(self.session, beside=beside, below=below)
        self.hud.draw(self.session)
        if self.watcher.problems:
            name = self.watcher.source.name
            title = f"{name} could not be reloaded; still playing its last good version. Fix it and save:"
            self.hud.draw_problems(title, self.watcher.problems)
        if self.session.show_panel:  # the UI is composited full-window even when empty
            self.panel.sync()
            self.ui.draw()

    def _panel_column(self) -> int:
        """Framebuffer px the panel takes on the window's right, its margins included."""
        return round((PANEL_WIDTH + 2 * PANEL_MARGIN) * self.window.get_pixel_ratio())

    def _save_screenshot(self) -> None:
        """Read the world as just drawn (before the HUD and panel) and save it next to the level."""
        width, height = self.window.get_framebuffer_size()
        image = arcade.get_image(0, 0, width, height).convert("RGB")
        sim = self.session.sim
        try:
            path = save_screenshot(image, sim.level.source, sim.frame)
        except OSError as error:
            self.hud.notify(f"screenshot not saved: {error}")
            return
        self.screenshots.append(path)
        where = "" if path.parent == sim.level.source.parent else f" in {path.parent}"
        self.hud.notify(f"saved {path.name}{where}")
        print(f"screenshot: {path}")

    def _world(self, x: float, y: float) -> tuple[float, float]:
        wx, wy = self.renderer.to_world(x, y)
        return (float(wx), float(wy))

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        if button in BUTTONS:
            wx, wy = self._world(x, y)
            self.session.queue({"type": "mouse_press", "x": wx, "y": wy, "button": BUTTONS[button]})

    def on_mouse_drag(self, x: int, y: int, dx: int, dy: int, buttons: int, modifiers: int) -> None:
        wx, wy = self._world(x, y)
        px, py = self._world(x - dx, y - dy)  # the move in world px too, as scripts give it
        self.session.queue(
            {
                "type": "mouse_drag",
                "x": wx,
                "y": wy,
                "dx": wx - px,
                "dy": wy - py,
                "buttons": pressed_buttons(buttons),
            }
        )

    def on_mouse_release(self, x: int, y: int, button: int, modifiers: int) -> None:
        if button in BUTTONS:
            wx, wy = self._world(x, y)
            self.session.queue({"type": "mouse_release", "x": wx, "y": wy, "button": BUTTONS[button]})

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if symbol == arcade.key.ESCAPE:
            if self.game is not None:
                self.game.pick(selected=self.session.sim.level.source)
            else:
                self.window.close()
            return
        if symbol in LEVEL_STEP_KEYS:
            self.step_level(LEVEL_STEP_KEYS[symbol])
            return
        if symbol == SCREENSHOT_KEY:
            self.screenshot()
            return
        name = KEY_NAMES.get(symbol)
        if name is not None:
            self.session.queue({"type": "key_press", "key": name})

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        if symbol == arcade.key.ESCAPE or symbol in LEVEL_STEP_KEYS or symbol == SCREENSHOT_KEY:
            return
        name = KEY_NAMES.get(symbol)
        if name is not None:
            self.session.queue({"type": "key_release", "key": name})


class PreparingView(arcade.View):
    """A level about to open on a first start: the kernels it needs compile in a child process
    (``weft warmup LEVEL``) while this says so, with the seconds so far, and keeps answering; then the
    level opens. Escape stops the child and goes back to the picker, as from a level."""

    def __init__(
        self,
        game: Game,
        level: LoadedLevel,
        script: Sequence[dict[str, Any]] = (),
        overrides: Sequence[str] = (),
    ) -> None:
        super().__init__()
        self.game = game
        self.level = level
        self.script = list(script)
        self.overrides = list(overrides)
        self.preparation = Preparation([level.source], overrides, level.allow_import)
        self.text = arcade.Text(
            "", self.window.width / 2, self.window.height / 2, WARNING, 14, anchor_x="center"
        )

    @property
    def line(self) -> str:
        """What the window says: the child's latest line (its kernels counted once its plan starts),
        with the seconds so far."""
        seconds = time.perf_counter() - self.preparation.started
        return f"{self.preparation.line} · {seconds:.0f} s"

    def on_show_view(self) -> None:
        self.window.set_caption(f"Weft · {self.level.source.name} (preparing)")
        self.window.set_draw_rate(PREPARING_DRAW_DT)
        self.on_resize(self.window.width, self.window.height)

    def on_hide_view(self) -> None:
        self.window.set_draw_rate(FRAME_DT)  # the rate ``open_window`` gives the game's window

    def on_resize(self, width: int, height: int) -> None:
        self.text.position = (width / 2, height / 2)

    def on_update(self, delta_time: float) -> None:
        if self.preparation.done:  # compiled and cached (or it failed: then the level compiles here)
            self.game.prepared.add(self.level.source.resolve())
            try:
                self.game.play(self.level, self.script, self.overrides)
            except LevelError as error:  # its systems or skins cannot be built: the picker lists why
                if not self.overrides:
                    remember_problems(self.level.source, error)
                self.game.pick(selected=self.level.source)

    def on_draw(self) -> None:
        self.clear(color=BACKGROUND)
        self.text.text = self.line
        self.text.draw()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if symbol == arcade.key.ESCAPE:
            self.preparation.stop()
            self.game.pick(selected=self.level.source)


class Game:
    """What the window shows: the level picker, or one level played; Escape goes back to the picker.

    Example::

        game = Game(open_window(*WINDOW_SIZE, "Weft"))
        game.pick()            # or game.play(load_level("levels/balls.toml"))
        arcade.run()
    """

    def __init__(
        self,
        window: arcade.Window,
        thumbnails: ThumbnailCache | None = None,
        directory: Path = LEVELS_DIR,
        allow_import: Sequence[str] = (),
    ) -> None:
        self.window = window
        self.thumbnails = thumbnails if thumbnails is not None else ThumbnailCache()
        self.directory = directory
        """The folder the picker lists, and next/previous steps through."""
        self.allow_import = tuple(allow_import)
        """``--allow-import`` patterns, for every level the picker opens (a level file cannot add any)."""
        self.playing: PlayView | None = None
        """The level view, kept while the picker shows (its session is what ``--record`` saves)."""
        self.preparation: Preparation | None = None
        """The kernels compiling in a child process on a first start (``game.warmup``), or None."""
        self.prepared_all = False
        """Whether ``prepare`` has started that child in this window (once: one that failed, or
        could not mark the cache ready, is not tried again at every Escape)."""
        self.prepared: set[Path] = set()
        """Levels whose kernels a ``PreparingView`` compiled (their files, resolved)."""

    @property
    def kernels_cached(self) -> bool:
        """Whether every kernel is compiled and cached (``kernels_ready``): if not, a level's checks
        and first frame would compile here, freezing the window."""
        return kernels_ready()

    def prepare(self) -> None:
        """Compile the kernels in a child process unless they are cached, or it has run in this
        window: the picker keeps answering."""
        if self.preparation is None and not self.prepared_all and not self.kernels_cached:
            self.preparation = Preparation()
            self.prepared_all = True

    def pause_preparation(self) -> None:
        """Stop the compiling of every level's kernels (``prepare``) until the picker shows again:
        one level's, started beside it, shared the two cores with it and took 27 s where alone it
        takes 19 (the rag doll, cold), and a level played beside it lost a core to it. What it
        cached stays cached."""
        if self.preparation is not None and not self.preparation.done:
            self.preparation.stop()
            self.preparation = None
            self.prepared_all = False  # not failed: the picker starts it again

    @property
    def preparing(self) -> bool:
        """Whether the kernels are still compiling (a level opened now would freeze the window)."""
        if self.preparation is not None and self.preparation.done:
            self.preparation = None
        return self.preparation is not None

    def play(
        self, level: LoadedLevel, script: Sequence[dict[str, Any]] = (), overrides: Sequence[str] = ()
    ) -> arcade.View:
        """Show ``level`` (following ``script``, if any); the previously played level is closed.

        ``overrides`` are the ``--set`` strings ``level`` was loaded with: a reload applies them again.
        On a first start (the kernels not all cached) the kernels the level needs compile first in a
        child process, while the window says so and keeps answering (``PreparingView``).
        """
        if not self.kernels_cached and level.source.resolve() not in self.prepared:
            self.pause_preparation()
            view: arcade.View = PreparingView(self, level, script, overrides)
            self.window.show_view(view)
            return view
        session = Session(Simulation(level))
        session.follow(list(script))
        return self.show(session, overrides)

    def open(self, path: Path) -> arcade.View | None:
        """Play the level at ``path`` (``play``); None when it does not load or cannot be built."""
        ready = self.kernels_cached or path.resolve() in self.prepared  # else the checks wait for them
        try:
            return self.play(load_level(path, allow_import=self.allow_import, build=ready))
        except LevelError as error:
            remember_problems(path, error)  # the picker lists them
            return None

    def show(self, session: Session, overrides: Sequence[str] = ()) -> PlayView:
        """Play ``session`` (its level watched for saves); the previously played level is closed."""
        if self.playing is None:
            self.playing = PlayView(session, self, overrides)
        else:
            self.playing.use(session, watch(session, overrides))
        self.window.show_view(self.playing)
        return self.playing

    def pick(self, selected: Path | None = None) -> arcade.View:
        """Show the level picker, ``selected`` (a level file) highlighted; the kernels not yet cached
        start compiling aside once it has drawn its first frame (``PickerView.on_update`` calls
        ``prepare``), however the picker was reached: its thumbnails would compile them here, the
        window frozen seconds at a time (after ``weft play LEVEL``, Escape)."""
        view = PickerView(self, selected)
        self.window.show_view(view)
        return view


class NoWindow(RuntimeError):
    """The display named cannot be reached (no X server there, or it refused the connection)."""


def _display_errors() -> tuple[type[BaseException], ...]:
    """What pyglet raises for a display it cannot connect to: X11's own class on Linux, the window
    module's elsewhere."""
    errors: list[type[BaseException]] = [pyglet.window.NoSuchDisplayException]
    if sys.platform.startswith("linux"):
        from pyglet.display.xlib import NoSuchDisplayException

        errors.append(NoSuchDisplayException)
    return tuple(errors)


def open_window(width: int, height: int, title: str) -> arcade.Window:
    """A window with anti-aliasing where the GPU makes it cheap, without it on software GL;
    ``NoWindow`` when the display cannot be reached."""
    try:
        window = arcade.Window(width, height, title, update_rate=FRAME_DT, draw_rate=FRAME_DT, visible=False)
    except _display_errors() as error:
        raise NoWindow(str(error)) from None
    renderer = str(window.ctx.info.RENDERER).lower()
    if any(name in renderer for name in SOFTWARE_RENDERERS):
        window.close()
        window = arcade.Window(
            width, height, title, update_rate=FRAME_DT, draw_rate=FRAME_DT, visible=False, antialiasing=False
        )
    window.set_visible(True)
    return window


def play(
    level: LoadedLevel | None,
    record: str | None = None,
    script: Sequence[dict[str, Any]] = (),
    overrides: Sequence[str] = (),
    allow_import: Sequence[str] = (),
) -> None:
    """Open the window on ``level`` (None: on the level picker) and run until it is closed.

    ``overrides`` are the ``--set`` strings ``level`` was loaded with, applied
    again whenever its file is reloaded. On exit the last level played is
    written to ``record``, if asked.
    """
    # one window size for every level: the renderer fits the level's bounds inside it
    window = open_window(*WINDOW_SIZE, "Weft")
    game = Game(window, allow_import=allow_import)
    if level is None:
        game.pick(selected=DEFAULT_LEVEL)
    else:
        game.play(level, script, overrides)
    try:
        arcade.run()
    finally:
        if game.preparation is not None:
            game.preparation.stop()
        if record and game.playing is not None:
            session = game.playing.session
            save_script(Path(record), session.log)
            replay = f"run {session.sim.level.source} --frames {session.tick} --input {record}"
            print(
                f"{record}: {len(session.log)} events recorded over {session.tick} frames; "
                f"`{replay}` replays it to hash {session.sim.state_hash()[:12]}"
            )
