"""The benchmark's contract: its JSON, its table, its errors, and a fair pymunk twin.

No test here asserts a speed: timings depend on the machine and its load,
so they are reported by ``weft bench``, never checked by tests.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyb2d3
import pymunk
import pytest

from weft.bench import balls, busy, cloth, pyramid
from weft.bench import run as bench_run
from weft.bench.measure import SceneResult
from weft.game.level.load import validate

ROOT = Path(__file__).resolve().parent.parent
CONTRACT_KEYS = {
    "scene",
    "params",
    "ms",
    "pymunk_ms",
    "ratio",
    "box2d_ms",
    "box2d_ratio",
    "draw_ms",
    "p95_ms",
    "pymunk_p95_ms",
}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m <args>`` from the project root with this interpreter."""
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_bench_json_lists_the_contract_keys_with_consistent_figures() -> None:
    done = _cli("weft", "bench", "cloth", "--json", "--frames", "5")

    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert [r["scene"] for r in results] == ["cloth"]
    (result,) = results
    assert set(result) == CONTRACT_KEYS
    assert result["draw_ms"] is None or result["draw_ms"] > 0
    assert result["box2d_ms"] is None and result["box2d_ratio"] is None  # no Box2D cloth
    assert result["params"]["threads"] == 7870
    assert result["params"]["frames"] == 5
    # the frame split: each substep ran as one kernel call, and the step did more than that
    assert result["params"]["substep_ms"] > 0 and result["params"]["rest_ms"] > 0
    # stepped as a 60 Hz game steps it, beside pymunk's frame so stepped
    assert result["params"]["paced_ms"] > 0 and result["params"]["paced_ratio"] > 0
    assert result["params"]["paced_cores"] in (1, 2)
    assert result["ms"] > 0
    assert result["pymunk_ms"] > 0
    assert result["ratio"] == pytest.approx(result["pymunk_ms"] / result["ms"])


def test_balls_json_has_a_contract_row_per_size_from_1k_to_20k() -> None:
    done = _cli("weft", "bench", "balls", "--json", "--frames", "2")

    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert [r["scene"] for r in results] == ["balls_1k", "balls_2k", "balls", "balls_20k"]
    for result in results:
        assert set(result) == CONTRACT_KEYS
        assert result["box2d_ms"] is None and result["box2d_ratio"] is None
        assert result["ms"] > 0
        assert result["pymunk_ms"] > 0
        assert result["ratio"] == pytest.approx(result["pymunk_ms"] / result["ms"])
        assert result["draw_ms"] is None or result["draw_ms"] > 0
        params = result["params"]
        assert params["width"] == 1280  # every size in a box as wide as the window
        assert (params["radius"], params["substeps"], params["iterations"]) == (5.0, 6, 2)
        # a two-frame run settles for ten frames, not the full two seconds
        assert (params["frames"], params["pymunk_frames"], params["settle_frames"]) == (2, 2, 10)
    assert [r["params"]["circles"] for r in results] == [1000, 2000, 6000, 20000]
    assert [r["params"]["height"] for r in results] == [720, 720, 720, 1760]


def test_pyramid_json_reports_every_engines_drift_and_the_asleep_cost() -> None:
    done = _cli("weft", "bench", "pyramid", "--json", "--frames", "2")

    assert done.returncode == 0, done.stderr
    (result,) = json.loads(done.stdout)
    assert result["scene"] == "pyramid"
    assert set(result) == CONTRACT_KEYS
    params = result["params"]
    assert params["boxes"] == 55
    assert params["seconds"] == 1.0  # a short run is a one-second look, not the 30 s stand
    # all three stand for that second: nothing moves by more than a px (0.8, 0.6 and 0.8 px measured)
    assert params["drift_px"] < 1.0
    assert params["pymunk_drift_px"] < 1.0
    assert params["box2d_drift_px"] < 1.0
    assert params["box2d_substeps"] == 4
    assert params["asleep_after_s"] is not None and params["asleep_ms"] > 0
    assert result["ratio"] == pytest.approx(result["pymunk_ms"] / result["ms"])
    assert result["box2d_ms"] > 0
    assert result["box2d_ratio"] == pytest.approx(result["box2d_ms"] / result["ms"])


