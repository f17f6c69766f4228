"""The largest valid level: every budget in ``weft.budgets`` used to its limit at once.

Particles, cloth threads, boxes, skin vertices and texture pixels all at
their budgets, in the widest world the schema allows (8192² px) with the
smallest circles (0.5 px): the level ``docs/levels.md`` measures the budgets
against. Two shapes share the particle budget: ``"cloth"`` spends it on the
sheet with the most threads (and circles fill the rest), ``"circles"`` on
``max_circles`` circles (and the sheet takes what is left). The boxes are a
pyramid, a heap of crates and a pile of crates inside each other, overlapping
in as many pairs as ``BOX_OVERLAPS`` allows.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from weft import budgets

WORLD = 8192.0
"""px: the widest and tallest world the schema allows."""

SKINS = 3
"""Skinned ragdolls: with the cloth's texture, four textures of ``TEXTURE_SIDE``² fill ``TEXTURE_PIXELS``."""

CREATURES = 4
"""Creatures of 64 points and 15 px (the smallest): beads of 0.74 px, as small as the circles."""

CIRCLE_RADIUS = 0.75
"""px: tiny circles (a wide world of them asks for the most grid cells), all of one size with the
beads, joints and cloth points, so that ``GRID_WORK`` lets the most of them be binned the most often."""


def sheet_threads(cols: int, rows: int) -> int:
    """Structural, shear and bend threads of a ``cols`` × ``rows`` sheet with shear and bend."""
    structural = (cols - 1) * rows + cols * (rows - 1)
    shear = 2 * (cols - 1) * (rows - 1)
    bend = (cols - 2) * rows + cols * (rows - 2)
    return structural + shear + bend


def widest_sheet(particles: int, threads: int) -> int:
    """The side of the widest square sheet of at most ``particles`` points and ``threads`` threads."""
    side = 2
    while (side + 1) ** 2 <= particles and sheet_threads(side + 1, side + 1) <= threads:
        side += 1
    return side


def most_piled() -> int:
    """The most boxes at one place whose overlapping pairs (every two of them) stay within
    ``BOX_OVERLAPS``: 63 boxes, 1953 pairs."""
    piled = 1
    while (piled + 1) * piled // 2 <= budgets.BOX_OVERLAPS:
        piled += 1
    return piled


