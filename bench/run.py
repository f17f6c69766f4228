"""The scene registry and ``weft bench``: run scenes, print a table or JSON.

A scene is a function of the number of measured frames that returns one
``SceneResult``, or a list of them when it measures the same scene at
several sizes (``balls`` prints its 1k, 2k, 6k and 20k rows).
"""

from __future__ import annotations

import difflib
import json
import sys
from collections.abc import Callable
from typing import Any

from weft.bench import balls, cloth, pyramid, skin
from weft.bench.busy import copy_command, format_busy_table, measure_busy
from weft.bench.cold import format_cold_table, measure_cold
from weft.bench.measure import SceneResult, progress
from weft.bench.table import align

USER_ERROR = 1

Scene = Callable[[int], SceneResult | list[SceneResult]]
"""A scene: measured frames -> its result, or its results at several sizes."""

SCENES: dict[str, Scene] = {
    "cloth": cloth.run,
    "balls": balls.run,
    "pyramid": pyramid.run_pyramid,
    "large_pyramid": pyramid.run_large_pyramid,
    "skin": skin.run,
}
"""Runnable scenes: name -> function of the number of measured frames."""


def run_scenes(
    names: list[str], frames: int = 240, as_json: bool = False, busy: bool = False, cold: bool = False
) -> int:
    """Run the named scenes (every runnable one when ``names`` is empty) and print the figures; with
    ``busy``, each quiet, then with the other cores busy, then beside a copy of itself
    (``bench.busy``); with ``cold``, the
    first-start times instead (``bench.cold``: a cold ``run`` of each shipped level, then ``warmup``).

    Returns the exit code: 0, or 1 (with one line per problem on stderr and
    nothing run) when a name is unknown or ``frames`` < 1.
    """
    problems = _problems(names)
    if frames < 1:
        problems.append(f"expected at least 1 measured frame, got {frames}")
    if problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        return USER_ERROR
    if cold:
        starts = measure_cold()
        print(
            json.dumps([start.as_json() for start in starts], indent=2)
            if as_json
            else format_cold_table(starts)
        )
        return 0
    chosen = list(dict.fromkeys(names)) if names else list(SCENES)
    if busy:
        pairs = []
        for number, name in enumerate(chosen, 1):
            pairs += measure_busy(
                lambda name=name: _results(SCENES[name](frames)),
                copy_command(name),
                say=lambda phase, name=name, number=number: progress(f"{name} {phase}", number, len(chosen)),
            )
        print(json.dumps([p.as_json() for p in pairs], indent=2) if as_json else format_busy_table(pairs))
        return 0
    results = []
    for number, name in enumerate(chosen, 1):
        progress(name, number, len(chosen))
        results += _results(SCENES[name](frames))
    if as_json:
        print(json.dumps([result.as_json() for result in results], indent=2))
    else:
        print(format_table(results))
    return 0


def _results(measured: SceneResult | list[SceneResult]) -> list[SceneResult]:
    """A scene's result(s) as a list."""
    return measured if isinstance(measured, list) else [measured]


def _problems(names: list[str]) -> list[str]:
    """One sentence per name that cannot run."""
    available = ", ".join(SCENES)
    problems = []
    for name in dict.fromkeys(names):
        if name in SCENES:
            continue
        close = difflib.get_close_matches(name, list(SCENES), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        problems.append(f"unknown scene {name!r}; available: {available}{hint}")
    return problems


def format_table(results: list[SceneResult]) -> str:
    """An aligned text table: scene, params, our ms, pymunk ms, ratio (pymunk ms / ours),
    Box2D ms, box2d ratio (Box2D ms / ours), draw ms."""
    header = ["scene", "params", "ms", "pymunk ms", "ratio", "box2d ms", "box2d ratio", "draw ms"]
    rows = [
        [
            result.scene,
            _params_text(result.params),
            f"{result.ms:.3f}",
            "-" if result.pymunk_ms is None else f"{result.pymunk_ms:.3f}",
            "-" if result.ratio is None else f"{result.ratio:.2f}x",
            "-" if result.box2d_ms is None else f"{result.box2d_ms:.3f}",
            "-" if result.box2d_ratio is None else f"{result.box2d_ratio:.2f}x",
            "-" if result.draw_ms is None else f"{result.draw_ms:.3f}",
        ]
        for result in results
    ]
    lines = align(header, rows, text_columns=2)
    note = (
        "ms: median physics time per 1/60 s frame; ratio > 1: faster than pymunk; "
        "draw ms: CPU time to issue a frame's drawing (on software GL it includes the rasterising)"
    )
    box2d_note = (
        "box2d (box pyramids): Box2D v3 through pyb2d3 at 40 px = 1 m, 4 substeps a frame, "
        "sleeping off, one thread; box2d ratio > 1: faster than Box2D"
    )
    return "\n".join([*lines, "", note, box2d_note])


def _params_text(params: dict[str, Any]) -> str:
    """``{"cols": 80, "pymunk": "..."}`` -> ``cols=80``: the numbers only, the prose stays in JSON."""
    return " ".join(f"{key}={value}" for key, value in params.items() if not isinstance(value, str))
