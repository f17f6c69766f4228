"""Fuzzing the shipped levels: no mutation of a level file ever ends in a traceback.

Each mutation (a wrong type, a missing key, a negative, huge, NaN or
infinite number, an unknown key, a misspelt body kind, a set of boxes piled
many times at one place, broken TOML) of
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
import re
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from weft.game.level import LevelError
from weft.game.level.load import load_level, validate
from weft.game.simulation import Simulation
from weft.levels import LEVELS_DIR

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

NUMBERS: list[float] = [0.0, -0.0, 1e-300, 5e-324, 2.2e-308, -5.0, 3.0, 1e6, 1e12, math.nan, math.inf]
"""Numbers put in place of numbers: a mutation that stays the right type but not the right size
(subnormals included: 5e-324 once gave NaN positions as a box density)."""

HOSTILE_VALUES: list[Any] = [
    "/dev/zero",
    "/etc/passwd",
    "../../outside.png",
    "line\nbreak",
    "tab\tand\rreturn",
    [
        [
            [
                [
                    [
                        [
                            [
                                [
                                    [
                                        [
                                            [
                                                [
                                                    [
                                                        [
                                                            [
                                                                [
                                                                    [
                                                                        [
                                                                            [
                                                                                [
                                                                                    [
                                                                                        [
                                                                                            [
                                                                                                [
                                                                                                    [
                                                                                                        [
                                                                                                            [
                                                                                                                [
                                                                                                                    [
                                                                                                                        [
                                                                                                                            [
                                                                                                                                [
                                                                                                                                    [
                                                                                                                                        [
                                                                                                                                            [
                                                                                                                                                [
                                                                                                                                                    [
                                                                                                                                                        [
                                                                                                                                                            [
                                                                                                                                                                [
                                                                                                                                                                    [
                                                                                                                                                                        [
                                                                                                                                                                            [
                                                                                                                                                                                [
                                                                                                                                                                                    [
                                                                                                                                                                                        [
                                                                                                                                                                                            [
                                                                                                                                                                                                [
                                                                                                                                                                                                    [
                                                                                                                                                                                                        [
                                                                                                                                                                                                            [
                                                                                                                                                                                                                [
                                                                                                                                                                                                                    [
                                                                                                                                                                                                                        [
                                                                                                                                                                                                                            [
                                                                                                                                                                                                                                [
                                                                                                                                                                                                                                    [
                                                                                                                                                                                                                                        [
                                                                                                                                                                                                                                            [
                                                                                                                                                                                                                                                [
                                                                                                                                                                                                                                                    [
                                                                                                                                                                                                                                                        [
                                                                                                                                                                                                                                                            [
                                                                                                                                                                                                                                                                [
                                                                                                                                                                                                                                                                    [
                                                                                                                                                                                                                                                                        [
                                                                                                                                                                                                                                                                            [
                                                                                                                                                                                                                                                                                [
                                                                                                                                                                                                                                                                                    [
                                                                                                                                                                                                                                                                                        [
                                                                                                                                                                                                                                                                                            1
                                                                                                                                                                                                                                                                                        ]
                                                                                                                                                                                                                                                                                    ]
                                                                                                                                                                                                                                                                                ]
                                                                                                                                                                                                                                                                            ]
                                                                                                                                                                                                                                                                        ]
                                                                                                                                                                                                                                                                    ]
                                                                                                                                                                                                                                                                ]
                                                                                                                                                                                                                                                            ]
                                                                                                                                                                                                                                                        ]
                                                                                                                                                                                                                                                    ]
                                                                                                                                                                                                                                                ]
                                                                                                                                                                                                                                            ]
                                                                                                                                                                                                                                        ]
                                                                                                                                                                                                                                    ]
                                                                                                                                                                                                                                ]
                                                                                                                                                                                                                            ]
                                                                                                                                                                                                                        ]
                                                                                                                                                                                                                    ]
                                                                                                                                                                                                                ]
                                                                                                                                                                                                            ]
                                                                                                                                                                                                        ]
                                                                                                                                                                                                    ]
                                                                                                                                                                                                ]
                                                                                                                                                                                            ]
                                                                                                                                                                                        ]
                                                                                                                                                                                    ]
                                                                                                                                                                                ]
                                                                                                                                                                            ]
                                                                                                                                                                        ]
                                                                                                                                                                    ]
                                                                                                                                                                ]
                                                                                                                                                            ]
                                                                                                                                                        ]
                                                                                                                                                    ]
                                                                                                                                                ]
                                                                                                                                            ]
                                                                                                                                        ]
                                                                                                                                    ]
                                                                                                                                ]
                                                                                                                            ]
                                                                                                                        ]
                                                                                                                    ]
                                                                                                                ]
                                                                                                            ]
                                                                                                        ]
                                                                                                    ]
                                                                                                ]
                                                                                            ]
                                                                                        ]
                                                                                    ]
                                                                                ]
                                                                            ]
                                                                        ]
                                                                    ]
                                                                ]
                                                            ]
                                                        ]
                                                    ]
                                                ]
                                            ]
                                        ]
                                    ]
                                ]
                            ]
                        ]
                    ]
                ]
            ]
        ]
    ],
]
"""Values a stranger's file may hold: devices and paths out of the folder (as textures), newlines
(each problem stays one line), nesting past the budget (70 deep)."""

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


PILES = [20, 64, 100]
"""Copies of a box set a pile mutation makes: 20 copies of one box are 190 overlapping pairs, 64 of one
box 2016 (just past ``BOX_OVERLAPS``), 100 of a 55-box pyramid 272250."""


def piled(data: dict[str, Any], k: int, copies: int) -> dict[str, Any]:
    """``data`` with box set ``k`` made movable and copied ``copies`` times at its own place (each copy
    inside the others): its boxes overlap in pairs as the square of the copies."""
    if not isinstance(data["boxes"][k], dict):
        return data
    table = {**copy.deepcopy(data["boxes"][k]), "fixed": False}
    copied = [{**copy.deepcopy(table), "name": f"pile{n}"} for n in range(copies)]
    return {**data, "boxes": [*data["boxes"][:k], *copied, *data["boxes"][k + 1 :]]}


@st.composite
def mutations(draw: st.DrawFn, raw: dict[str, Any]) -> dict[str, Any]:
    """One to three mutations of a level's data."""
    data = copy.deepcopy(raw)
    for _ in range(draw(st.integers(1, 3))):
        paths = key_paths(data)
        kind = draw(
            st.sampled_from(["replace", "number", "delete", "unknown", "kind", "hostile", "repeat", "pile"])
        )
        if not paths or kind == "unknown":
            tables = [p for p in [(), *paths] if isinstance(value_at(data, p), dict)]
            table = value_at(data, draw(st.sampled_from(tables)))
            table[draw(st.sampled_from(["colour", "iteratons", "zzz", "gravty", "mass_kg"]))] = 1
            continue
        path = draw(st.sampled_from(paths))
        parent = value_at(data, path[:-1])
        if kind == "replace":
            parent[path[-1]] = copy.deepcopy(draw(st.sampled_from(BAD_VALUES)))
        elif kind == "hostile":
            parent[path[-1]] = copy.deepcopy(draw(st.sampled_from(HOSTILE_VALUES)))
        elif kind == "repeat":  # a body table many times over: the budgets are totals
            bodies = [
                k
                for k in MISSPELT
                if isinstance(data.get(k), list) and data[k] and isinstance(data[k][0], dict)
            ]
            if bodies:
                name = draw(st.sampled_from(bodies))
                data[name] = [{**copy.deepcopy(data[name][0]), "name": f"copy{k}"} for k in range(100)]
        elif kind == "pile":
            if isinstance(data.get("boxes"), list) and data["boxes"]:
                k = draw(st.integers(0, len(data["boxes"]) - 1))
                data = piled(data, k, draw(st.sampled_from(PILES)))
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


