"""Plugins for tests without pip or network: the gravity wells example, and fake installed distributions."""

from __future__ import annotations

import textwrap
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "gravity_wells"
"""The example plugin's folder: put it on ``sys.path`` to import ``gravity_wells``."""


def example_entry_points() -> dict[str, str]:
    """The ``weft.systems`` entry points the example's pyproject.toml declares."""
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    return project["entry-points"]["weft.systems"]


def fake_install(folder: Path, distribution: str, entry_points: dict[str, str]) -> Path:
    """Write the metadata pip would write for ``distribution`` into ``folder``; return ``folder``.

    ``importlib.metadata`` finds a ``*.dist-info`` folder on any ``sys.path`` entry, so putting
    ``folder`` on the path "installs" the entry points (the code must be importable too).
    """
    info = folder / f"{distribution.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1.0\n")
    lines = [f"{name} = {value}" for name, value in entry_points.items()]
    (info / "entry_points.txt").write_text("[weft.systems]\n" + "\n".join(lines) + "\n")
    return folder


def write_module(folder: Path, name: str, source: str) -> Path:
    """Write ``folder/name.py`` (dedented) and return its path."""
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    return path
