"""The level picker: every shipped level listed, thumbnails made once and cached, next/previous keys."""

from __future__ import annotations

import time
import tomllib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from support.gui import import_gui_headless

from weft.game import thumbnails
from weft.game.catalog import level_paths, list_levels, neighbour
from weft.game.thumbnails import THUMBNAIL_SIZE, ThumbnailCache, ThumbnailJob, default_cache_dir
from weft.game.warmup import progress_line
from weft.levels import DEFAULT_LEVEL, LEVELS_DIR

SHIPPED = sorted(LEVELS_DIR.glob("*.toml"))


def test_the_catalog_lists_every_shipped_level_with_its_name_and_description() -> None:
    entries = list_levels()
    by_path = {entry.path: entry for entry in entries}
    assert set(SHIPPED) <= set(by_path)
    for path in SHIPPED:
        info = tomllib.loads(path.read_text(encoding="utf-8"))["level"]
        entry = by_path[path]
        assert (entry.name, entry.description) == (info["name"], info["description"])
        assert entry.playable, entry.problems
    assert [entry.path for entry in entries] == level_paths()  # one order for the picker and N/B


def test_a_broken_level_is_listed_with_its_problems(tmp_path: Path) -> None:
    (tmp_path / "good.toml").write_text('[level]\nname = "Good"\ndescription = "fine"\n[[cloth]]\n')
    (tmp_path / "bad.toml").write_text("[[cloth]]\ncols = -3\n")
    (tmp_path / "notes.txt").write_text("not a level")
    bad, good = list_levels(tmp_path)
    assert (good.name, good.playable) == ("Good", True)
    assert not bad.playable and any("cloth.0.cols" in line for line in bad.problems)


def test_next_and_previous_wrap_round_the_list() -> None:
    paths = [Path("a.toml"), Path("b.toml"), Path("c.toml")]
    assert neighbour(paths, Path("a.toml"), 1) == Path("b.toml")
    assert neighbour(paths, Path("c.toml"), 1) == Path("a.toml")
    assert neighbour(paths, Path("a.toml"), -1) == Path("c.toml")
    assert neighbour(paths, Path("elsewhere.toml"), 1) == Path("a.toml")
    assert neighbour(paths, Path("elsewhere.toml"), -1) == Path("c.toml")


def test_the_thumbnail_cache_lives_in_the_user_cache_folder_not_the_project() -> None:
    folder = default_cache_dir()
    assert folder.parts[-2:] == ("weft", "thumbnails")
    assert LEVELS_DIR.parent not in folder.parents


def test_a_thumbnail_is_rendered_once_and_then_read_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = ThumbnailCache(tmp_path / "cache")
    level = LEVELS_DIR / "creature.toml"
    assert cache.cached(level) is None

    png = cache.render(level)
    assert png.parent == tmp_path / "cache" and png.suffix == ".png"
    with Image.open(png) as image:
        assert image.size[0] <= THUMBNAIL_SIZE[0] and image.size[1] <= THUMBNAIL_SIZE[1]
        pixels = np.asarray(image.convert("RGB")).astype(int)
    assert pixels.std() > 10  # a picture of something, not a blank frame

    def no_rendering(*args: object, **kwargs: object) -> None:
        raise AssertionError("the cached thumbnail should have been reused")

    monkeypatch.setattr(thumbnails, "Simulation", no_rendering)
    monkeypatch.setattr(ThumbnailJob, "_save", no_rendering)
    assert cache.render(level) == png
    assert cache.cached(level) == png
    assert list((tmp_path / "cache").iterdir()) == [png]  # no partial files left


def test_the_cache_key_follows_the_level_file_content(tmp_path: Path) -> None:
    cache = ThumbnailCache(tmp_path / "cache")
    level = tmp_path / "copy.toml"
    level.write_text(DEFAULT_LEVEL.read_text())
    before = cache.path(level)
    assert cache.path(level) == before  # stable
    level.write_text(DEFAULT_LEVEL.read_text() + "\n# an edit\n")
    assert cache.path(level) != before


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import_gui_headless()
    import arcade

    from weft.game import window as window_module
    from weft.game.offscreen import shared_window
    from weft.game.window import Game

    monkeypatch.setattr(window_module, "kernels_ready", lambda: True)  # a first start only where asked

    window = shared_window()
    game = Game(window, ThumbnailCache(tmp_path / "cache"))
    yield game
    window.show_view(arcade.View())
    if game.playing is not None:
        game.playing.session.sim.close()


