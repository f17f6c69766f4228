"""The first start: every shipped level stepped once to compile the kernels, saying how far it got,
and a mark that tells a ready cache from a cold one."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from weft.game import warmup
from weft.levels import LEVELS_DIR


def test_prepare_steps_each_level_reports_progress_and_marks_the_cache_ready(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(warmup, "READY_MARK", tmp_path / "prepared")
    levels = [LEVELS_DIR / "stack.toml", LEVELS_DIR / "cloth.toml"]
    monkeypatch.setattr(warmup, "warm_levels", lambda: levels)
    assert not warmup.kernels_ready()
    seen: list[tuple[int, int, str]] = []
    warmup.prepare_physics(lambda done, total, name: seen.append((done, total, name)))
    assert seen == [(0, 2, "stack.toml"), (1, 2, "cloth.toml"), (2, 2, "done")]
    assert warmup.kernels_ready()


def test_a_slow_first_frame_says_it_compiles_and_how_long_it_took(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(warmup, "NOTICE_AFTER_S", 0.05)
    first = warmup.FirstStart(LEVELS_DIR / "stack.toml", sys.stderr)
    time.sleep(0.3)  # as a first frame that compiles
    first.first_frame_done()
    first.first_frame_done()
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "preparing physics, first run only: compiling the kernels stack.toml needs"
    assert len(lines) == 2 and lines[1].startswith("physics ready in ")


def test_a_quick_first_frame_says_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    warmup.FirstStart(LEVELS_DIR / "stack.toml", sys.stderr).first_frame_done()
    time.sleep(warmup.NOTICE_AFTER_S + 0.2)  # the timer was stopped in time
    assert capsys.readouterr().err == ""


def test_the_progress_line_says_it_happens_once() -> None:
    assert (
        warmup.progress_line(7, 16, "pyramid.toml")
        == "preparing physics, first run only: 7 of 16 (pyramid.toml)"
    )


def test_weft_warmup_prepares_every_shipped_level() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "weft", "warmup"], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    shipped = sorted(LEVELS_DIR.glob("*.toml"))
    assert lines[0] == warmup.progress_line(0, len(shipped), shipped[0].name)
    assert lines[-1] == warmup.progress_line(len(shipped), len(shipped), "done")
    assert done.stdout.startswith("physics ready in ")
    assert warmup.kernels_ready()
