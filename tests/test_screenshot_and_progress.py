"""The screenshot key writes a new PNG next to the level; long headless runs show a progress bar."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from support.cli import run_game
from support.gui import import_gui_headless

from weft.game.progress import Progress
from weft.levels import DEFAULT_LEVEL


def test_f12_writes_a_new_png_next_to_the_level_never_overwriting(tmp_path: Path) -> None:
    import_gui_headless()
    import arcade

    from weft.game.offscreen import shared_window
    from weft.game.session import Session
    from weft.game.simulation import Simulation
    from weft.game.window import PlayView

    level = tmp_path / "cloth.toml"
    shutil.copy(DEFAULT_LEVEL, level)
    window = shared_window()
    view = PlayView(Session(Simulation.load(level)))
    window.show_view(view)
    try:
        for _ in range(3):
            view.on_update(1 / 60)
        view.on_key_press(arcade.key.F12, 0)
        view.on_key_release(arcade.key.F12, 0)
        view.on_draw()
        view.on_key_press(arcade.key.F12, 0)
        view.on_draw()
        assert view.screenshots == [tmp_path / "cloth-000003.png", tmp_path / "cloth-000003-2.png"]
        assert view.session.log == []  # the key is the window's, not level input
        assert "saved cloth-000003-2.png" in view.hud.status.text
        with Image.open(view.screenshots[0]) as image:
            assert image.size == window.get_framebuffer_size()
            pixels = np.asarray(image.convert("RGB")).astype(int)
        background = np.array([0x1B, 0x1F, 0x2A])
        assert (np.abs(pixels - background).sum(axis=2) > 30).mean() > 0.3  # the sheet is in it
    finally:
        window.show_view(arcade.View())
        view.session.sim.close()


def test_a_screenshot_of_a_shipped_level_of_an_installed_copy_goes_to_the_users_pictures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from weft import folders
    from weft.game.screenshot import save_screenshot, screenshot_folder

    pictures = tmp_path / "Pictures"
    pictures.mkdir()
    monkeypatch.setenv("XDG_PICTURES_DIR", str(pictures))
    assert screenshot_folder(DEFAULT_LEVEL) == DEFAULT_LEVEL.parent  # a checkout: next to the level
    monkeypatch.setattr(folders, "source_checkout", lambda: False)  # as if pip-installed
    assert screenshot_folder(DEFAULT_LEVEL) == pictures / "weft"
    assert screenshot_folder(tmp_path / "mine.toml") == tmp_path  # the user's own level: next to it
    path = save_screenshot(Image.new("RGB", (4, 4)), DEFAULT_LEVEL, 12)
    assert path == pictures / "weft" / "cloth-000012.png" and path.is_file()


def test_a_dangling_link_holding_the_next_screenshot_name_is_passed_over(tmp_path: Path) -> None:
    from weft.game.screenshot import save_screenshot

    level = tmp_path / "cloth.toml"
    (tmp_path / "cloth-000001.png").symlink_to(tmp_path / "nowhere.png")
    assert save_screenshot(Image.new("RGB", (4, 4)), level, 1) == tmp_path / "cloth-000001-2.png"


def fake_clock(times: list[float]):
    return lambda: times[0]


def test_the_progress_bar_shows_frames_rate_and_time_left_on_a_terminal() -> None:
    stream = io.StringIO()
    now = [0.0]
    progress = Progress(1000, label="cloth.toml", stream=stream, tty=True, clock=fake_clock(now))
    progress.update(10)
    assert stream.getvalue() == ""  # nothing in the first quarter second: short runs stay silent
    now[0] = 1.0
    progress.update(250)
    line = stream.getvalue()
    assert line.startswith("\rcloth.toml")
    assert " 250/1000 frames" in line and "250 fps" in line and "ETA 0:03" in line
    now[0] = 1.1
    progress.update(260)
    assert stream.getvalue() == line  # redrawn at most every quarter second
    now[0] = 2.0
    progress.update(500)
    assert stream.getvalue().count("\r") == 2
    progress.close()
    assert stream.getvalue().endswith("\r")  # the line is cleared for the summary


def test_the_progress_bar_prints_nothing_when_not_on_a_terminal() -> None:
    stream = io.StringIO()  # isatty() is False, like a pipe or a captured stream
    now = [0.0]
    with Progress(100, stream=stream, clock=fake_clock(now)) as progress:
        for k in progress.track(100):
            now[0] = k * 0.5
    assert progress.done == 100
    assert stream.getvalue() == ""


def test_a_headless_run_through_a_pipe_keeps_stderr_clean() -> None:
    result = run_game("run", str(DEFAULT_LEVEL), "--frames", "40")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert len(result.stdout.strip().splitlines()) == 1
