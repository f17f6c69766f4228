"""The first start's plans match what the levels compile (systems/first_start.py).

A stale plan costs no correctness, only a cold start's time: the second
process would compile kernels for argument types nothing passes any more.
So each plan is checked here against numba's cache once the level it was
made from has stepped: each of its kernels must be cached for its recorded
signature. Re-record with ``python tests/first_start.py --write`` when
this fails. Each plan's two sides are also run here without their
kernels, over pipes as the two processes talk: every unit once, after its
callees, and neither side waiting for good on the other.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from weft.game import warmup
from weft.game.simulation import Simulation
from weft.game.warmup import play_once
from weft.levels import LEVELS_DIR
from weft.systems import first_start
from weft.systems.first_start import (
    PLAY,
    RECORDED_FRAMES,
    SIDES,
    SWITCH,
    Heard,
    Unit,
    compile_apart,
    compile_side,
    compile_step_apart,
    plan_like,
    plans,
    recorded,
    roots,
    signatures_in_turn,
    teller,
)
from weft.systems.kernels.box_step import step_boxes
from weft.systems.kernels.jit import one_thread

BUILDS = {"step_boxes_one_thread": "pyramid.toml", "step_boxes": "large_pyramid.toml"}
"""The level each build's plan was read off."""


def _level_of(plan: str) -> str:
    return BUILDS.get(plan) or plan.removeprefix("level ").removeprefix(PLAY)


@functools.cache
def _run_as_recorded(level: str) -> None:
    """Step ``level`` for the frames its plan was read off, then play it once as its preparation does
    (once a test process: numba's cache then holds what they compiled)."""
    sim = Simulation.load(LEVELS_DIR / level)
    try:
        sim.step(RECORDED_FRAMES)
    finally:
        sim.close()
    sim = Simulation.load(LEVELS_DIR / level)  # and prepared, as its play plan was read off
    try:
        play_once(sim)
    finally:
        sim.close()


def test_there_is_a_plan_for_each_build_and_the_long_levels() -> None:
    names = plans()
    assert set(BUILDS) <= set(names)
    assert {"level pyramid.toml", "level ragdoll.toml"} <= set(names)
    for build in BUILDS:
        units = recorded(build)
        step = next(unit for unit in units if unit.name == build)
        assert roots(units) == [step]  # the box step calls everything else of its plan
        # the solver's twin is inlined into the step's (box_solver.solve_boxes): its passes are the callees
        inlined = build.endswith("_one_thread")
        assert any(units[k].name.startswith("solve_pass" if inlined else "solve_boxes") for k in step.calls)
        assert inlined != any(unit.name.startswith("solve_boxes") for unit in units)
    for plan in names:
        units = recorded(plan)
        assert {unit.side for unit in units} == set(SIDES), plan
        for place, unit in enumerate(units):  # scheduled after its callees, which are the plan's
            assert all(k < place for k in unit.calls), (plan, unit.name)
            assert unit.seconds >= 0.0


def test_plans_recorded_together_hold_each_kernel_once_called_as_in_its_own() -> None:
    names = ["level pyramid.toml", "level ragdoll.toml"]
    together = recorded(*names)
    keys = [(unit.module, unit.name, unit.signature) for unit in together]
    assert len(set(keys)) == len(keys)
    alone = [recorded(name) for name in names]
    assert set(keys) == {(u.module, u.name, u.signature) for units in alone for u in units}
    assert len(together) < sum(map(len, alone))  # the box step's kernels are in both
    by_key = {key: place for place, key in enumerate(keys)}
    for units in alone:
        for unit in units:
            place = by_key[(unit.module, unit.name, unit.signature)]
            if together[place].plan == unit.plan:  # first met in this plan: its callees, as there
                called = {(units[k].module, units[k].name, units[k].signature) for k in unit.calls}
                assert {keys[k] for k in together[place].calls} == called
            assert all(k < place for k in together[place].needs())


def test_a_play_plan_holds_what_a_preparation_compiles_besides_its_levels_frames() -> None:
    # the tools' kernels, which a preparation's act_once compiled after the plan on one core
    level, play = recorded("level ragdoll.toml"), recorded(f"{PLAY}ragdoll.toml")
    tools = {"place_pins", "sweep_cut", "kick_boxes"}
    assert tools <= {unit.name for unit in play} and not tools & {unit.name for unit in level}
    assert play[: len(level)] == level  # its level plan first, whose places its own go on from
    assert all(k < place for place, unit in enumerate(play) for k in unit.needs())


