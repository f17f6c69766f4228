"""The command line as ARCHITECTURE.md's contracts describe it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import run_game

from weft.levels import DEFAULT_LEVEL, LEVELS_DIR


def test_run_writes_metrics_with_every_contract_key(tmp_path: Path) -> None:
    out = tmp_path / "metrics.json"
    result = run_game("run", str(DEFAULT_LEVEL), "--frames", "30", "--metrics", str(out))
    assert result.returncode == 0, result.stderr
    assert "30 frames" in result.stdout and len(result.stdout.strip().splitlines()) == 1
    metrics = json.loads(out.read_text())
    assert metrics["frames"] == 30
    assert set(metrics["counts"]) >= {
        "particles",
        "constraints",
        "constraints_alive",
        "torn",
        "bodies",
        "rigid_bodies",
        "sleeping",
    }
    assert metrics["counts"]["particles"] == 70 * 45
    assert set(metrics["step_ms"]) == {"median", "p95"}
    assert len(metrics["state_hash"]) == 64
    for key in ("max_penetration", "max_stretch", "settled_frame"):
        assert key in metrics


def test_run_writes_every_body_in_the_state_file(tmp_path: Path) -> None:
    out = tmp_path / "state.json"
    assert run_game("run", str(DEFAULT_LEVEL), "--frames", "5", "--state", str(out)).returncode == 0
    state = json.loads(out.read_text())
    assert state["frame"] == 5
    assert len(state["bodies"]["sheet"]["positions"]) == 70 * 45


def test_set_overrides_any_level_key(tmp_path: Path) -> None:
    out = tmp_path / "metrics.json"
    result = run_game(
        "run",
        str(DEFAULT_LEVEL),
        "--frames",
        "5",
        "--set",
        "cloth.0.cols=10",
        "--set",
        "world.iterations=4",
        "--metrics",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text())["counts"]["particles"] == 10 * 45


def test_a_still_world_settles_at_frame_zero(tmp_path: Path) -> None:
    level = tmp_path / "still.toml"
    level.write_text('[world]\ngravity = [0, 0]\n[[cloth]]\ncols = 5\nrows = 5\npins = { layout = "none" }\n')
    out = tmp_path / "metrics.json"
    assert run_game("run", str(level), "--frames", "40", "--metrics", str(out)).returncode == 0
    assert json.loads(out.read_text())["settled_frame"] == 0  # and seen still for 40 frames after it


@pytest.mark.parametrize("level", sorted(LEVELS_DIR.glob("*.toml")), ids=lambda p: p.name)
def test_every_built_in_level_is_valid(level: Path) -> None:
    result = run_game("validate", str(level))
    assert result.returncode == 0, result.stderr


def test_bad_input_script_gets_one_clear_line_per_bad_event(tmp_path: Path) -> None:
    script = tmp_path / "input.json"
    script.write_text(
        '[{"frame": 1, "type": "mouse_press", "x": 1, "button": "left"},'
        ' {"frame": 2, "type": "jump"},'
        ' {"frame": 3, "type": "key_press", "key": "R", "extra": 1}]'
    )
    result = run_game("run", str(DEFAULT_LEVEL), "--frames", "5", "--input", str(script))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"{script}: event 0.y: expected this key (it is required), got nothing",
        f"{script}: event 1: expected a type among 'mouse_press', 'mouse_release', 'mouse_drag', "
        "'key_press', 'key_release', 'tool', 'tilt', 'set', got 'jump'",
        f"{script}: event 2.extra: expected only the keys of this event type, got unknown key 'extra'",
    ]


def test_a_script_that_is_not_a_list_says_so_in_one_line() -> None:
    from weft.game.events import ScriptError, validate_events

    for data, found in (({"frame": 1}, "a table"), ("go", '"go" (a string)'), ("a\nb", '"a\\nb" (a string)')):
        with pytest.raises(ScriptError) as raised:
            validate_events(data, "input.json")
        assert str(raised.value) == f"input.json: expected a list of events, got {found}"


def test_frames_must_be_positive() -> None:
    result = run_game("run", str(DEFAULT_LEVEL), "--frames", "0")
    assert result.returncode == 2
    assert "expected a number of at least 1" in result.stderr


def test_play_without_a_display_says_what_to_do_instead() -> None:
    result = run_game()  # bare `weft`, as the README's play command runs it
    assert result.returncode == 1
    assert "play needs a display" in result.stderr and "run" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="an X11 display that does not answer")
def test_play_on_a_display_that_does_not_answer_says_so_without_a_traceback() -> None:
    env = {
        key: value for key, value in os.environ.items() if key not in ("ARCADE_HEADLESS", "WAYLAND_DISPLAY")
    }
    result = subprocess.run(
        [sys.executable, "-m", "weft", "play", str(DEFAULT_LEVEL)],
        env={**env, "DISPLAY": ":987"},  # no X server there
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 1
    assert "the display :987 does not answer" in result.stderr and "weft run" in result.stderr
    assert "Traceback" not in result.stderr


def test_on_a_first_start_run_still_refuses_a_level_the_kernel_checks_refuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # cold, the level loads without the checks that run kernels (they would compile before the
    # line that says so, on one core): Simulation makes them before anything is built
    from weft.game import cli, warmup

    tables = "".join(
        f'[[boxes]]\nname = "p{k}"\nlayout = "pyramid"\ncount = 10\nsize = [40, 40]\nbase = [640, 0]\n'
        for k in range(10)
    )  # ten 55-box pyramids at one place: 2475 pairs overlap, past BOX_OVERLAPS
    level = tmp_path / "crowded.toml"
    level.write_text(tables, encoding="utf-8")
    monkeypatch.setattr(cli, "kernels_ready", lambda: False)
    timers = []
    cancel = warmup.FirstStart.cancel
    monkeypatch.setattr(warmup.FirstStart, "cancel", lambda self: timers.append(self) or cancel(self))
    assert cli.main(["run", str(level), "--frames", "1"]) == cli.USER_ERROR
    # the "preparing physics" timer is stopped with the error, not left to print after it
    assert timers and timers[0]._stopped.is_set()
    error = capsys.readouterr().err
    assert "crowded.toml: boxes.9: expected at most 2000 overlapping box pairs at the start" in error
    assert "Traceback" not in error


def test_run_profile_prints_each_systems_share_after_the_summary() -> None:
    result = run_game("run", str(DEFAULT_LEVEL), "--frames", "10", "--profile")
    assert result.returncode == 0, result.stderr
    summary, header, *rows = result.stdout.strip().splitlines()
    assert "10 frames" in summary and header.startswith("profile: median ms a frame over 10 frames")
    names = [row.split()[0] for row in rows]
    # the order they ran in; the cloth's substep as one call, named after the systems it runs
    assert names[:2] == ["grab", "cut"] and "integrate+pins+distances+bounds+contain+tear" in names
    assert rows[-1].split()[:3] == ["(between", "and", "around)"]


def test_profile_table_takes_medians_and_what_the_systems_left_of_each_step() -> None:
    from weft.game.cli import profile_table

    table = profile_table([({"a": 0.001, "b": 0.002}, 4.0), ({"a": 0.003}, 5.0)])
    header, a, b, rest = table.splitlines()
    assert header == "profile: median ms a frame over 2 frames; the step 4.500 ms"
    # a: 1 and 3 ms; b: 2 and 0 (absent) ms; the rest: 4 - 3 and 5 - 3 ms
    assert a.split() == ["a", "2.000", "44.4%"]
    assert b.split() == ["b", "1.000", "22.2%"]
    assert rest.split()[-2:] == ["1.500", "33.3%"]


def test_run_profile_counts_only_the_frames_a_script_let_step(tmp_path: Path) -> None:
    script = tmp_path / "pause.json"
    # paused from frame 3 to 6, and the world rebuilt (R) at 8: those are not frames of one schedule
    events = [(3, "SPACE"), (6, "SPACE"), (8, "R")]
    script.write_text(json.dumps([{"frame": f, "type": "key_press", "key": key} for f, key in events]))
    result = run_game("run", str(DEFAULT_LEVEL), "--frames", "12", "--input", str(script), "--profile")
    assert result.returncode == 0, result.stderr
    # stepped: frames 0-2, 6-7, and 9-11 after the rebuild (frame 8 rebuilt, then stepped the new world)
    assert result.stdout.splitlines()[1].startswith("profile: median ms a frame over 8 frames")
