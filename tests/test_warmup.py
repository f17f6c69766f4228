"""The first start: every shipped level stepped once to compile the kernels, saying how far it got,
and a mark that tells a ready cache from a cold one."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from weft.game import warmup
from weft.levels import DEFAULT_LEVEL, LEVELS_DIR
from weft.systems import first_start


def test_prepare_steps_each_level_reports_progress_and_marks_the_cache_ready(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(warmup, "READY_MARK", tmp_path / "prepared")
    levels = [LEVELS_DIR / "stack.toml", LEVELS_DIR / "cloth.toml"]
    monkeypatch.setattr(warmup, "warm_levels", lambda: levels)
    assert not warmup.kernels_ready()
    seen: list[tuple[int, int, str]] = []
    counted: list[tuple[str, int, int]] = []

    def report(done: int, total: int, name: str, kernels: tuple[str, int, int] | None) -> None:
        if kernels is None:
            seen.append((done, total, name))
        else:
            counted.append(kernels)

    warmup.prepare_physics(report)
    assert seen == [(0, 2, "stack.toml"), (1, 2, "cloth.toml"), (2, 2, "done")]
    assert counted == sorted(counted)  # a plan's kernels only ever add up (none: the cache was warm)
    assert warmup.kernels_ready()


def test_a_preparation_compiles_its_levels_plans_and_play_plans_as_one_before_the_first_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    happened: list[tuple[str, ...] | str] = []
    monkeypatch.setattr(warmup, "compile_apart", lambda *plans: happened.append(plans))
    load = warmup.Simulation.load

    def built(path: Path, *args: object) -> object:
        happened.append(f"built {path.name}")
        return load(path, *args)

    monkeypatch.setattr(warmup.Simulation, "load", built)
    monkeypatch.setattr(warmup, "act_once", lambda sim: None)
    levels = [LEVELS_DIR / "stack.toml", LEVELS_DIR / "cloth.toml"]
    warmup.prepare_physics(None, levels)
    # one second process for both, and no plan's end waiting on its last kernel before the next
    # each with what playing it once compiles besides its frames (its play plan, after its level's)
    assert happened == [
        ("play stack.toml", "play cloth.toml"),
        ("level stack.toml",),  # each then finds its own cached
        "built stack.toml",
        ("level cloth.toml",),
        "built cloth.toml",
    ]
    happened.clear()
    warmup.prepare_physics(None, levels[:1])  # a level about to open: its own, and its play plan
    assert happened == [("play stack.toml",), ("level stack.toml",), "built stack.toml"]
    happened.clear()
    warmup.prepare_physics(None, levels, overrides=["world.gravity=[0, -100]"])  # changed: plans of others
    assert all(len(event) == 1 for event in happened if isinstance(event, tuple))


QUIET = """
[world]
gravity = [0, 0]

[[balls]]
positions = [[640, 360]]
radius = [6, 6]

[[boxes]]
layout = "list"
positions = [[200, 200]]
fixed = true