def test_a_level_plan_holds_what_its_level_first_calls_a_while_in() -> None:
    # the rag doll's limbs reach a crate frames in: the braces and the pushes out of boxes compile
    # then, and a plan read off the first frame alone left them to compile in one process after it
    late = {"brace_boxes", "push_out_of_boxes", "push_bones_out_of_boxes"}
    assert late <= {unit.name for unit in recorded("level ragdoll.toml")}


def test_a_kernel_compiles_for_one_signature_at_a_time() -> None:
    # numba keeps a kernel's signatures in one cache index: two processes saving it at once could
    # each write over the other's entry, or name one signature's code for the other
    # the recorded plans split such kernels over the two sides (which ones, the recording decides:
    # the grid's first_at_least or bin_points), and order their signatures
    assert any(unit.after for plan in plans() for unit in recorded(plan))
    kernel = ("weft.systems.kernels.grid", "first_at_least")
    two = [
        Unit("test", side, 0.1, (), *kernel, signature)
        for side, signature in (("here", "(a)"), ("apart", "(b)"))
    ]
    assert [unit.after for unit in signatures_in_turn(two)] == [(), (0,)]
    assert _two_at_once(two)  # without: both at the start, side by side
    assert not _two_at_once(signatures_in_turn(two))


def _two_at_once(units: list[Unit]) -> bool:
    """Whether two of ``units`` were compiling at the same moment, run on their two sides."""
    done: list[int] = []
    compiling: list[int] = []
    met: list[bool] = []

    @dataclasses.dataclass(frozen=True)
    class Watched(_Job):
        def compile(self) -> None:
            compiling.append(self.place)
            time.sleep(0.05)
            met.append(len(compiling) > 1)
            compiling.remove(self.place)
            super().compile()

    _pipes_between_two_sides(
        [Watched(unit.side, unit.calls, done, place, after=unit.after) for place, unit in enumerate(units)]
    )
    assert sorted(done) == list(range(len(units)))
    return any(met)


@dataclasses.dataclass(frozen=True)
class _Job:
    """A unit's place in the schedule without its kernel: compiling it only notes the order."""

    side: str
    calls: tuple[int, ...]
    done: list[int]
    place: int
    strict: bool = True
    """Whether its callees must be done first (numba would compile those missing itself)."""
    after: tuple[int, ...] = ()
    module: str = "jobs"
    seconds: float = 0.001

    @property
    def name(self) -> str:
        return f"job {self.place}"

    def needs(self) -> tuple[int, ...]:
        return self.calls + self.after

    def compile(self) -> None:
        assert not self.strict or all(k in self.done for k in self.needs()), "compiled before its needs"
        time.sleep(self.seconds)
        self.done.append(self.place)


def _two_sides(jobs: list[_Job], here_hears: Heard, apart_hears: Heard, tell_here, tell_apart) -> None:
    apart = threading.Thread(target=compile_side, args=(jobs, "apart", apart_hears, tell_apart))
    apart.start()
    compile_side(jobs, "here", here_hears, tell_here)
    apart.join(30)
    assert not apart.is_alive()


@pytest.mark.parametrize("plan", plans())
def test_both_sides_of_each_plan_compile_everything_after_its_callees_and_never_wait_on_each_other(
    plan: str,
) -> None:
    done: list[int] = []
    units = recorded(plan)
    jobs = [_Job(unit.side, unit.calls, done, place, after=unit.after) for place, unit in enumerate(units)]
    _pipes_between_two_sides(jobs)
    assert sorted(done) == list(range(len(units)))


def _pipes_between_two_sides(jobs: list[_Job]) -> None:
    """Compile ``jobs`` on their two sides at once, each hearing the other over a pipe."""
    to_apart, to_here = os.pipe(), os.pipe()
    with (
        os.fdopen(to_apart[0]) as apart_in,
        os.fdopen(to_apart[1], "w") as here_out,
        os.fdopen(to_here[0]) as here_in,
        os.fdopen(to_here[1], "w") as apart_out,
    ):
        deadline = time.monotonic() + 60
        tell_here, tell_apart = teller(here_out), teller(apart_out)
        _two_sides(jobs, Heard(here_in, deadline), Heard(apart_in, deadline), tell_here, tell_apart)


