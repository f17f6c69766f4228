"""The level picker: every level in the levels folder with its name, description and a thumbnail.

Up/Down (or the mouse) choose, Enter (or a click) plays, Escape quits. A
list on the left, the chosen level large on the right.

Thumbnails come from the disk cache (``weft.game.thumbnails``) when they exist,
read in the updates after the list is drawn. The missing ones are
rendered in the picker's own updates, a slice of ``RENDER_BUDGET`` seconds
each, the chosen level first and then the rest in list order, after the list
has been drawn once. The list never waits for a picture; it stutters now and
then while they appear (see ``weft.game.thumbnails`` for the pieces that take
longer than a frame), and only in the first picker after a level changes.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import arcade

from weft.components import FRAME_DT
from weft.game.catalog import LevelEntry, list_levels
from weft.game.hud import BACKGROUND, MUTED, TEXT, WARNING
from weft.game.thumbnails import ThumbnailJob

if TYPE_CHECKING:
    from weft.game.window import Game

RENDER_BUDGET = 0.008
"""s of thumbnail work per update (reading them from the cache, or rendering): half of a 60 Hz
frame, the other half for drawing."""

ROW_SELECTED = (48, 56, 78)
THUMB_BACKGROUND = (12, 14, 20)

MARGIN = 24
"""px round the edges of the window."""

HEADER = 100
"""px at the top for the title and the key hint."""
FOOTER = 48
"""px under the rows for the "more below" note and, under it, the line of the kernels' preparation
(``status``): with the margin alone the two overlapped at 720 px."""

ROW_HEIGHT = 58
ROW_THUMB = (80, 45)
"""px of a list row's thumbnail (16:9, like the built-in levels)."""

LIST_WIDTH = 740
NARROWEST_PREVIEW = 240
"""px: a window leaving the preview less than this beside the list shows the list alone (its text wrapped
a letter a line)."""
PREVIEW_GAP = 28
"""px between the list and the preview."""

IDLE_DRAW_DT = 0.2
"""s: how often the picker redraws while the kernels compile aside and nobody touches it (its
bottom line counts them). At the game's 60 a second its text took 59% of a core on software GL,
from the two processes compiling: the picker's preparation of every level took 62 s where ``weft
warmup`` alone took 44."""

AWAKE_S = 1.0
"""s: after a key, a click or the mouse moving, the picker redraws at the game's rate this long
(``IDLE_DRAW_DT`` only while nobody touches it)."""


