"""Fuzzing the shipped levels: no mutation of a level file ever ends in a traceback.

Each mutation (a wrong type, a missing key, a negative, huge, NaN or
infinite number, an unknown key, a misspelt body kind, broken TOML) of
every level in ``levels/`` is either valid, and then runs 60 frames
without a NaN, or rejected with one line per problem, naming the file.

Hypothesis is derandomized, so CI runs the same mutations every time.
``WEFT_FUZZ_EXAMPLES`` raises the count per level (CI: 150 to validate,
4 to run; ``WEFT_FUZZ_EXAMPLES=2000`` for a long local run).
"""

from __future__ import annotations

import copy
import math
import os
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.level import LevelError
from game.level.load import load_level, validate
from game.simulation import Simulation
from levels import LEVELS_DIR

LEVEL_FILES = sorted(LEVELS_DIR.glob("*.toml"))
EXAMPLES = int(os.environ.get("WEFT_FUZZ_EXAMPLES", "150"))
RUNS = max(4, EXAMPLES // 40)
FRAMES = 60

BAD_VALUES: list[Any] = [
    "x",
    "",
    True,
    False,
    [],
    [1, 2, 3],
    {},
    {"a": 1},
    0,
    -1,
    -1e9,
    1e9,
    10**9,
    1e308,
    -1e308,
    math.nan,
    math.inf,
    -math.inf,
    0.5,
    20000,
    400,
]
"""Values put in place of any key's value: wrong types, signs, sizes and non-numbers."""

NUMBERS: list[float] = [0.0, -0.0, 1e-300, -5.0, 3.0, 1e6, 1e12, math.nan, math.inf]
"""Numbers put in place of numbers: a mutation that stays the right type but not the right size."""

MISSPELT = {
    "cloth": "clth",
    "balls": "ball",
    "boxes": "box",
    "creature": "creatures",
    "skeleton": "skeletons",
}


def raw_level(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text())


def key_paths(data: Any, prefix: tuple = ()) -> list[tuple]:
    """Every key path in nested tables and lists, leaves and branches alike."""
    paths = []
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else []
    for key, value in items:
        path = (*prefix, key)
        paths.append(path)
        paths += key_paths(value, path)
    return paths


def value_at(data: Any, path: tuple) -> Any:
    for key in path:
        data = data[key]
    return data


@st.composite
def mutations(draw: st.DrawFn, raw: dict[str, Any]) -> dict[str, Any]:
    """One to three mutations of a level's data."""
    data = copy.deepcopy(raw)
    for _ in range(draw(st.integers(1, 3))):
        paths = key_paths(data)
        kind = draw(st.sampled_from(["replace", "number", "delete", "unknown", "kind"]))
        if not paths or kind == "unknown":
            tables = [p for p in [(), *paths] if isinstance(value_at(data, p), dict)]
            table = value_at(data, draw(st.sampled_from(tables)))
            table[draw(st.sampled_from(["colour", "iteratons", "zzz", "gravty", "mass_kg"]))] = 1
            continue
        path = draw(st.sampled_from(paths))
        parent = value_at(data, path[:-1])
        if kind == "replace":
            parent[path[-1]] = copy.deepcopy(draw(st.sampled_from(BAD_VALUES)))
        elif kind == "number":
            value = parent[path[-1]]
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            parent[path[-1]] = draw(st.sampled_from(NUMBERS)) * (1 if draw(st.booleans()) else value)
        elif kind == "delete":
            del parent[path[-1]]
        else:  # a misspelt body kind, at the top
            present = [k for k in MISSPELT if k in data]
            if present:
                name = draw(st.sampled_from(present))
                data[MISSPELT[name]] = data.pop(name)
    return data


def assert_reported(error: LevelError, source: Path) -> None:
    """A rejection: at least one problem, each a single line that names the file."""
    assert error.problems
    for problem in error.problems:
        line = str(problem)
        assert "\n" not in line, line
        assert line.startswith(source.name) or source.name in line, line
        assert "Traceback" not in line


@pytest.mark.parametrize("path", LEVEL_FILES, ids=lambda p: p.stem)
def test_mutated_levels_are_valid_or_rejected_line_by_line(path: Path) -> None:
    raw = raw_level(path)

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(mutations(raw))
    def check(mutated: dict[str, Any]) -> None:
        try:
            validate(mutated, path)
        except LevelError as error:
            assert_reported(error, path)

    check()


@pytest.mark.parametrize("path", LEVEL_FILES, ids=lambda p: p.stem)
def test_broken_toml_is_one_line_naming_where(path: Path, tmp_path: Path) -> None:
    text = path.read_text()

    @settings(max_examples=max(20, EXAMPLES // 5), derandomize=True, deadline=None)
    @given(st.integers(0, len(text) - 1), st.sampled_from(["", "=", "[", '"', "]]", "\n=", "0x", "{"]))
    def check(at: int, insert: str) -> None:
        broken = tmp_path / path.name
        broken.write_text(text[:at] + insert + text[at + 1 :])
        try:
            load_level(broken)
        except LevelError as error:
            assert_reported(error, broken)

    check()


@pytest.mark.parametrize("path", LEVEL_FILES, ids=lambda p: p.stem)
def test_valid_mutations_run_60_frames_without_a_nan(path: Path) -> None:
    raw = raw_level(path)

    @settings(
        max_examples=RUNS,
        derandomize=True,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.data())
    def check(data: st.DataObject) -> None:
        # about one mutation in six is valid: draw until one is (or give up on this example)
        for _ in range(30):
            try:
                level = validate(data.draw(mutations(raw)), path)
                break
            except LevelError:
                continue
        else:
            return
        sim = Simulation(level)
        try:
            sim.step(FRAMES)
            stores = sim.stores
            assert np.isfinite(stores.particles.pos[: stores.particles.count]).all()
            assert np.isfinite(stores.rigid.pos[: stores.rigid.count]).all()
            assert np.isfinite(stores.rigid.angle[: stores.rigid.count]).all()
            assert math.isfinite(sim.metrics()["max_stretch"])
        finally:
            sim.close()

    check()