def test_a_side_done_first_compiles_the_others_last_units_each_once() -> None:
    done: list[int] = []
    by_here: list[int] = []

    @dataclasses.dataclass(frozen=True)
    class Noted(_Job):
        def compile(self) -> None:
            if threading.current_thread() is threading.main_thread():  # ``_two_sides`` runs here so
                by_here.append(self.place)
            super().compile()

    # here: one quick unit; apart: eight slow ones, the last calling the first
    jobs = [Noted("here", (), done, 0)] + [
        Noted("apart", (1,) if place == 8 else (), done, place, seconds=0.05) for place in range(1, 9)
    ]
    _pipes_between_two_sides(jobs)
    assert sorted(done) == list(range(9))  # each once: none compiled on both sides
    taken = [place for place in by_here if place != 0]
    assert len(taken) >= 2, "the side done first idled"
    assert taken[0] in (7, 8)  # the last first (8 once 1, which it calls, is done)
    assert sorted(taken) == list(range(9 - len(taken), 9))  # the sides met between their ends


def test_a_unit_is_given_the_other_only_until_its_side_starts_it() -> None:
    units = [_Job("here", (), [], 0), _Job("here", (), [], 1), _Job("apart", (), [], 2)]
    claims = first_start._Claims(units, "here")
    assert claims.start(0) and not claims.give(0)  # started: refused
    assert claims.give(1) and not claims.start(1)  # given: never started here
    assert not claims.give(1)  # given once
    assert not claims.give(2)  # not this side's to give


def test_a_side_whose_other_left_goes_on_alone_or_stops_as_asked() -> None:
    units = recorded("step_boxes_one_thread")
    for alone in (True, False):
        done: list[int] = []
        jobs = [_Job(unit.side, unit.calls, done, place, strict=False) for place, unit in enumerate(units)]
        read, write = os.pipe()
        os.close(write)  # this process was ended before it said anything
        with os.fdopen(read) as silent:
            heard = Heard(silent, time.monotonic() + 600)
            assert heard.finished(5)
            compile_side(jobs, "apart", heard, lambda place: None, alone=alone)
        mine = [place for place, unit in enumerate(units) if unit.side == "apart"]
        assert sorted(done) == (mine if alone else [])


def test_a_side_compiles_a_later_unit_while_its_next_waits_on_the_other() -> None:
    done: list[int] = []
    # 0 is the other side's; this side's 1 calls it, its 2 calls nothing
    jobs = [_Job("apart", (), done, 0), _Job("here", (0,), done, 1, strict=False), _Job("here", (), done, 2)]
    read, write = os.pipe()
    with os.fdopen(read) as heard_in, os.fdopen(write, "w") as other_out:
        heard = Heard(heard_in, time.monotonic() + 60)
        here = threading.Thread(target=compile_side, args=(jobs, "here", heard, lambda place: None))
        here.start()
        deadline = time.monotonic() + 10
        while done != [2] and time.monotonic() < deadline:  # 2 first, while 1 waits on 0
            time.sleep(0.01)
        assert done == [2]
        teller(other_out)(0)
        here.join(10)
    assert done == [2, 1]


def test_a_unit_a_stale_plan_names_is_passed_over_and_still_told_done() -> None:
    stale = [
        Unit("stale", "here", 0.1, (), "weft.systems.kernels.distance", "needs_general", "(int64, int64)"),
        Unit("stale", "here", 0.1, (), "weft.systems.kernels.distance", "renamed_since", "(int64,)"),
        # a literal argument's type, which numba's names do not spell (a plan recorded so once)
        Unit("stale", "here", 0.1, (), "weft.systems.kernels.grid", "first_at_least", "(Literal[int](0),)"),
        Unit("stale", "here", 0.1, (), "weft.systems.kernels.grid", "first_at_least", "(int64, int64"),
    ]
    told: list[int] = []
    read, write = os.pipe()
    os.close(write)
    with os.fdopen(read) as silent:
        compile_side(stale, "here", Heard(silent, time.monotonic() + 60), told.append)
    assert told == [0, 1, 2, 3]


def test_a_side_whose_other_is_gone_or_late_compiles_without_waiting() -> None:
    read, write = os.pipe()
    os.close(write)  # the other process died before it said anything
    with os.fdopen(read) as silent:
        gone = Heard(silent, time.monotonic() + 600)
        started = time.monotonic()
        assert gone.first_ready([[0, 1], [2]]) == 0
        assert gone.finished(5)
    read, write = os.pipe()
    with os.fdopen(read) as quiet, os.fdopen(write, "w"):
        late = Heard(quiet, time.monotonic() - 1)  # the plan's time is up
        assert late.first_ready([[0]]) == 0
        assert not late.finished(0.01)
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("plan", plans())
def test_each_planned_kernel_is_what_its_level_compiles(plan: str) -> None:
    _run_as_recorded(_level_of(plan))
    stale = [f"{unit.name} {unit.signature}" for unit in recorded(plan) if not unit.cached()]
    assert stale == [], "re-record: python tests/first_start.py --write"


