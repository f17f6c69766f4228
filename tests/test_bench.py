"""The benchmark's contract: its JSON, its table, its errors, and a fair pymunk twin.

No test here asserts a speed: timings depend on the machine and its load,
so they are reported by ``python -m game bench``, never checked by tests.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pymunk
import pytest

from bench import cloth
from bench import run as bench_run
from bench.measure import SceneResult

ROOT = Path(__file__).resolve().parent.parent


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m <args>`` from the project root with this interpreter."""
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_bench_json_lists_the_contract_keys_with_consistent_figures() -> None:
    done = _cli("game", "bench", "cloth", "--json", "--frames", "5")

    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert [r["scene"] for r in results] == ["cloth"]
    (result,) = results
    assert set(result) == {"scene", "params", "ms", "pymunk_ms", "ratio", "draw_ms"}
    assert result["draw_ms"] is None or result["draw_ms"] > 0
    assert result["params"]["threads"] == 7870
    assert result["params"]["frames"] == 5
    assert result["ms"] > 0
    assert result["pymunk_ms"] > 0
    assert result["ratio"] == pytest.approx(result["pymunk_ms"] / result["ms"])


def test_unknown_scene_exits_1_naming_the_available_ones_and_a_close_match(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert bench_run.run_scenes(["clth"]) == 1

    err = capsys.readouterr().err
    assert "unknown scene 'clth'; available: cloth" in err
    assert "did you mean 'cloth'?" in err


def test_scene_not_available_yet_exits_1_saying_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_run.run_scenes(["balls"]) == 1

    err = capsys.readouterr().err
    assert "scene 'balls' is not available yet" in err
    assert "available: cloth" in err


def test_python_m_bench_reports_problems_like_the_game_cli() -> None:
    done = _cli("bench", "pyramid", "nope")

    assert done.returncode == 1
    assert "scene 'pyramid' is not available yet" in done.stderr
    assert "unknown scene 'nope'" in done.stderr
    assert done.stdout == ""


def test_running_every_scene_skips_the_planned_ones(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = []

    def fake_cloth(frames: int) -> SceneResult:
        ran.append(frames)
        return SceneResult("cloth", {"cols": 2}, 1.0, 4.0)

    monkeypatch.setitem(bench_run.SCENES, "cloth", fake_cloth)

    assert bench_run.run_scenes([], frames=3, as_json=True) == 0
    assert ran == [3]
    assert [r["scene"] for r in json.loads(capsys.readouterr().out)] == ["cloth"]


def test_table_aligns_columns_and_shows_a_dash_without_pymunk() -> None:
    table = bench_run.format_table(
        [
            SceneResult("cloth", {"cols": 80}, 1.25, 3.75, 2.5),
            SceneResult("skin", {"bones": 12}, 0.5, None),
        ]
    )

    header, first, second = table.splitlines()[:3]
    assert first.split() == ["cloth", "cols=80", "1.250", "3.750", "3.00x", "2.500"]
    assert second.split() == ["skin", "bones=12", "0.500", "-", "-", "-"]
    assert len(header) == len(first) == len(second)


def test_json_record_has_null_ratio_without_pymunk() -> None:
    record = SceneResult("skin", {}, 0.5, None).as_json()

    assert record["pymunk_ms"] is None
    assert record["ratio"] is None


def test_pymunk_twin_has_the_same_points_threads_and_pins_as_ours() -> None:
    sim = cloth.build_ours()
    try:
        stores = sim.stores
        space = cloth.build_pymunk(stores)
    finally:
        sim.close()

    joints = space.constraints
    assert len(joints) == stores.distances.count == 7870
    assert all(isinstance(joint, pymunk.SlideJoint) and joint.min == 0.0 for joint in joints)
    assert {joint.max for joint in joints} == {cloth.SPACING}
    assert len(space.bodies) == stores.particles.count == 4000
    static = [body for body in space.bodies if body.body_type == pymunk.Body.STATIC]
    assert len(static) == stores.pins.count == 21
    assert space.iterations == 20
    assert space.damping ** (1 / 60) == pytest.approx(0.99)