def test_pyramid_without_pyb2d3_runs_beside_pymunk_and_says_how_to_add_box2d() -> None:
    code = (
        "import sys; sys.modules['pyb2d3'] = None; from weft.game.cli import main; "
        "sys.exit(main(['bench', 'pyramid', '--json', '--frames', '2']))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)

    assert done.returncode == 0, done.stderr
    (result,) = json.loads(done.stdout)
    assert result["pymunk_ms"] > 0
    assert result["box2d_ms"] is None and result["box2d_ratio"] is None
    assert result["params"]["box2d_drift_px"] is None
    assert 'pip install "weft-physics[bench]"' in done.stderr and "Traceback" not in done.stderr


def test_skin_json_reports_the_naive_reference_beside_it_and_that_they_agree() -> None:
    done = _cli("weft", "bench", "skin", "--json", "--frames", "2")

    assert done.returncode == 0, done.stderr
    (result,) = json.loads(done.stdout)
    params = result["params"]
    assert (params["vertices"], params["bones"]) == (10000, 20)
    assert params["naive_vs_blended_px"] < 1e-9  # the two formulas, as the skinning tests demand
    assert result["ms"] > 0 and params["naive_ms"] > 0
    assert result["pymunk_ms"] is None and result["ratio"] is None


def test_paced_frames_each_start_after_a_sleep_in_a_share_of_the_tick_of_their_own() -> None:
    from weft.bench.measure import time_paced
    from weft.components import FRAME_DT

    calls: list[tuple[str, float]] = []

    def step(name: str) -> Callable[[], None]:
        return lambda: calls.append((name, time.perf_counter()))

    began = time.perf_counter()
    ours, theirs = time_paced((step("ours"), step("theirs")), frames=3, warmup=1)

    assert [name for name, _ in calls] == ["ours", "theirs"] * 4
    share = FRAME_DT / 2  # call k starts no sooner than k + 1 shares after the call
    assert all(at >= began + (k + 1) * share for k, (_, at) in enumerate(calls))
    assert ours.median >= 0 and theirs.median >= 0


def test_unknown_scene_exits_1_naming_the_available_ones_and_a_close_match(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert bench_run.run_scenes(["clth"]) == 1

    err = capsys.readouterr().err
    assert "unknown scene 'clth'; available: cloth, balls, pyramid, large_pyramid, skin" in err
    assert "did you mean 'cloth'?" in err


def test_python_m_bench_reports_problems_like_the_game_cli() -> None:
    done = _cli("weft.bench", "pyramd", "nope")

    assert done.returncode == 1
    assert "unknown scene 'pyramd'" in done.stderr and "did you mean 'pyramid'?" in done.stderr
    assert "unknown scene 'nope'" in done.stderr
    assert done.stdout == ""


def test_running_every_scene_lists_every_row_of_a_scene(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = []

    def fake_cloth(frames: int) -> SceneResult:
        ran.append(("cloth", frames))
        return SceneResult("cloth", {"cols": 2}, 1.0, 4.0)

    def fake_balls(frames: int) -> list[SceneResult]:
        ran.append(("balls", frames))
        return [SceneResult("balls_1k", {"circles": 1000}, 0.5, 5.0), SceneResult("balls", {}, 2.0, 40.0)]

    monkeypatch.setattr(bench_run, "SCENES", {"cloth": fake_cloth, "balls": fake_balls})

    assert bench_run.run_scenes([], frames=3, as_json=True) == 0
    assert ran == [("cloth", 3), ("balls", 3)]
    assert [r["scene"] for r in json.loads(capsys.readouterr().out)] == ["cloth", "balls_1k", "balls"]


def test_table_aligns_columns_and_shows_a_dash_without_pymunk_or_box2d() -> None:
    table = bench_run.format_table(
        [
            SceneResult("pyramid", {"boxes": 55}, 0.5, 1.0, 0.25, box2d_ms=0.75),
            SceneResult("cloth", {"cols": 80}, 1.25, 3.75, 2.5),
            SceneResult("skin", {"bones": 12}, 0.5, None),
        ]
    )

    header, boxes, first, second = table.splitlines()[:4]
    assert header.endswith("ms  pymunk ms  ratio  box2d ms  box2d ratio  draw ms")
    assert boxes.split() == ["pyramid", "boxes=55", "0.500", "1.000", "2.00x", "0.750", "1.50x", "0.250"]
    assert first.split() == ["cloth", "cols=80", "1.250", "3.750", "3.00x", "-", "-", "2.500"]
    assert second.split() == ["skin", "bones=12", "0.500", "-", "-", "-", "-", "-"]
    assert len(header) == len(boxes) == len(first) == len(second)
    assert "Box2D v3 through pyb2d3 at 40 px = 1 m, 4 substeps a frame, sleeping off, one thread" in table


def test_json_record_has_null_ratios_without_pymunk_or_box2d() -> None:
    record = SceneResult("skin", {}, 0.5, None).as_json()

    assert record["pymunk_ms"] is None
    assert record["ratio"] is None
    assert record["box2d_ms"] is None
    assert record["box2d_ratio"] is None


def test_json_record_rounds_box2d_ms_and_its_ratio_follows_the_rounded_times() -> None:
    record = SceneResult("pyramid", {}, 0.123456, 0.2, box2d_ms=0.0612345).as_json()

    assert (record["ms"], record["box2d_ms"]) == (0.1235, 0.0612)
    assert record["box2d_ratio"] == 0.0612 / 0.1235


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


def test_pymunk_balls_twin_has_our_circles_where_ours_are_inside_the_same_walls() -> None:
    sim = balls.build_ours(1000)
    try:
        particles = sim.stores.particles
        ours = particles.pos[: particles.count].copy()
        radii = particles.radius[: particles.count].copy()
        settings = sim.settings
        space = balls.build_pymunk(sim.stores, settings.bounds)
    finally:
        sim.close()

    assert len(space.bodies) == len(ours) == 1000
    circles = [shape for shape in space.shapes if isinstance(shape, pymunk.Circle)]
    walls = [shape for shape in space.shapes if isinstance(shape, pymunk.Segment)]
    assert len(circles) == 1000
    assert len(walls) == 4
    assert [circle.body for circle in circles] == space.bodies
    assert np.array_equal([circle.radius for circle in circles], radii)
    assert np.array_equal([body.position for body in space.bodies], ours)
    assert {body.mass for body in space.bodies} == {1.0}  # radius 5 weighs 1, as ours
    # pymunk multiplies elasticities: circle on wall = our wall restitution
    assert {circle.elasticity * wall.elasticity for circle in circles for wall in walls} == {
        settings.restitution
    }
    assert {shape.friction for shape in space.shapes} == {settings.friction}
    left, bottom, right, top = settings.bounds
    for edge in [((left + right) / 2, bottom), ((left + right) / 2, top), (left, 360.0), (right, 360.0)]:
        touching = [wall for wall in walls if wall.point_query(edge).distance == pytest.approx(0.0)]
        assert len(touching) == 1, f"the walls' inner faces should meet at {edge}"
    assert space.iterations == settings.iterations == 2
    assert tuple(space.gravity) == settings.gravity
    assert space.damping ** (1 / 60) == pytest.approx(settings.damping)


def test_both_piles_of_1000_circles_settle_to_the_same_height_within_a_pixel() -> None:
    sim = balls.build_ours(1000)
    try:
        start = sim.positions()[:, 1].mean()
        space = balls.build_pymunk(sim.stores, sim.settings.bounds)
        sim.step(30)
        ours = sim.positions()[:, 1].mean()
    finally:
        sim.close()
    for _ in range(30):
        balls.step_pymunk(space)
    theirs = np.mean([body.position.y for body in space.bodies])

    assert ours < start - 5.0  # the lattice fell into a pile
    assert abs(ours - theirs) < 1.0


def test_twenty_thousand_circles_get_a_taller_box_of_the_same_width() -> None:
    assert balls.container(6000) == (0.0, 0.0, 1280.0, 720.0)
    left, bottom, right, top = balls.container(20000)
    assert (left, bottom, right) == (0.0, 0.0, 1280.0)
    assert top > 720.0
    validate(balls.level(20000), ROOT / "bench" / "balls.py")  # the level's own check that they fit


def test_pymunk_is_timed_over_fewer_frames_when_they_would_exceed_the_budget() -> None:
    assert balls.frames_within(20.0, 50.0, 240) == 240
    assert balls.frames_within(20.0, 500.0, 240) == 40
    assert balls.frames_within(1.0, 5000.0, 240) == balls.MIN_TIMED_FRAMES
    assert balls.frames_within(1.0, 5000.0, 2) == 2


def test_box2d_pyramid_twin_has_our_boxes_in_metres_on_a_floor_at_zero() -> None:
    centres = np.array([[620.0, 20.0], [660.0, 20.0], [640.0, 60.0]])
    halves = np.full((3, 2), 20.0)

    world, bodies = pyramid.build_box2d(centres, halves, 0.7, (0.0, -400.0))

    assert tuple(world.gravity) == (0.0, -10.0)
    assert not world.sleeping_enabled
    assert [tuple(body.position) for body in bodies] == [(15.5, 0.5), (16.5, 0.5), (16.0, 1.5)]
    assert all(body.type == pyb2d3.BodyType.DYNAMIC for body in bodies)
    for body in bodies:
        (shape,) = body.shapes
        assert shape.friction == pytest.approx(0.7)  # every shape's, so each pair mixes to 0.7
        assert body.mass == pytest.approx(1.0)  # density 1 over a 1 m square: our 40 px box
    for _ in range(30):
        world.step(pyramid.FRAME_DT, pyramid.BOX2D_SUBSTEPS)
    # the bottom two rest on the floor's top face, within Box2D's 5 mm slop
    assert [body.position[1] for body in bodies[:2]] == pytest.approx([0.5, 0.5], abs=0.005)


def test_busy_runs_each_scene_quiet_then_with_the_other_cores_loaded_then_beside_a_copy(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    loaded = []
    copy_mark = "weft-bench-copy-stand-in"

    def fake_pyramid(frames: int) -> SceneResult:
        # the spinning load is there on the second run only, the copy on the third: count both now
        spinning = subprocess.run(["pgrep", "-f", busy.SPIN], capture_output=True, text=True).stdout.split()
        copies = subprocess.run(["pgrep", "-f", copy_mark], capture_output=True, text=True).stdout.split()
        loaded.append((len(spinning), len(copies)))
        p95 = [1.0, 1.5, 1.2][len(loaded) - 1]
        theirs = [2.0, 2.2, 3.0][len(loaded) - 1]
        return SceneResult("pyramid", {"boxes": 55}, 0.5, 1.0, p95_ms=p95, pymunk_p95_ms=theirs)

    def stand_in(scene: str) -> list[str]:
        # a copy that costs nothing to start: the real one is `weft bench pyramid --frames 1e9`
        assert busy.copy_command(scene)[-4:] == ["bench", scene, "--frames", str(busy.COPY_FRAMES)]
        return [sys.executable, "-c", f"import time; time.sleep(60)  # {copy_mark}"]

    monkeypatch.setattr(bench_run, "SCENES", {"pyramid": fake_pyramid})
    monkeypatch.setattr(bench_run, "copy_command", stand_in)
    monkeypatch.setattr(busy, "COPY_SETTLE_S", 0.2)

    assert bench_run.run_scenes(["pyramid"], frames=3, as_json=True, busy=True) == 0
    printed = capsys.readouterr()
    (record,) = json.loads(printed.out)
    # the phases are told on stderr as they begin: the table waits for the end, minutes later
    assert printed.err.splitlines() == [
        f"bench: pyramid {phase} (1 of 1)" for phase in ("quiet", "busy", "beside a copy")
    ]
    cores = os.cpu_count() or 2
    assert loaded == [(0, 0), (max(1, cores - 1), 0), (0, 1)]
    assert record["load"] == max(1, cores - 1)
    assert record["p95_ratio"] == 1.5
    assert record["copy_p95_ratio"] == pytest.approx(1.2)
    assert record["copy_pymunk_p95_ratio"] == pytest.approx(1.5)  # the copy's load on the oracle
    assert record["quiet"]["p95_ms"] == 1.0 and record["busy"]["p95_ms"] == 1.5
    assert record["beside_copy"]["p95_ms"] == 1.2
    # and both loads are gone after
    assert not subprocess.run(["pgrep", "-f", busy.SPIN], capture_output=True, text=True).stdout.split()
    assert not subprocess.run(["pgrep", "-f", copy_mark], capture_output=True, text=True).stdout.split()


def test_the_busy_table_shows_both_runs_and_the_ratio() -> None:
    quiet = SceneResult("cloth", {"cores": 2}, 0.5, 1.0, p95_ms=0.6, pymunk_p95_ms=1.2)
    loaded = SceneResult("cloth", {"cores": 1}, 0.6, 1.5, p95_ms=0.75)
    copied = SceneResult("cloth", {"cores": 1}, 0.55, 1.5, p95_ms=0.66, pymunk_p95_ms=1.8)
    header, row = busy.format_busy_table([busy.BusyResult(quiet, loaded, 1, copied)]).splitlines()[:2]
    assert header.split()[:3] == ["scene", "ms", "p95"]
    figures = ["0.500", "0.600", "0.600", "0.750", "1.25", "2→1", "1.500", "2.50x", "0.660", "1.10", "1.50"]
    assert row.split() == ["cloth", *figures]
    # a scene that does not say how many threads it ran on shows a dash there
    unsaid = busy.BusyResult(dataclasses.replace(quiet, params={}), loaded, 1, copied)
    assert busy.format_busy_table([unsaid]).splitlines()[1].split()[6] == "-"


def test_a_cold_start_runs_weft_with_an_empty_cache_of_its_own() -> None:
    from weft.bench.cold import cold_start

    started = cold_start(["--version"], "version")
    assert started.ok and started.seconds > 0.0
    failed = cold_start(["run", "no-such-level.toml", "--frames", "1"], "missing")
    assert not failed.ok  # a failing child is reported, not raised


def test_bench_cold_times_a_run_of_each_shipped_level_then_warmup(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from weft.bench import cold

    asked = []
    monkeypatch.setattr(
        cold, "cold_start", lambda command, what: asked.append(command) or cold.ColdStart(what, 1.5, True)
    )
    assert bench_run.run_scenes([], cold=True) == 0
    shipped = sorted(pyramid.LEVELS_DIR.glob("*.toml"))
    assert asked[:-1] == [["run", str(path), "--frames", "600"] for path in shipped]  # ten seconds of play
    assert asked[-1] == ["warmup"]
    printed = capsys.readouterr()
    table = printed.out
    assert "run pyramid.toml" in table and "warmup (every shipped level)" in table
    told = printed.err.splitlines()  # each start as it ends: the whole run takes minutes
    assert (
        len(told) == len(asked)
        and told[-1] == f"bench: cold warmup (every shipped level): 1.5 s ({len(asked)} of {len(asked)})"
    )
