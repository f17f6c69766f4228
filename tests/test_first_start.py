"""The first start's record of box kernels matches what the box step compiles (systems/first_start.py).

A stale record costs no correctness, only a cold start's time: the second
process would compile kernels for argument types the step no longer
passes. So the record is checked here against numba's cache once the
levels it was made from have stepped: each recorded kernel must be cached
for its recorded signature. Re-record with ``python tests/first_start.py
--write`` when this fails.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import pytest

from weft.game.simulation import Simulation
from weft.levels import LEVELS_DIR
from weft.systems import first_start
from weft.systems.first_start import SWITCH, compile_step_apart, recorded
from weft.systems.kernels.box_step import step_boxes
from weft.systems.kernels.jit import one_thread

BUILDS = {"step_boxes_one_thread": "pyramid.toml", "step_boxes": "large_pyramid.toml"}


def _step_once(level: str) -> None:
    sim = Simulation.load(LEVELS_DIR / level)
    try:
        sim.step(1)
    finally:
        sim.close()


@pytest.mark.parametrize("build", sorted(BUILDS))
def test_each_recorded_kernel_is_what_the_step_compiles(build: str) -> None:
    units = recorded(build)
    assert [unit.role for unit in units[:2]] == ["step", "apart"]
    assert {unit.role for unit in units[2:]} == {"here"}
    assert units[1].name.startswith("solve_boxes")
    _step_once(BUILDS[build])
    stale = [f"{unit.name} {unit.signature}" for unit in units if not unit.cached()]
    assert stale == [], "re-record: python tests/first_start.py --write"


def test_a_cached_step_starts_no_second_process(monkeypatch: pytest.MonkeyPatch) -> None:
    _step_once("pyramid.toml")  # the one-thread step cached by now
    started = []
    monkeypatch.setattr(first_start.subprocess, "Popen", lambda *a, **k: started.append(a))
    compile_step_apart.cache_clear()
    compile_step_apart(one_thread(step_boxes))
    assert started == []


def test_the_switch_and_one_core_keep_the_compile_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(first_start, "recorded", lambda build: pytest.fail("the record was read"))
    monkeypatch.setenv(SWITCH, "0")
    compile_step_apart.cache_clear()
    compile_step_apart(step_boxes)
    monkeypatch.delenv(SWITCH)
    monkeypatch.setattr(first_start, "_cores", lambda: 1)
    compile_step_apart.cache_clear()
    compile_step_apart(step_boxes)
    compile_step_apart.cache_clear()


def test_the_second_process_compiles_its_part_and_exits_cleanly() -> None:
    _step_once("pyramid.toml")  # the cache warm: it only loads the solver
    environment = {**os.environ, SWITCH: "0"}
    done = subprocess.run(
        [sys.executable, "-m", "weft.systems.first_start", "step_boxes_one_thread"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_a_signature_the_step_does_not_pass_is_not_cached() -> None:
    _step_once("pyramid.toml")
    unit = recorded("step_boxes_one_thread")[0]
    assert unit.cached()
    changed = dataclasses.replace(unit, signature=unit.signature.replace("int64", "int32", 1))
    assert changed.signature != unit.signature and not changed.cached()