class PickerView(arcade.View):
    """Lists the levels of ``weft.game.directory``; choosing one asks ``game`` to play it."""

    def __init__(self, game: Game, selected: Path | None = None) -> None:
        super().__init__()
        self.game = game
        self.checked = False
        """Whether the list was made with the checks that run kernels: not before it is first drawn,
        nor while they compile; ``on_update`` then makes it again on a thread of its own (the first
        kernel loaded from numba's cache takes half a second, which the picker should not stop
        drawing or answering for)."""
        self.entries: list[LevelEntry] = list_levels(game.directory, build=False)
        self.selected = self._index_of(selected) if selected is not None else 0
        self.top = 0
        """Index of the first row shown (the list scrolls when it is longer than the window)."""
        self.thumbnails: dict[Path, arcade.Texture] = {}
        self.failed: dict[Path, str] = {}
        """Levels whose thumbnail could not be made, with why."""
        self._job: ThumbnailJob | None = None
        self._checking: _Listing | None = None
        self._shown = False
        """Whether the list has been drawn: rendering waits for it (the first level built loads
        numba's compiled kernels, a second or two the list should not wait behind)."""
        self._prepare_asked = False
        """Whether ``on_update`` has asked the game to compile the kernels aside (``Game.prepare``):
        once, after the first frame. Started before it, the child compiling took both cores while
        the window made its first frame: on a first start the picker showed 1.8-2.4 s after launch,
        against 1.6-1.8 with the kernels cached (2026-12-07, under Xvfb)."""
        self.rows_shown = 1
        self.title = arcade.Text("Weft", MARGIN, 0, TEXT, 22, bold=True)
        self.hint = arcade.Text(
            "Choose a level: Up/Down and Enter, or click. While playing: N/B next/previous, Esc back here.",
            MARGIN,
            0,
            MUTED,
            11,
        )
        self._rows: dict[tuple[str, str], tuple[arcade.Text, arcade.Text]] = {}
        """Each row's name and description as drawn, by the entry's (name, description): made when
        first shown (a text takes 2 ms to lay out: the rows out of view wait), made again when a
        new listing changes what a row says."""
        self.preview_left = MARGIN + LIST_WIDTH + PREVIEW_GAP
        self.preview_size = (1, 1)
        self.preview_name = arcade.Text("", self.preview_left, 0, TEXT, 18, bold=True)
        self.preview_text = arcade.Text("", self.preview_left, 0, TEXT, 12, multiline=True, width=1)
        self.preview_file = arcade.Text("", self.preview_left, 0, MUTED, 10)
        self.preview_problems = arcade.Text("", self.preview_left, 0, WARNING, 10, multiline=True, width=1)
        self.placeholder = arcade.Text("", 0, 0, MUTED, 11, anchor_x="center", anchor_y="center")
        self.ruler = arcade.Text("", 0, 0, font_size=10)
        """Measures descriptions (``_fit``); never drawn."""
        self.status = arcade.Text("", MARGIN, MARGIN / 2, WARNING, 11)
        self.on_resize(self.window.width, self.window.height)
        self._looked: set[Path] = set()
        """Levels whose thumbnail was looked for in the disk cache (``_load_cached``)."""
        self._looked_through: list[LevelEntry] | None = None
        """The listing every level of which was looked for: until a new listing replaces it, an
        update has nothing to read."""
        self._touched = time.perf_counter()
        """When input last came, or the picker was made (``time.perf_counter``): it redraws at the
        game's rate from then for ``AWAKE_S``, and its listing with the checks waits until then."""
        self._draw_dt = FRAME_DT

    # -- choosing -------------------------------------------------------------

    @property
    def entry(self) -> LevelEntry:
        """The highlighted level."""
        return self.entries[self.selected]

    def select(self, index: int) -> None:
        """Highlight entry ``index`` (clamped to the list) and scroll it into view."""
        if self.entries:
            self.selected = max(0, min(len(self.entries) - 1, index))
            self._scroll_to_selected()

    def choose(self) -> bool:
        """Play the highlighted level (on a first start, once the kernels it needs are compiled:
        ``Game.play``); False (and nothing happens) if it does not load."""
        if not self.entries or not self.entry.playable:
            return False
        if self.game.open(self.entry.path) is None:
            # changed on disk since the list was made, or its systems cannot be built
            self.entries = list_levels(self.game.directory, build=self.checked)
            return False
        return True

    def _index_of(self, path: Path) -> int:
        wanted = path.resolve()
        for index, entry in enumerate(self.entries):
            if entry.path.resolve() == wanted:
                return index
        return 0

    def _scroll_to_selected(self) -> None:
        if self.selected < self.top:
            self.top = self.selected
        elif self.selected >= self.top + self.rows_shown:
            self.top = self.selected - self.rows_shown + 1

    def _row_at(self, x: float, y: float) -> int | None:
        """The entry whose row is under window px ``(x, y)``, if any."""
        if not MARGIN <= x <= MARGIN + LIST_WIDTH:
            return None
        first_top = self.window.height - HEADER
        row = int((first_top - y) // ROW_HEIGHT)
        if y > first_top or not 0 <= row < self.rows_shown:
            return None
        index = self.top + row
        return index if index < len(self.entries) else None

    # -- thumbnails -----------------------------------------------------------

    def _load_cached(self, budget: float = RENDER_BUDGET) -> bool:
        """Read the thumbnails the disk cache has for up to ``budget`` seconds, the chosen level's and
        the rows in view first; True once every level's was looked for. Not before the list is drawn,
        nor all in one update: reading and uploading 17 took 0.17 s, a window that stops answering."""
        if self._looked_through is self.entries:
            return True
        started = time.perf_counter()
        for entry in self._in_order():
            if entry.path in self._looked or not entry.playable:
                continue
            if time.perf_counter() - started > budget:
                return False
            self._looked.add(entry.path)
            cached = self.game.thumbnails.cached(entry.path)
            if cached is not None:
                self.thumbnails[entry.path] = arcade.load_texture(cached)
        self._looked_through = self.entries
        return True

    def render_thumbnails(self, budget: float = RENDER_BUDGET) -> None:
        """Spend up to ``budget`` seconds on the next missing thumbnail (the chosen level's first)."""
        if self._job is None:
            entry = self._next_without_thumbnail()
            if entry is None:
                return
            self._job = self.game.thumbnails.job(entry.path)
        job = self._job
        try:
            done = job.work(budget)
        except Exception as error:  # a picture is never worth a crash: the preview says what went wrong
            job.cancel()
            self._job = None
            self.failed[job.level] = str(error).splitlines()[0] if str(error) else type(error).__name__
            return
        if done:
            self._job = None
            self.thumbnails[job.level] = arcade.load_texture(job.target)

    def _next_without_thumbnail(self) -> LevelEntry | None:
        for entry in self._in_order():
            if entry.playable and entry.path not in self.thumbnails and entry.path not in self.failed:
                return entry
        return None

    def _in_order(self) -> list[LevelEntry]:
        """The entries a picture is wanted for first: the chosen one, the rows in view, then all."""
        if not self.entries:
            return []
        visible = range(self.top, min(len(self.entries), self.top + self.rows_shown))
        return [self.entries[index] for index in (self.selected, *visible, *range(len(self.entries)))]

    # -- arcade events --------------------------------------------------------

    def on_resize(self, width: int, height: int) -> None:
        """Lay the picker out for the window's size: the heading at its top, as many rows as fit
        under it, the preview filling the width beside them."""
        self.rows_shown = max(1, (height - HEADER - FOOTER) // ROW_HEIGHT)
        self.title.y = height - 44
        self.hint.y = height - 72
        preview_width = max(1, width - MARGIN - self.preview_left)
        self.preview_size = (preview_width, preview_width * 9 // 16)
        self.preview_text.width = self.preview_problems.width = preview_width
        self.top = max(0, min(self.top, len(self.entries) - self.rows_shown))  # grown: no space left below
        self._scroll_to_selected()

    def on_show_view(self) -> None:
        self.window.set_caption("Weft · levels")
        self.on_resize(self.window.width, self.window.height)  # resized while a level showed

    def on_hide_view(self) -> None:
        if self._job is not None:
            self._job.cancel()
            self._job = None
        self._pace(FRAME_DT)

    def _pace(self, draw_dt: float) -> None:
        if draw_dt != self._draw_dt:
            self.window.set_draw_rate(draw_dt)
            self._draw_dt = draw_dt

    def _touch(self) -> None:
        """Input came: redraw at the game's rate from now (the next update draws at once)."""
        self._touched = time.perf_counter()
        self._pace(FRAME_DT)

    def on_update(self, delta_time: float) -> None:
        if self._shown and not self._prepare_asked:
            self.game.prepare()
            self._prepare_asked = True
        idle = time.perf_counter() - self._touched > AWAKE_S
        self._pace(IDLE_DRAW_DT if idle and self.game.preparing else FRAME_DT)
        if self._shown and not self._load_cached():
            return  # the cache first: a picture rendered now might be one it has
        if self.game.preparing:
            return  # a thumbnail would compile the kernels here, freezing the window
        if not self.checked and self._shown and self.game.kernels_cached:  # they compile no more now
            if self._checking is None:
                if not idle:
                    # started while nobody touches the picker (nor just after it shows): its first
                    # kernels make numba import its registries (0.47 s), and the updates, sharing
                    # the interpreter with that thread, waited up to 100-150 ms for half a second
                    # (2026-12-07)
                    return
                self._checking = _Listing(self.game.directory)
            if not self._checking.done.is_set():
                return  # a thumbnail would load kernels here, waiting on the checks' lock
            if self._checking.entries is not None:  # else it failed: the list stays as it was
                self.entries = self._checking.entries
                self.select(self.selected)
            self.checked, self._checking = True, None
        if self._shown:
            self.render_thumbnails()

    def on_draw(self) -> None:
        self._shown = True
        self.clear(color=BACKGROUND)
        self.title.draw()
        self.hint.draw()
        self._draw_rows()
        if self.entries and self.preview_size[0] >= NARROWEST_PREVIEW:
            self._draw_preview()
        preparation = self.game.preparation
        if preparation is not None:
            self.status.text = preparation.line
            self.status.draw()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        self._touch()
        if symbol == arcade.key.UP:
            self.select(self.selected - 1)
        elif symbol == arcade.key.DOWN:
            self.select(self.selected + 1)
        elif symbol == arcade.key.PAGEUP:
            self.select(self.selected - self.rows_shown)
        elif symbol == arcade.key.PAGEDOWN:
            self.select(self.selected + self.rows_shown)
        elif symbol == arcade.key.HOME:
            self.select(0)
        elif symbol == arcade.key.END:
            self.select(len(self.entries) - 1)
        elif symbol in (arcade.key.ENTER, arcade.key.RETURN, arcade.key.SPACE):
            self.choose()
        elif symbol == arcade.key.ESCAPE:
            self.window.close()

    def on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        self._touch()
        row = self._row_at(x, y)
        if row is not None:
            self.selected = row

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        self._touch()
        row = self._row_at(x, y)
        if row is not None and button == arcade.MOUSE_BUTTON_LEFT:
            self.selected = row
            self.choose()

    def on_mouse_scroll(self, x: int, y: int, scroll_x: float, scroll_y: float) -> None:
        self._touch()
        most = max(0, len(self.entries) - self.rows_shown)
        self.top = max(0, min(most, self.top - round(scroll_y)))
        # the pointer chooses what it is over, as it does moving: the rows moved under it, and Enter
        # opened a level scrolled out of sight, no row lit, its preview still shown
        self.on_mouse_motion(x, y, 0, 0)

    # -- drawing --------------------------------------------------------------

    def _draw_rows(self) -> None:
        first_top = self.window.height - HEADER
        shown = self.entries[self.top : self.top + self.rows_shown]
        for row, entry in enumerate(shown):
            index = self.top + row
            top = first_top - row * ROW_HEIGHT
            bottom = top - ROW_HEIGHT + 6
            if index == self.selected:
                arcade.draw_lrbt_rectangle_filled(MARGIN, MARGIN + LIST_WIDTH, bottom, top, ROW_SELECTED)
            thumb_left = MARGIN + 8
            thumb_bottom = bottom + (top - bottom - ROW_THUMB[1]) / 2
            self._draw_thumbnail(entry, arcade.LBWH(thumb_left, thumb_bottom, *ROW_THUMB), small=True)
            text_left = thumb_left + ROW_THUMB[0] + 14
            name, description = self._row_texts(entry)
            name.x, name.y = text_left, top - 22
            description.x, description.y = text_left, top - 42
            description.color = WARNING if not entry.playable else MUTED
            name.draw()
            description.draw()
        if self.top > 0:
            self._draw_more("more above", first_top + 6)
        if self.top + self.rows_shown < len(self.entries):
            self._draw_more("more below", first_top - self.rows_shown * ROW_HEIGHT - 8)

    def _row_texts(self, entry: LevelEntry) -> tuple[arcade.Text, arcade.Text]:
        """The name and the description (cut to the row's width) ``entry``'s row shows."""
        key = (entry.name, entry.description)
        texts = self._rows.get(key)
        if texts is None:
            width = LIST_WIDTH - ROW_THUMB[0] - 36
            name = arcade.Text(entry.name, 0, 0, TEXT, 13, bold=True)
            description = _fit(entry.description, width, self.ruler)
            texts = self._rows[key] = (name, arcade.Text(description, 0, 0, MUTED, 10))
        return texts

    def _draw_more(self, label: str, y: float) -> None:
        self.placeholder.text = f"{label} (scroll)"
        self.placeholder.x, self.placeholder.y = MARGIN + LIST_WIDTH / 2, y
        self.placeholder.draw()

    def _draw_preview(self) -> None:
        entry = self.entry
        top = self.window.height - HEADER
        width, height = self.preview_size
        self._draw_thumbnail(entry, arcade.LBWH(self.preview_left, top - height, width, height), small=False)
        self.preview_name.text = entry.name
        self.preview_name.y = top - height - 34
        self.preview_text.text = entry.description
        self.preview_text.y = self.preview_name.y - 14
        self.preview_text.anchor_y = "top"
        self.preview_file.text = f"{entry.path.name} · Enter to play" if entry.playable else entry.path.name
        self.preview_file.y = self.preview_text.y - self.preview_text.content_height - 18
        for text in (self.preview_name, self.preview_text, self.preview_file):
            text.draw()
        if entry.problems:
            self.preview_problems.text = "\n".join(entry.problems)
            self.preview_problems.anchor_y = "top"
            self.preview_problems.y = self.preview_file.y - 14
            self.preview_problems.draw()

    def _draw_thumbnail(self, entry: LevelEntry, rect: arcade.Rect, small: bool) -> None:
        """The level's thumbnail fitted into ``rect`` (letterboxed), or a note on why there is none yet."""
        arcade.draw_rect_filled(rect, THUMB_BACKGROUND)
        texture = self.thumbnails.get(entry.path)
        if texture is not None:
            scale = min(rect.width / texture.width, rect.height / texture.height)
            width, height = texture.width * scale, texture.height * scale
            arcade.draw_texture_rect(texture, arcade.XYWH(rect.x, rect.y, width, height))
            return
        if small:
            return
        if not entry.playable:
            note = "this level has problems"
        elif entry.path in self.failed:
            note = f"no picture: {self.failed[entry.path]}"
        elif self.game.preparation is not None:  # rendering one would compile the kernels here
            note = "a picture once physics is prepared"
        else:
            note = "rendering a picture..."
        self.placeholder.text = _fit(note, rect.width - 20, self.placeholder)
        self.placeholder.x, self.placeholder.y = rect.x, rect.y
        self.placeholder.draw()


def _fit(text: str, width: float, measure: arcade.Text) -> str:
    """``text`` cut (with an ellipsis) to the longest start that fits ``width`` px in the font of
    ``measure``, a text whose own text it sets (a new text for each measure took 2 ms, setting it 0.3)."""
    measure.text = text
    if measure.content_width <= width:
        return text
    low, high = 0, len(text)  # the longest fitting length is in [low, high)
    while high - low > 1:
        middle = (low + high) // 2
        measure.text = text[:middle].rstrip() + "…"
        if measure.content_width <= width:
            low = middle
        else:
            high = middle
    return text[:low].rstrip() + "…"


class _Listing:
    """``list_levels(directory)`` made whole on a thread of its own; ``done`` is set with
    ``entries`` (None if it failed)."""

    def __init__(self, directory: Path) -> None:
        self.entries: list[LevelEntry] | None = None
        self.done = threading.Event()
        threading.Thread(target=self._list, args=(directory,), daemon=True).start()

    def _list(self, directory: Path) -> None:
        try:
            self.entries = list_levels(directory)
        finally:
            self.done.set()