[tools]
available = ["drag"]
"""
"""One still circle far from a fixed box and the walls: nothing it does by itself meets either."""


def test_playing_a_level_once_meets_a_box_and_a_wall_and_uses_every_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from weft.game.session import Session
    from weft.game.simulation import Simulation
    from weft.systems import bounds, box_particles

    level = tmp_path / "quiet.toml"
    level.write_text(QUIET)
    sim = Simulation.load(level)
    applied: list[dict[str, object]] = []
    called: list[str] = []
    apply = Session.apply
    monkeypatch.setattr(
        Session, "apply", lambda session, event: applied.append(event) or apply(session, event)
    )
    for module, name in ((bounds, "clamp_to_bounds"), (box_particles, "push_out_of_boxes")):
        kernel = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *args, k=kernel, n=name: called.append(n) or k(*args))
    try:
        sim.step(warmup.WARM_FRAMES)
        assert not called  # the circle meets neither by itself
        warmup.act_once(sim)
    finally:
        sim.close()
    # the point put inside the box (pushed out each substep of that frame), then outside the walls
    assert called[0] == "push_out_of_boxes" and called[-1] == "clamp_to_bounds"
    assert {event["name"] for event in applied if event["type"] == "tool"} == {"drag"}
    buttons = {(event["type"], event.get("button")) for event in applied}
    assert {("mouse_press", "left"), ("mouse_press", "right"), ("key_press", None)} <= buttons


def test_a_level_prepared_is_played_once_and_a_sheet_gets_its_drawing_kernels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    played: list[str] = []
    monkeypatch.setattr(warmup, "act_once", lambda sim: played.append(sim.level.source.name))
    monkeypatch.setattr(warmup, "call_cloth_drawing_kernels", lambda: played.append("cloth drawing"))
    monkeypatch.setattr(warmup, "READY_MARK", tmp_path / "prepared")
    warmup.prepare_physics(None, [LEVELS_DIR / "stack.toml", LEVELS_DIR / "cloth.toml"])
    assert played == ["stack.toml", "cloth.toml", "cloth drawing"]


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


def test_a_first_frame_that_compiles_a_plan_counts_its_kernels_once_a_line_at_most(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(warmup, "NOTICE_AFTER_S", 0.05)
    monkeypatch.setattr(warmup, "LINE_EVERY_S", 0.05)
    first = warmup.FirstStart(LEVELS_DIR / "stack.toml", sys.stderr)
    count = first_start.count_units("level stack.toml", 3)
    time.sleep(0.3)
    count(2)
    count(0)
    time.sleep(0.3)
    first.first_frame_done()
    count(1)  # after the first frame: no one listens
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "preparing physics, first run only: 0 of 3 kernels (stack.toml)",
        "preparing physics, first run only: 2 of 3 kernels (stack.toml)",
        lines[-1],
    ]
    assert lines[-1].startswith("physics ready in ")


def test_a_quick_first_frame_says_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    warmup.FirstStart(LEVELS_DIR / "stack.toml", sys.stderr).first_frame_done()
    time.sleep(warmup.NOTICE_AFTER_S + 0.2)  # the timer was stopped in time
    assert capsys.readouterr().err == ""


def test_the_progress_line_says_it_happens_once_and_counts_levels_and_kernels() -> None:
    said = "preparing physics, first run only: "
    assert warmup.progress_line(7, 16, "pyramid.toml") == said + "7 of 16 levels (pyramid.toml)"
    assert (
        warmup.progress_line(7, 16, "pyramid.toml", ("level pyramid.toml", 37, 81))
        == said + "7 of 16 levels (pyramid.toml), 37 of 81 kernels"
    )
    own, box_step = ("level stack.toml", 7, 23), ("step_boxes_one_thread", 5, 56)
    assert warmup.progress_line(0, 1, "stack.toml", own) == said + "7 of 23 kernels (stack.toml)"
    assert (
        warmup.progress_line(0, 1, "my.toml", box_step)
        == said + "compiling the kernels my.toml needs (the box step's 5 of 56 kernels)"
    )
    assert (
        warmup.progress_line(2, 3, "my.toml", box_step)
        == said + "2 of 3 levels (my.toml), the box step's 5 of 56 kernels"
    )
    borrowed = ("level junkyard.toml", 9, 90)  # a level of one's own with the plan of one alike
    assert warmup.progress_line(0, 1, "my.toml", borrowed) == said + "9 of 90 kernels (my.toml)"
    assert warmup.progress_line(0, 1, "stack.toml") == said + "compiling the kernels stack.toml needs"
    played = ("play stack.toml", 9, 30)  # a preparation's: its level plan and its play plan
    assert warmup.progress_line(0, 1, "stack.toml", played) == said + "9 of 30 kernels (stack.toml)"
    every = ("play cloth.toml + play balls.toml", 40, 166)  # several levels' plans as one
    assert warmup.progress_line(0, 1, "16 levels", every) == said + "40 of 166 kernels (16 levels)"
    assert warmup.progress_line(16, 16, "done") == said + "done"


def test_weft_warmup_prepares_every_shipped_level() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "weft", "warmup"], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    shipped = sorted(LEVELS_DIR.glob("*.toml"))
    # the level the picker opens on first: a player who presses Enter at once waits least (a
    # line counting the plans' kernels comes before it where some were not cached yet)
    first_level = next(line for line in lines if " levels (" in line)
    assert first_level == warmup.progress_line(0, len(shipped), DEFAULT_LEVEL.name)
    assert lines[-1] == warmup.progress_line(len(shipped), len(shipped), "done")
    assert done.stdout.startswith("physics ready in ")
    assert warmup.kernels_ready()


def test_weft_warmup_of_a_level_with_problems_says_them_before_compiling_anything(tmp_path: Path) -> None:
    level = tmp_path / "typo.toml"
    level.write_text("[[cloth]]\nname = 'sheet'\ncolz = 3\n")
    missing = tmp_path / "missing.toml"
    done = subprocess.run(
        [sys.executable, "-m", "weft", "warmup", str(missing), str(level)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    first, second = done.stderr.splitlines()  # both levels', and no "preparing physics" line before
    assert first.startswith(str(missing)) and "no such file" in first
    assert second.startswith(str(level)) and "cloth.0.colz" in second


@pytest.mark.skipif(
    not hasattr(os, "killpg") or not Path("/proc").is_dir(), reason="a process group (POSIX), read in /proc"
)
def test_a_preparation_stopped_ends_its_second_process_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a cold cache of its own: the rag doll's plan starts a second process to compile beside it
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    preparation = warmup.Preparation([LEVELS_DIR / "ragdoll.toml"])
    deadline = time.monotonic() + 60
    children: list[int] = []
    while not children and time.monotonic() < deadline and not preparation.done:
        time.sleep(0.1)
        children = _children_of(preparation._child.pid)
    assert children, "the preparation never started its second process"
    (second,) = children
    # one group, which ``stop`` ends at once: left alone, the second would finish the kernel it is on
    assert os.getpgid(second) == os.getpgid(preparation._child.pid) == preparation._child.pid
    preparation.stop()
    assert preparation.done
    deadline = time.monotonic() + 1
    while _alive(second) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(second)


def _stat(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command's name (state, parent, ...), or None when
    the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for folder in Path("/proc").glob("[0-9]*"):
        fields = _stat(folder.name)
        if fields is not None and int(fields[1]) == pid:
            found.append(int(folder.name))
    return found


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs still (a zombie, ended and not yet reaped by its new parent, does not)."""
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"