def test_a_signature_nothing_passes_is_not_cached() -> None:
    _run_as_recorded("pyramid.toml")
    unit = next(unit for unit in recorded("step_boxes_one_thread") if unit.name == "step_boxes_one_thread")
    assert unit.cached()
    changed = dataclasses.replace(unit, signature=unit.signature.replace("int64", "int32", 1))
    assert changed.signature != unit.signature and not changed.cached()


def test_a_cached_plan_starts_no_second_process(monkeypatch: pytest.MonkeyPatch) -> None:
    _run_as_recorded("pyramid.toml")
    started = []
    monkeypatch.setattr(first_start.subprocess, "Popen", lambda *a, **k: started.append(a))
    compile_apart.cache_clear()
    compile_step_apart(one_thread(step_boxes))
    compile_apart("level pyramid.toml")
    compile_apart("no such plan")
    compile_apart.cache_clear()
    assert started == []


def test_the_switch_and_one_core_keep_the_compile_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(first_start, "recorded", lambda plan: pytest.fail("the record was read"))
    monkeypatch.setenv(SWITCH, "0")
    compile_apart.cache_clear()
    compile_apart("step_boxes")
    monkeypatch.delenv(SWITCH)
    monkeypatch.setattr(first_start, "_cores", lambda: 1)
    compile_apart.cache_clear()
    compile_apart("step_boxes")
    compile_apart.cache_clear()


def test_run_and_warmup_ask_for_a_shipped_levels_plan_unless_it_is_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked = []
    monkeypatch.setattr(warmup, "compile_apart", asked.append)
    warmup.compile_level_apart(LEVELS_DIR / "ragdoll.toml")
    warmup.compile_level_apart(LEVELS_DIR / "ragdoll.toml", ["rigid.iterations=4"])
    warmup.compile_level_apart(LEVELS_DIR.parent / "ragdoll.toml")  # not the shipped one
    assert asked == ["level ragdoll.toml"]


def test_each_level_plan_says_the_features_of_the_level_it_was_made_from() -> None:
    for plan in plans():
        if plan.startswith("level "):
            sim = Simulation.load(LEVELS_DIR / _level_of(plan))
            try:
                features = warmup.level_features(sim)
            finally:
                sim.close()
            # the plan alike for those features is this one, or a smaller one just as alike
            alike = plan_like(features)
            assert alike is not None, f"re-record: python tests/first_start.py --write ({plan})"
            assert len(recorded(alike)) <= len(recorded(plan))


