"""Behaviour pinned, as Box2D's determinism test pins its scene: every shipped level (and the cloth
level under a script of drags, a cut and a ``set``) run for ``FRAMES`` frames gives a state hash and a
settle frame stored in ``tests/golden/levels.json``. A change of behaviour changes them; an intended
one is pinned again, deliberately, with ``python tests/pin.py`` (see there).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.levels import DEFAULT_LEVEL, LEVELS_DIR

FRAMES = 600
"""Ten seconds: long enough for the stacks, the pyramids and the creatures to settle (the 5050-box
pyramid sleeps at frame 505), short enough that every level runs in about 15 s here."""

PINNED = Path(__file__).parent.parent / "golden" / "levels.json"

SCRIPTED = "cloth.toml + script"
"""The run of the default level under ``SCRIPT``: the tools' part of the behaviour."""

SCRIPT: list[dict[str, Any]] = [
    {"frame": 5, "type": "key_press", "key": "W"},
    {"frame": 10, "type": "mouse_press", "x": 640.0, "y": 300.0, "button": "left"},
    *(
        {
            "frame": 10 + k,
            "type": "mouse_drag",
            "x": 640.0 + 9 * k,
            "y": 300.0 - 14 * k,
            "dx": 9.0,
            "dy": -14.0,
            "buttons": ["left"],
        }
        for k in range(1, 30)
    ),
    {"frame": 40, "type": "mouse_release", "x": 901.0, "y": -106.0, "button": "left"},
    {"frame": 50, "type": "mouse_press", "x": 200.0, "y": 500.0, "button": "right"},
    *(
        {
            "frame": 50 + k,
            "type": "mouse_drag",
            "x": 200.0 + 40 * k,
            "y": 500.0,
            "dx": 40.0,
            "dy": 0.0,
            "buttons": ["right"],
        }
        for k in range(1, 20)
    ),
    {"frame": 75, "type": "set", "key": "world.iterations", "value": 8},
    {"frame": 80, "type": "tool", "name": "cut"},
]
"""Wind on, a fast drag off screen, a cut across the sheet, fewer iterations, then the cut tool."""

SCRIPT_FRAMES = 150


def level_paths() -> dict[str, Path]:
    """Every shipped level by its name in the pinned file: ``cloth.toml``, ``tiled/example.tmj``..."""
    paths = [*sorted(LEVELS_DIR.glob("*.toml")), *sorted((LEVELS_DIR / "tiled").glob("*.tmj"))]
    return {str(path.relative_to(LEVELS_DIR)): path for path in paths}


def run_names() -> list[str]:
    """The name of every pinned run: each shipped level, then the scripted one."""
    return [*level_paths(), SCRIPTED]


def measure(name: str) -> dict[str, Any]:
    """Run ``name`` and return what is pinned: ``frames``, ``state_hash``, ``settled_frame`` and the
    rest of its metrics (all but the timings, which are the machine's, not the behaviour's)."""
    if name == SCRIPTED:
        session = Session(Simulation.load(DEFAULT_LEVEL))
        session.run(SCRIPT_FRAMES, SCRIPT)
        sim = session.sim
    else:
        sim = Simulation.load(level_paths()[name])
        sim.step(FRAMES)
    try:
        metrics = sim.metrics()
    finally:
        sim.close()
    metrics.pop("step_ms", None)
    return metrics


def pinned() -> dict[str, dict[str, Any]]:
    """The stored values, by run name."""
    return json.loads(PINNED.read_text(encoding="utf-8"))


def differences(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    """``key: old -> new`` for every metric that changed (nested tables by dotted key)."""
    lines = []
    for key in sorted({*old, *new}):
        before, after = old.get(key), new.get(key)
        if isinstance(before, dict) and isinstance(after, dict):
            lines += differences(before, after, f"{prefix}{key}.")
        elif before != after:
            lines.append(f"{prefix}{key}: {before!r} -> {after!r}")
    return lines


def write(values: dict[str, dict[str, Any]]) -> None:
    """Store ``values`` (merged over what is stored) as the pinned runs."""
    stored = pinned() if PINNED.exists() else {}
    stored.update(values)
    ordered = {name: stored[name] for name in run_names() if name in stored}
    PINNED.parent.mkdir(parents=True, exist_ok=True)
    PINNED.write_text(json.dumps(ordered, indent=2) + "\n", encoding="utf-8")