def test_the_picker_lists_the_levels_and_plays_the_chosen_one(game) -> None:
    import arcade

    from weft.game.picker import PickerView
    from weft.game.window import PlayView

    picker = game.pick(selected=DEFAULT_LEVEL)
    assert isinstance(picker, PickerView)
    assert [entry.path for entry in picker.entries] == level_paths()
    assert picker.entry.path == DEFAULT_LEVEL  # starts on the level asked for

    picker.on_draw()
    image = np.asarray(arcade.get_image(0, 0, 1280, 720).convert("RGB")).astype(int)
    bright = image.sum(axis=2) > 500
    assert bright[20:90, 20:300].any()  # the title
    assert bright[100:700, 130:700].sum() > 2000  # the names in the list

    picker.on_key_press(arcade.key.DOWN, 0)
    chosen = picker.entry.path
    assert chosen == level_paths()[level_paths().index(DEFAULT_LEVEL) + 1]
    picker.on_key_press(arcade.key.ENTER, 0)
    view = game.window.current_view
    assert isinstance(view, PlayView)
    assert view.session.sim.level.source == chosen

    view.on_key_press(arcade.key.ESCAPE, 0)  # back to the picker, on the level just played
    back = game.window.current_view
    assert isinstance(back, PickerView) and back.entry.path == chosen


def test_the_picker_renders_missing_thumbnails_in_slices_chosen_level_first(game) -> None:
    picker = game.pick(selected=LEVELS_DIR / "stack.toml")
    for _ in range(400):
        picker.render_thumbnails(budget=0.005)
        if LEVELS_DIR / "stack.toml" in picker.thumbnails:
            break
    assert set(picker.thumbnails) == {LEVELS_DIR / "stack.toml"}
    assert game.thumbnails.cached(LEVELS_DIR / "stack.toml") is not None
    again = game.pick()  # a picker opened later shows it from the cache, once its list is drawn
    assert again.thumbnails == {}
    again.on_draw()
    for _ in range(len(again.entries)):  # a slice of the cache each update
        again.on_update(1 / 60)
        if again.thumbnails:
            break
    assert set(again.thumbnails) == {LEVELS_DIR / "stack.toml"}


def test_clicking_a_row_plays_its_level(game) -> None:
    import arcade

    from weft.game.picker import HEADER, MARGIN, ROW_HEIGHT

    picker = game.pick()
    y = game.window.height - HEADER - ROW_HEIGHT * 2 - ROW_HEIGHT / 2  # the third row
    picker.on_mouse_press(MARGIN + 200, int(y), arcade.MOUSE_BUTTON_LEFT, 0)
    assert game.playing is not None
    assert game.playing.session.sim.level.source == level_paths()[2]


def test_the_wheel_scrolls_the_list_and_the_row_under_the_pointer_is_the_one_chosen(game) -> None:
    import arcade

    from weft.game.picker import HEADER, MARGIN, ROW_HEIGHT

    picker = game.pick()
    picker.on_key_press(arcade.key.END, 0)  # the last level chosen, the list scrolled down to it
    assert picker.top > 0
    x, y = MARGIN + 200, int(game.window.height - HEADER - ROW_HEIGHT * 2 - ROW_HEIGHT / 2)  # third row
    picker.on_mouse_scroll(x, y, 0.0, 100.0)  # up, as far as it goes, without moving the pointer
    assert picker.top == 0
    assert picker.entry.path == level_paths()[2]  # not the last level, scrolled out of sight
    picker.on_key_press(arcade.key.ENTER, 0)
    assert game.playing is not None and game.playing.session.sim.level.source == level_paths()[2]


def test_n_and_b_step_through_the_levels_in_the_pickers_order(game) -> None:
    import arcade

    from weft.game.level import load_level

    paths = level_paths()
    view = game.play(load_level(DEFAULT_LEVEL))
    start = paths.index(DEFAULT_LEVEL)
    view.on_key_press(arcade.key.N, 0)
    assert view.session.sim.level.source == paths[start + 1]
    assert view.session.log == []  # window keys are not level input: never recorded
    view.on_key_press(arcade.key.PAGEUP, 0)
    assert view.session.sim.level.source == DEFAULT_LEVEL
    view.on_key_press(arcade.key.B, 0)
    assert view.session.sim.level.source == paths[start - 1]


