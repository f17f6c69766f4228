"""Hot reload: a broken save keeps the running level and says why; a fixed save is picked up."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from support.gui import import_gui_headless

from weft.game.reload import LevelWatcher
from weft.levels import LEVELS_DIR

LEVEL = """
[level]
name = "Reloaded"
description = "A small sheet that a test edits."

[[cloth]]
name = "sheet"
cols = {cols}
rows = 8
{extra}
"""

SECOND = 1_000_000_000
"""ns: saves in these tests are stamped a whole second apart, as a coarse file system would."""


def save(path: Path, text: str, stamp: int) -> None:
    """Write ``text`` and give the file the modification time ``stamp`` (ns), as a save would."""
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(stamp, stamp))


def touch(path: Path, stamp: int) -> None:
    os.utime(path, ns=(stamp, stamp))


@pytest.fixture
def level_file(tmp_path: Path) -> Path:
    path = tmp_path / "reloaded.toml"
    save(path, LEVEL.format(cols=10, extra=""), 1000 * SECOND)
    return path


def test_nothing_is_reloaded_while_the_files_are_unchanged(level_file: Path) -> None:
    watcher = LevelWatcher(level_file, settle=0)
    assert watcher.check() is None
    assert watcher.problems == []


def test_a_broken_save_keeps_the_old_level_and_a_fixed_one_is_picked_up(level_file: Path) -> None:
    watcher = LevelWatcher(level_file, settle=0)

    save(level_file, LEVEL.format(cols='"many"', extra="tear_ratio = -2"), 1001 * SECOND)
    assert watcher.check() is None  # the caller keeps running what it has
    assert len(watcher.problems) == 2
    assert any("cloth.0.cols" in line and "many" in line for line in watcher.problems)
    assert any("cloth.0.tear_ratio" in line for line in watcher.problems)
    assert all("\n" not in line for line in watcher.problems)  # one line each, ready for the overlay

    assert watcher.check() is None  # no new save: the problems stay on screen
    assert len(watcher.problems) == 2

    save(level_file, LEVEL.format(cols=12, extra=""), 1002 * SECOND)
    level = watcher.check()
    assert level is not None
    assert level.model.cloth[0].cols == 12
    assert watcher.problems == []


def test_a_toml_syntax_error_is_reported_with_its_line(level_file: Path) -> None:
    watcher = LevelWatcher(level_file, settle=0)
    save(level_file, LEVEL.format(cols=10, extra="rows = = 3"), 1001 * SECOND)
    assert watcher.check() is None
    assert len(watcher.problems) == 1
    assert "line 10" in watcher.problems[0] and "TOML" in watcher.problems[0]


def test_a_save_of_the_same_second_but_another_length_still_counts(level_file: Path) -> None:
    watcher = LevelWatcher(level_file, settle=0)
    save(
        level_file, LEVEL.format(cols=9, extra=""), 1000 * SECOND
    )  # same mtime, one byte less (100 columns would leave the world)
    level = watcher.check()
    assert level is not None and level.model.cloth[0].cols == 9


def test_saving_a_texture_the_level_names_reloads_it(tmp_path: Path) -> None:
    texture = tmp_path / "flag.png"
    shutil.copy(LEVELS_DIR / "textures" / "dawn.png", texture)
    touch(texture, 1000 * SECOND)
    path = tmp_path / "textured.toml"
    save(path, LEVEL.format(cols=10, extra='texture = "flag.png"'), 1000 * SECOND)
    watcher = LevelWatcher(path, settle=0)
    assert texture in watcher.files

    touch(texture, 1001 * SECOND)
    assert watcher.check() is not None


def test_adding_a_missing_texture_retries_the_broken_level(level_file: Path) -> None:
    watcher = LevelWatcher(level_file, settle=0)
    save(level_file, LEVEL.format(cols=10, extra='texture = "later.png"'), 1001 * SECOND)
    assert watcher.check() is None
    assert any("later.png" in line for line in watcher.problems)

    shutil.copy(LEVELS_DIR / "textures" / "dawn.png", level_file.parent / "later.png")  # the level file stays
    level = watcher.check()
    assert level is not None and level.model.cloth[0].texture == "later.png"
    assert watcher.problems == []


def test_overrides_from_the_command_line_apply_to_every_reload(level_file: Path) -> None:
    watcher = LevelWatcher(level_file, overrides=["cloth.0.rows=5"], settle=0)
    save(level_file, LEVEL.format(cols=11, extra=""), 1001 * SECOND)
    level = watcher.check()
    assert level is not None
    assert (level.model.cloth[0].cols, level.model.cloth[0].rows) == (11, 5)


def test_poll_looks_at_the_files_only_a_few_times_a_second(level_file: Path) -> None:
    now = [0.0]
    watcher = LevelWatcher(level_file, interval=0.25, clock=lambda: now[0], settle=0)
    save(level_file, LEVEL.format(cols=13, extra=""), 1001 * SECOND)
    now[0] = 0.1
    assert watcher.poll() is None  # too soon to look
    now[0] = 0.3
    level = watcher.poll()
    assert level is not None and level.model.cloth[0].cols == 13


def test_the_window_keeps_playing_through_a_broken_save_and_keeps_tool_and_pause(level_file: Path) -> None:
    import_gui_headless()
    import arcade

    from weft.game.offscreen import shared_window
    from weft.game.session import Session
    from weft.game.simulation import Simulation
    from weft.game.window import PlayView

    window = shared_window()
    view = PlayView(Session(Simulation.load(level_file)))
    window.show_view(view)
    view.watcher.interval = 0.0  # look at every update
    view.watcher.settle = 0.0  # and read a save at once (test_a_save_is_read_once_it_has_settled)
    try:
        view.session.choose_tool("cut")
        view.on_key_press(arcade.key.SPACE, 0)
        view.on_update(1 / 60)
        assert view.session.paused
        running = view.session

        save(level_file, LEVEL.format(cols='"many"', extra=""), 1001 * SECOND)
        view.on_update(1 / 60)
        assert view.session is running  # the old level plays on
        assert view.watcher.problems
        view.on_draw()
        image = np.asarray(arcade.get_image(0, 0, 1280, 720).convert("RGB")).astype(int)
        warning = (
            (image[..., 0] > 200) & (image[..., 1] > 120) & (image[..., 1] < 200) & (image[..., 2] < 160)
        )
        assert warning[720 - 140 : 720 - 30, 20:600].sum() > 100  # the problem lines, bottom left

        save(level_file, LEVEL.format(cols=12, extra=""), 1002 * SECOND)
        view.on_update(1 / 60)
        assert view.session is not running
        assert view.session.sim.level.model.cloth[0].cols == 12
        assert view.session.paused and view.session.tool.name == "cut"
        assert view.session.log == [  # as events, so a recording of the reloaded level replays the same
            {"frame": 0, "type": "tool", "name": "cut"},
            {"frame": 0, "type": "key_press", "key": "SPACE"},
        ]
        assert view.watcher.problems == []
    finally:
        window.show_view(arcade.View())
        view.session.sim.close()


def test_a_save_is_read_once_it_has_settled_not_cut_off_at_a_line_end(level_file: Path) -> None:
    now = [0.0]
    watcher = LevelWatcher(level_file, interval=0.0, clock=lambda: now[0], settle=0.2)
    full = LEVEL.format(cols=13, extra="")
    save(level_file, full[: full.index("[[cloth]]")], 1001 * SECOND)  # half written: valid, and empty
    assert watcher.poll() is None  # just changed: wait for the rest
    now[0] = 0.1
    save(level_file, full, 1002 * SECOND)  # the rest lands
    assert watcher.poll() is None  # changed again: wait again
    now[0] = 0.35
    level = watcher.poll()
    assert level is not None and level.model.cloth[0].cols == 13