def test_a_level_of_ones_own_borrows_the_plan_of_a_shipped_level_alike(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    asked: list[str] = []
    monkeypatch.setattr(warmup, "compile_apart", asked.append)
    mine = tmp_path / "my_sheet.toml"  # the default sheet under a name of one's own, in a folder of one's own
    text = (LEVELS_DIR / "cloth.toml").read_text(encoding="utf-8")
    mine.write_text(text.replace('name = "Cloth"', 'name = "My sheet"', 1), encoding="utf-8")
    for path, overrides in ((mine, []), (LEVELS_DIR / "cloth.toml", ["world.iterations=30"])):
        sim = Simulation.load(path, overrides)
        try:
            warmup.compile_like_apart(sim, path, overrides)
        finally:
            sim.close()
    shipped = Simulation.load(LEVELS_DIR / "cloth.toml")
    try:
        warmup.compile_like_apart(shipped, LEVELS_DIR / "cloth.toml")  # its own plan ran before
        like_cloth = plan_like(warmup.level_features(shipped))
    finally:
        shipped.close()
    assert like_cloth is not None and asked == [like_cloth, like_cloth]


def test_a_level_like_no_shipped_one_borrows_no_plan(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    asked: list[str] = []
    monkeypatch.setattr(warmup, "compile_apart", asked.append)
    odd = tmp_path / "odd.toml"  # a creature among boxes: no shipped level has just those
    odd.write_text(
        (LEVELS_DIR / "creature.toml").read_text(encoding="utf-8")
        + '\n[[boxes]]\nname = "crates"\nlayout = "stack"\ncount = 3\nsize = [40, 40]\nbase = [900, 20]\n',
        encoding="utf-8",
    )
    sim = Simulation.load(odd)
    try:
        assert plan_like(warmup.level_features(sim)) is None
        warmup.compile_like_apart(sim, odd)
    finally:
        sim.close()
    assert asked == []


FRAMES_LOADING = """
import sys
from numba.core.dispatcher import Dispatcher
from weft.game.simulation import Simulation
from weft.game.warmup import load_level_kernels
from weft.levels import LEVELS_DIR

frame = 0
loads = []
first_call = Dispatcher._compile_for_args  # runs only where no signature loaded fits: a load or compile

def counted(self, *args, **kwargs):
    loads.append(frame)
    return first_call(self, *args, **kwargs)

sim = Simulation.load(LEVELS_DIR / "ragdoll.toml")
loaded = load_level_kernels(sim) if sys.argv[1] == "load" else 0
Dispatcher._compile_for_args = counted
for frame in range(int(sys.argv[2])):
    sim.step()
print(loaded, *loads)
"""


def _frames_loading(load: bool, frames: int) -> tuple[int, list[int]]:
    """In a process of its own: how many kernels ``load_level_kernels`` loaded for the rag doll
    (with ``load``), and the frames in which a kernel was loaded or compiled after it."""
    done = subprocess.run(
        [sys.executable, "-c", FRAMES_LOADING, "load" if load else "frames", str(frames)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    loaded, *frames_loading = (int(word) for word in done.stdout.split())
    return loaded, frames_loading


def test_a_level_played_loads_its_kernels_before_its_first_frame_and_none_mid_play() -> None:
    _run_as_recorded("ragdoll.toml")  # the cache warm: they load, none compiles
    frames = 120  # a limb reaches a crate at the 28th: the pushes out of boxes are first called then
    _, unloaded = _frames_loading(load=False, frames=frames)
    assert any(frame > 0 for frame in unloaded), "a kernel first called a while in: the scene tests nothing"
    loaded, loading = _frames_loading(load=True, frames=frames)
    assert loaded > 0
    # the roots only: a kernel the plan records as a callee that Python calls too (the box solver's
    # work_sizes) still loads on its first call, in the first frame
    assert all(frame == 0 for frame in loading)
    assert len(loading) < unloaded.count(0)


def test_a_level_played_loads_its_own_play_plan_or_borrows_a_level_plan(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    asked: list[tuple[str, ...]] = []
    monkeypatch.setattr(warmup, "load_cached", lambda *plans: asked.append(plans) or 0)
    mine = tmp_path / "my_sheet.toml"  # the shipped sheet in a folder of one's own
    mine.write_text((LEVELS_DIR / "cloth.toml").read_text(encoding="utf-8"), encoding="utf-8")
    for path, overrides in (
        (LEVELS_DIR / "cloth.toml", []),
        (mine, []),
        (LEVELS_DIR / "cloth.toml", ["world.iterations=6"]),
    ):
        sim = Simulation.load(path, overrides)
        try:
            warmup.load_level_kernels(sim, overrides)
            like = plan_like(warmup.level_features(sim))
        finally:
            sim.close()
    assert asked == [(f"{PLAY}cloth.toml",), (like,), (like,)]


def test_a_cache_that_cannot_be_read_loads_nothing_and_its_plan_compiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unreadable(unit: Unit) -> bool:
        raise PermissionError(f"{unit.name}: the cache folder is not ours to read")

    def refused(*args: object, **kwargs: object) -> None:
        started.append(args)
        raise OSError("no second process here: the frame compiles it all")

    monkeypatch.setattr(Unit, "cached", unreadable)
    loaded = first_start.load_cached(f"{PLAY}stack.toml")  # a plan no earlier test has loaded all of
    assert loaded == 0
    started: list[tuple[object, ...]] = []
    monkeypatch.setattr(first_start.subprocess, "Popen", refused)
    monkeypatch.setattr(first_start, "_cores", lambda: 2)
    compile_apart.cache_clear()
    compile_apart(f"{PLAY}stack.toml")  # as for a stale plan: compiled, not taken for cached
    compile_apart.cache_clear()
    assert len(started) == 1


def _second_process(plan: str, told: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "weft.systems.first_start", plan],
        env={**os.environ, SWITCH: "0"},
        input=told,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_second_process_compiles_its_side_telling_each_unit_done() -> None:
    _run_as_recorded("pyramid.toml")  # the cache warm: it only loads them
    plan = "step_boxes_one_thread"
    units = recorded(plan)
    here = [place for place, unit in enumerate(units) if unit.side == "here"]
    apart = [place for place, unit in enumerate(units) if unit.side == "apart"]
    done = _second_process(plan, "".join(f"{place}\n" for place in here))
    assert done.returncode == 0, done.stderr
    # in order, but for one that went first while the next waited to hear of this side's
    assert sorted(int(line) for line in done.stdout.split()) == apart


def test_with_numba_off_no_plan_runs() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from weft.systems.first_start import compile_apart; compile_apart('level pyramid.toml')",
        ],
        env={**os.environ, "NUMBA_DISABLE_JIT": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