def skin_grids() -> list[tuple[int, int]]:
    """Grids of the skins whose vertices fill ``SKIN_VERTICES``: the largest the schema allows first."""
    grids: list[tuple[int, int]] = []
    left = budgets.SKIN_VERTICES
    for _ in range(SKINS):
        across = min(128, math.isqrt(left) - 1)
        down = min(128, left // (across + 1) - 1)
        grids.append((across, down))
        left -= (across + 1) * (down + 1)
    return grids


def write_texture(path: Path, side: int, seed: int) -> None:
    """An opaque ``side``² PNG (every skin cell kept), in a pattern that compresses."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    tile = rng.integers(0, 256, size=(64, 64, 3), dtype=np.uint8)
    pixels = np.tile(tile, (side // 64, side // 64, 1))
    Image.fromarray(pixels).convert("RGBA").save(path, compress_level=1)


def ragdoll(k: int, grid: tuple[int, int]) -> dict[str, Any]:
    """A three-joint ragdoll wearing a textured ``grid`` skin, standing on the floor."""
    return {
        "name": f"doll{k}",
        "drive": "ragdoll",
        "joint_radius": CIRCLE_RADIUS,
        "position": [4400.0 + 900.0 * k, 5000.0],
        "joints": [
            {"name": "hip", "at": [0.0, 0.0]},
            {"name": "neck", "at": [0.0, 300.0]},
            {"name": "head", "at": [0.0, 400.0]},
        ],
        "bones": [
            {"name": "spine", "head": "hip", "tail": "neck"},
            {"name": "head", "head": "neck", "tail": "head", "min_deg": -30.0, "max_deg": 30.0},
        ],
        "skin": {"texture": f"skin{k}.png", "grid": list(grid), "margin": 60.0},
    }


def largest_level(shape: str = "cloth", iterations: int = 5, substeps: int = 2) -> dict[str, Any]:
    """The level's data (textures named, not written: see ``write_largest``), at ``iterations`` ×
    ``substeps`` relaxation passes a frame: the pass budgets then bound the particles and threads."""
    passes = iterations * substeps
    skeleton_joints = 3 * SKINS
    creature_points = 64 + 8
    # beads of 0.74 px beside circles of 0.75: the grid's spread is 1.02, its square 1.04
    particles = min(
        budgets.PARTICLES, budgets.PARTICLE_PASSES // passes, int(budgets.GRID_WORK / (1.04 * substeps))
    )
    free = particles - skeleton_joints - CREATURES * creature_points
    threads = min(budgets.CONSTRAINTS, budgets.THREAD_PASSES // passes)
    if shape == "cloth":
        side = widest_sheet(free, threads)
        circles = min(free - side * side, 50000)
    else:
        circles = min(free - 4, 50000)
        side = widest_sheet(free - circles, threads)
    cloth = {
        "name": "sheet",
        "origin": [40.0, WORLD - 40.0],
        "cols": side,
        "rows": side,
        "spacing": min(200.0, 4000.0 / side),
        "shear": True,
        "bend": True,
        "texture": "cloth.png",
        "thickness": 2.0 * CIRCLE_RADIUS,
        "pins": {"layout": "every", "every": 4},
    }
    # circles packed in rows across the right half, from the floor
    rows = math.ceil(circles / (3800 / (2 * CIRCLE_RADIUS)))
    balls = {
        "name": "dust",
        "count": circles,
        "radius": [CIRCLE_RADIUS, CIRCLE_RADIUS],
        "region": [4300.0, 20.0, 8150.0, 60.0 + 2.4 * CIRCLE_RADIUS * rows],
    }
    # the box solver runs at least one substep a particle substep
    solver_substeps = substeps * math.ceil(4 / substeps)
    rigid_iterations = max(1, budgets.BOX_PASSES // (budgets.BOXES * solver_substeps))
    box_total = min(budgets.BOXES, budgets.BOX_PASSES // (solver_substeps * rigid_iterations))
    # the crates: a pile of boxes inside each other as large as BOX_OVERLAPS allows, and the rest in a heap
    piled = most_piled()
    pyramid = 1
    while (pyramid + 1) * (pyramid + 2) // 2 <= box_total - piled:
        pyramid += 1
    rest = box_total - pyramid * (pyramid + 1) // 2
    heap = [[4400.0 + 14.0 * (k % 60), 3014.0 + 14.0 * (k // 60)] for k in range(rest - piled)]
    crates = [[4400.0, 3000.0]] * piled + heap
    boxes = [
        {"name": "pyramid", "layout": "pyramid", "count": pyramid, "size": [12.0, 12.0], "base": [2100.0, 0]},
        {"name": "crates", "layout": "list", "size": [10.0, 10.0], "positions": crates},
    ]
    creatures = [
        {"name": f"blob{k}", "points": 64, "radius": 15.0, "center": [500.0 + 400.0 * k, 3000.0]}
        for k in range(CREATURES)
    ]
    return {
        "level": {"name": f"Largest ({shape})"},
        "world": {
            "bounds": [0.0, 0.0, WORLD, WORLD],
            "max_circles": 50000,
            "iterations": iterations,
            "substeps": substeps,
            "rigid": {"iterations": rigid_iterations},
        },
        "cloth": [cloth],
        "balls": [balls],
        "creature": creatures,
        "boxes": boxes,
        "skeleton": [ragdoll(k, grid) for k, grid in enumerate(skin_grids())],
    }


def toml_value(value: Any) -> str:
    """One TOML value: inline tables and arrays, JSON's strings (TOML reads them alike)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key} = {toml_value(item)}" for key, item in value.items()) + "}"
    return "[" + ", ".join(toml_value(item) for item in value) + "]"


def toml_text(data: dict[str, Any]) -> str:
    """A level's TOML: a ``[table]`` for each table, a ``[[table]]`` for each body."""
    lines: list[str] = []
    for name, value in data.items():
        tables = [value] if isinstance(value, dict) else value
        for table in tables:
            lines.append(f"[{name}]" if isinstance(value, dict) else f"[[{name}]]")
            lines += [f"{key} = {toml_value(item)}" for key, item in table.items()]
            lines.append("")
    return "\n".join(lines)


def write_largest(folder: Path, shape: str = "cloth", iterations: int = 5, substeps: int = 2) -> Path:
    """Write the largest level (with its four textures) into ``folder``; return the level's path."""
    folder.mkdir(parents=True, exist_ok=True)
    side = budgets.TEXTURE_SIDE
    for k, name in enumerate(["cloth.png", *(f"skin{n}.png" for n in range(SKINS))]):
        if not (folder / name).exists():
            write_texture(folder / name, side, k)
    data = largest_level(shape, iterations, substeps)
    path = folder / f"largest_{shape}_{iterations}x{substeps}.toml"
    path.write_text(toml_text(data))
    return path