MUTATED = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
"""How many mutations of each level the checks that validate them try, always the same ones."""


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

    @MUTATED
    @given(mutations(raw))
    def check(mutated: dict[str, Any]) -> None:
        try:
            validate(mutated, path)
        except LevelError as error:
            assert_reported(error, path)

    check()


BOX_LEVELS = [path for path in LEVEL_FILES if raw_level(path).get("boxes")]


@pytest.mark.parametrize("path", BOX_LEVELS, ids=lambda p: p.stem)
def test_box_sets_piled_at_one_place_are_refused_in_one_located_line(path: Path) -> None:
    raw = raw_level(path)
    for k in range(len(raw["boxes"])):
        for copies in (64, 100):
            with pytest.raises(LevelError) as caught:
                validate(piled(raw, k, copies), path)
            assert_reported(caught.value, path)
            lines = [str(problem) for problem in caught.value.problems]
            # refused for the pile's overlaps, or first for its boxes in all (a large set copied)
            assert any(
                re.search(
                    r"boxes\.\d+: expected at most \d+ (overlapping box pairs at the start|boxes in)", line
                )
                for line in lines
            ), (k, copies, lines)


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


BEYOND_JSON_SCHEMA = {
    "numbers are finite (JSON has no NaN or infinity, so JSON Schema never rejects them)": (
        "expected a finite number"
    ),
    "the start tool is one of the available ones": "expected one of the available tools",
    "bounds are 64 to 8192 px wide and tall, right of left and above bottom": (
        r"expected \[left, bottom, right, top\] at least 64 px|expected a rectangle at most 8192 px"
    ),
    "a skin's rectangle has an inside": r"expected \[left, bottom, right, top\] at least 1 px",
    "[min, max] pairs are in order": r"with min <= max|expected min_deg <= max_deg",
    "one anchor per pinned point": r"expected one \[x, y\] per point",
    "pinned points lie on the sheet": r"expected a \[column, row\] inside the",
    "a sheet has two points or more": "expected at least 2 points in all",
    "a creature starts inside the world's bounds": "expected a creature inside the world",
    "circles start inside the world's bounds": r"expected (circles|a centre) inside the world \[",
    "boxes start with their centres inside the world's bounds": "expected the boxes' centres inside",
    "a skeleton's joints start inside the world's bounds": "expected a joint inside the world",
    "a sheet and its pins' anchors lie inside the world's bounds": (
        r"expected (a top-left point|a sheet|an anchor) inside the world's bounds"
    ),
    "one angle, size, velocity and spin per box position": "expected one per position",
    'layout "list" has positions': r'expected at least one \[x, y\] for layout "list"',
    "a pyramid holds at most MAX_BOXES boxes": "expected a pyramid of at most",
    "circles fit their region": r"expected at most \d+ circles of radius|at least one circle wide and tall",
    "the level's circles fit max_circles": "expected room for the level's",
    "body, joint and bone names are unique": "expected a name no other (body|joint|bone) uses",
    "joints and bones are named by names the skeleton has": r"expected a (joint|bone)'s name",
    "bones form a tree, each between two joints at two places": (
        r"bones that form a tree|a joint other than the head|its joints at two places|two joints at two"
    ),
    "a root bone has no angle limit": "no angle limit on a root bone",
    "keyframes run forward in time, within the loop": (
        r"expected a time after|at least the last key's time|expected a loop length"
    ),
    "a skin's explicit mesh is consistent": (
        r"one entry per vertex|vertex indices below|at least one triangle|without `vertices`|"
        r"`bones` and `weights` together|one weight per bone|at most 4 bones per vertex|"
        r"weights summing to 1|a weight above 0"
    ),
    "files the level names exist": r"\(no such file\)",
    "files the level names stay in its folder and are images within the budgets": (
        r"\(it lies outside\)|not a regular file|expected an image file"
    ),
    "totals over all tables stay within the budgets": r"in the whole level, got \d+ \(counting up to",
    "nesting stays within the budget": "nested at most",
    "boxes overlap in few pairs where the level puts them": "overlapping box pairs at the start",
    "a frame's work stays within the pass and grid budgets": (
        r"expected at most \d+ (thread projections|particle passes|box passes|grid tests) a frame"
    ),
}
"""What ``validate`` checks that a JSON Schema cannot say: rules across keys, between a key and a
file, and finiteness. Every disagreement between the schema and ``validate`` must be one of these."""


