"""The box solver's four lanes at once (``box_lanes``) end every step with exactly the bits the lane
loop gives: the same box scenes, run with numba's kernels (the four-wide lanes) and as plain Python
(``NUMBA_DISABLE_JIT``, where the lanes go one by one), hash the same, in every correction."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from weft.levels import LEVELS_DIR

FRAMES = 40

MIXED = """
[world.rigid]
sleeping = false

[[boxes]]
name = "shelf"
layout = "list"
size = [240, 16]
positions = [[640, 200]]
fixed = true

[[boxes]]
name = "dropped"
layout = "list"
positions = [[560, 300], [700, 330], [640, 420]]
sizes = [[40, 40], [60, 30], [20, 20]]
angles_deg = [0, 12, -30]
velocities = [[0, -300], [50, 0], [-80, -200]]
spins = [0, 90, -200]
restitution = 0.5

[[boxes]]
name = "heavy on light"
count = 2
base = [300, 0]
density = 1.0
iterations = 3

[[boxes]]
name = "heavy"
layout = "list"
positions = [[300, 110]]
density = 100.0
"""
"""Every kind of lane at once: a fixed box in several lanes, walls, restitution, spins, one-point
and two-point manifolds, per-set passes (lanes owed fewer passes than their batch) and a mass
ratio of 100 (its own stiffness)."""


def state_hash(level: Path, sets: list[str], python: bool) -> str:
    """The state hash after ``FRAMES`` frames of ``weft run level``, kernels compiled or as Python."""
    environment = {**os.environ, "NUMBA_DISABLE_JIT": "1" if python else "0"}
    metrics = level.with_suffix(".python.json" if python else ".numba.json")
    command = [
        sys.executable,
        "-m",
        "weft",
        "run",
        str(level),
        "--frames",
        str(FRAMES),
        "--metrics",
        str(metrics),
    ]
    for setting in sets:
        command += ["--set", setting]
    subprocess.run(command, env=environment, capture_output=True, check=True, stdin=subprocess.DEVNULL)
    return str(json.loads(metrics.read_text())["state_hash"])


@pytest.mark.parametrize("correction", ["soft", "baumgarte", "split", "none"])
def test_four_lanes_at_once_end_as_the_lanes_one_by_one(tmp_path: Path, correction: str) -> None:
    level = tmp_path / "mixed.toml"
    level.write_text(MIXED)
    sets = [f"world.rigid.correction={correction}", "world.rigid.substeps=2", "world.rigid.iterations=2"]
    assert state_hash(level, sets, python=False) == state_hash(level, sets, python=True)


@pytest.mark.parametrize("name", ["pyramid", "cards", "iterations"])
def test_shipped_box_levels_step_the_same_in_four_lanes_as_one_by_one(tmp_path: Path, name: str) -> None:
    level = tmp_path / f"{name}.toml"
    level.write_text((LEVELS_DIR / f"{name}.toml").read_text())
    assert state_hash(level, [], python=False) == state_hash(level, [], python=True)