class FakePreparation:
    """A preparation the test finishes by hand (the real one is a child process compiling)."""

    def __init__(self, levels: Sequence[Path] = (), *options: object) -> None:
        # as the child says once the plan of the level it compiles has started
        if levels:
            self.line = progress_line(0, 1, levels[0].name, (f"level {levels[0].name}", 7, 23))
        else:
            self.line = progress_line(3, 16, "cloth.toml", ("level cloth.toml", 37, 81))
        self.done = False
        self.started = 0.0

    def stop(self) -> None:
        self.done = True


def test_while_the_kernels_compile_the_picker_answers_and_a_chosen_level_opens_once_its_are_ready(
    game, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arcade

    from weft.components import FRAME_DT
    from weft.game import window as window_module
    from weft.game.window import PREPARING_DRAW_DT, PlayView, PreparingView

    monkeypatch.setattr(window_module, "kernels_ready", lambda: False)
    monkeypatch.setattr(window_module, "Preparation", FakePreparation)
    game.preparation = FakePreparation()  # every shipped level, for the thumbnails
    picker = game.pick(selected=DEFAULT_LEVEL)
    picker.on_draw()
    picker.on_update(1 / 60)
    assert not picker.thumbnails and picker._job is None  # nothing rendered: it would compile here
    assert picker.placeholder.text == "a picture once physics is prepared"
    assert (
        picker.status.text
        == "preparing physics, first run only: 3 of 16 levels (cloth.toml), 37 of 81 kernels"
    )
    every = game.preparation
    rates: list[float] = []
    monkeypatch.setattr(game.window, "set_draw_rate", rates.append)
    picker.on_key_press(arcade.key.ENTER, 0)
    preparing = game.window.current_view
    assert isinstance(preparing, PreparingView)  # the level's own kernels compile aside
    assert rates[-1] == PREPARING_DRAW_DT  # its line redrawn a few times a second, not 60
    # and alone: every level's compiling would take half the cores from it
    assert every.done and game.preparation is None
    preparing.on_draw()
    assert preparing.text.text.startswith(
        f"preparing physics, first run only: 7 of 23 kernels ({DEFAULT_LEVEL.name}) · "
    )
    preparing.on_update(1 / 60)
    assert game.window.current_view is preparing  # not ready: the window goes on answering
    preparing.on_key_press(arcade.key.ESCAPE, 0)
    assert preparing.preparation.done  # stopped
    picker = game.window.current_view
    picker.on_draw()
    picker.on_update(1 / 60)
    again = game.preparation
    assert isinstance(again, FakePreparation) and again is not every  # the picker's goes on
    picker.on_key_press(arcade.key.ENTER, 0)
    preparing = game.window.current_view
    assert again.done and game.preparation is None
    preparing.preparation.done = True
    preparing.on_update(1 / 60)
    view = game.window.current_view
    assert isinstance(view, PlayView) and view.session.sim.level.source == DEFAULT_LEVEL
    assert rates[-1] == FRAME_DT  # the level at the game's rate
    assert not game.preparing  # nothing compiles beside the level played
    view.on_key_press(arcade.key.ESCAPE, 0)
    picker = game.window.current_view
    picker.on_draw()
    picker.on_update(1 / 60)
    assert isinstance(game.preparation, FakePreparation) and not game.preparation.done


def test_while_the_kernels_compile_an_untouched_picker_redraws_a_few_times_a_second(
    game, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arcade

    from weft.components import FRAME_DT
    from weft.game import window as window_module
    from weft.game.picker import AWAKE_S, IDLE_DRAW_DT

    monkeypatch.setattr(window_module, "kernels_ready", lambda: False)
    monkeypatch.setattr(window_module, "Preparation", FakePreparation)
    rates: list[float] = []
    monkeypatch.setattr(game.window, "set_draw_rate", rates.append)
    picker = game.pick()
    picker.on_draw()
    picker.on_update(1 / 60)
    assert rates == []  # just shown: at the game's rate for a moment, as after a key
    picker._touched -= 2 * AWAKE_S  # a while later, nobody touching it
    picker.on_update(1 / 60)
    assert rates == [IDLE_DRAW_DT]  # its text took most of a core from the compiling
    picker.on_key_press(arcade.key.DOWN, 0)
    assert rates[-1] == FRAME_DT  # a key is answered at the game's rate, from the next update
    picker.on_update(1 / 60)
    assert rates[-1] == FRAME_DT
    picker._touched -= 2 * AWAKE_S  # a while later, nobody touching it
    picker.on_update(1 / 60)
    assert rates[-1] == IDLE_DRAW_DT
    picker.on_mouse_motion(10, 10, 1, 1)
    assert rates[-1] == FRAME_DT
    picker._touched -= 2 * AWAKE_S
    game.preparation.done = True  # compiled: the picker renders its thumbnails at full rate
    picker.on_update(1 / 60)
    assert rates[-1] == FRAME_DT
    assert rates == [IDLE_DRAW_DT, FRAME_DT, IDLE_DRAW_DT, FRAME_DT]  # set only when it changes


def test_the_picker_reached_from_a_level_on_a_first_start_compiles_the_kernels_aside(
    game, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arcade

    from weft.game import window as window_module
    from weft.game.level import load_level

    monkeypatch.setattr(window_module, "kernels_ready", lambda: False)
    monkeypatch.setattr(window_module, "Preparation", FakePreparation)
    game.prepared.add(DEFAULT_LEVEL.resolve())  # as ``weft play LEVEL`` once its own kernels compiled
    view = game.play(load_level(DEFAULT_LEVEL))
    assert game.preparation is None

    view.on_key_press(arcade.key.ESCAPE, 0)
    picker = game.window.current_view
    picker.on_draw()
    picker.on_update(1 / 60)
    assert isinstance(game.preparation, FakePreparation)  # everything else compiles in a child
    assert not picker.thumbnails and picker._job is None  # and no thumbnail compiles here


def test_a_preparation_that_ended_without_a_ready_cache_is_not_started_again_at_every_escape(
    game, monkeypatch: pytest.MonkeyPatch
) -> None:
    from weft.game import window as window_module

    monkeypatch.setattr(window_module, "kernels_ready", lambda: False)  # it failed, or a read-only cache
    monkeypatch.setattr(window_module, "Preparation", FakePreparation)
    picker = game.pick()
    picker.on_update(1 / 60)
    assert game.preparation is None  # not before the picker's first frame: it would take the cores
    picker.on_draw()
    picker.on_update(1 / 60)
    first = game.preparation
    assert isinstance(first, FakePreparation)
    first.done = True
    assert not game.preparing
    picker = game.pick()
    picker.on_draw()
    picker.on_update(1 / 60)
    assert game.preparation is None  # a minute of compiling is not started again


CROWDED = "\n".join(
    f'[[boxes]]\nname = "p{k}"\nlayout = "pyramid"\ncount = 10\nsize = [40, 40]\nbase = [640, 0]\n'
    for k in range(10)
)
"""Ten 55-box pyramids at one place: 2475 pairs overlap at the start, past ``BOX_OVERLAPS`` (2000),
which only a kernel counts."""


def _crowded_folder(game, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ready: bool) -> list[int]:
    """``game`` lists a folder with the crowded level and a sheet, its kernels cached or not
    (``ready``); returns the list each count of box overlaps (a kernel run) adds to."""
    from weft.game import catalog
    from weft.game import window as window_module
    from weft.game.level import load

    levels = tmp_path / "levels"
    levels.mkdir()
    (levels / "crowded.toml").write_text(CROWDED, encoding="utf-8")
    (levels / "sheet.toml").write_text("[[cloth]]\nname = 'sheet'\n", encoding="utf-8")
    game.directory = levels
    monkeypatch.setattr(catalog, "_read", {})
    monkeypatch.setattr(window_module, "kernels_ready", lambda: ready)
    counted: list[int] = []
    count = load.box_problems
    monkeypatch.setattr(load, "box_problems", lambda *args: counted.append(1) or count(*args))
    return counted


def test_on_a_first_start_the_list_runs_no_kernel_and_a_level_refused_when_built_says_why(
    game, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arcade

    from weft.game import window as window_module
    from weft.game.window import PickerView, PreparingView

    counted = _crowded_folder(game, tmp_path, monkeypatch, ready=False)
    monkeypatch.setattr(window_module, "Preparation", FakePreparation)
    game.preparation = FakePreparation()

    picker = game.pick(selected=game.directory / "crowded.toml")
    # listed at once: counting the overlaps would compile a kernel before the window first draws
    assert [entry.playable for entry in picker.entries] == [True, True] and not counted
    picker.on_key_press(arcade.key.ENTER, 0)
    preparing = game.window.current_view
    assert isinstance(preparing, PreparingView)
    preparing.preparation.done = True
    preparing.on_update(1 / 60)  # its kernels are cached now: the checks run before it is built
    picker = game.window.current_view
    assert isinstance(picker, PickerView) and counted
    assert "overlapping box pairs at the start" in " ".join(picker.entry.problems)
    assert not picker.entry.playable


def test_with_the_kernels_cached_the_list_is_drawn_first_and_checked_whole_aside(
    game, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from weft.game.picker import AWAKE_S

    counted = _crowded_folder(game, tmp_path, monkeypatch, ready=True)

    picker = game.pick()
    picker.on_update(1 / 60)  # not drawn yet: loading the first kernel would keep the window black
    assert picker.entry.playable and not counted
    picker.on_draw()
    picker.on_mouse_motion(1, 1, 1, 1)  # the pointer moved, over no row
    picker.on_update(1 / 60)
    assert picker._checking is None  # not while a player browses: the thread's imports hold the window
    picker._touched -= 2 * AWAKE_S  # a while later, nobody touching it
    picker.on_update(1 / 60)  # the whole checks start on a thread of their own
    assert picker._checking is not None
    for _ in range(600):
        if picker.checked:
            break
        time.sleep(0.01)
        picker.on_draw()  # the window goes on drawing meanwhile
        picker.on_update(1 / 60)
    assert picker.checked and counted and not picker.entry.playable
    assert "overlapping box pairs at the start" in " ".join(picker.entry.problems)


def test_a_row_says_what_its_entry_says_when_the_list_is_made_again(game) -> None:
    from weft.game.catalog import LevelEntry

    picker = game.pick()
    picker.on_draw()
    first = picker.entries[0]
    # the listing with the checks that run kernels may find a level broken after the first draw
    picker.entries = [LevelEntry(first.path, first.path.stem, "this level has problems", ["bad"])]
    picker.on_draw()
    name, description = picker._row_texts(picker.entries[0])
    assert (name.text, description.text) == (first.path.stem, "this level has problems")


def test_the_more_below_note_and_the_preparation_line_lie_apart(game) -> None:
    # before: in the 1280 × 720 window the note sat 2 px over the line, the two drawn into each other
    game.preparation = FakePreparation()
    picker = game.pick()
    notes = []
    picker._draw_more = lambda label, y: notes.append(y)
    picker.on_draw()
    assert len(notes) == 1  # 16 levels: more below
    half_note = picker.placeholder.content_height / 2
    assert notes[0] - half_note >= picker.status.y + picker.status.content_height


def test_the_heading_and_the_rows_follow_a_resized_window(game) -> None:
    # before: the heading kept the height it was made at: at 900 px it overlapped the first rows,
    # at 300 px it lay above the window
    from weft.game.picker import FOOTER, HEADER, MARGIN, ROW_HEIGHT

    picker = game.pick(selected=DEFAULT_LEVEL)
    for width, height in ((1500, 900), (500, 300), (1280, 720)):
        picker.on_resize(width, height)
        assert (height - picker.title.y, height - picker.hint.y) == (44, 72)
        assert picker.rows_shown == max(1, (height - HEADER - FOOTER) // ROW_HEIGHT)
        assert picker.top <= picker.selected < picker.top + picker.rows_shown  # the chosen row in view
        assert picker.preview_size[0] == max(1, width - MARGIN - picker.preview_left)
    picker.on_resize(800, 450)  # no room beside the list: the preview is left out, not squeezed
    calls = []
    picker._draw_preview = lambda: calls.append(1)
    picker.on_draw()
    assert calls == []
    picker.on_resize(1280, 720)
    picker.on_draw()
    assert calls == [1]
    del picker._draw_preview
    picker.on_resize(1280, 300)
    picker.select(len(picker.entries) - 1)
    picker.on_resize(1280, 2000)  # every row fits again: none is left scrolled out above
    assert picker.top == 0