def toml_schema_validator() -> Any:
    """The schema's validator, with TOML's types: 20.0 is a float, not an integer (editors that read
    TOML check it so; JSON Schema's own rule would accept it as a number with no fraction)."""
    import jsonschema

    from weft.game.level.reference import level_schema

    checker = jsonschema.Draft7Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
    )
    toml_validator = jsonschema.validators.extend(jsonschema.Draft7Validator, type_checker=checker)
    return toml_validator(level_schema())


@pytest.mark.parametrize("path", LEVEL_FILES, ids=lambda p: p.stem)
def test_the_schema_and_validate_agree_on_every_mutation_but_for_rules_json_schema_cannot_say(
    path: Path,
) -> None:
    schema = toml_schema_validator()
    raw = raw_level(path)
    rules = [re.compile(pattern) for pattern in BEYOND_JSON_SCHEMA.values()]

    @MUTATED
    @given(mutations(raw))
    def check(mutated: dict[str, Any]) -> None:
        flagged = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in schema.iter_errors(mutated)]
        try:
            validate(mutated, path)
        except LevelError as error:
            if not flagged:  # only validate refuses: each reason must be one JSON Schema cannot say
                for problem in error.problems:
                    assert any(rule.search(str(problem)) for rule in rules), f"schema accepts: {problem}"
            return
        assert not flagged, f"the schema refuses a level validate accepts: {flagged}"

    check()
