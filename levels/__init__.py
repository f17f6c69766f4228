"""The built-in levels (TOML files next to this module) and their schema."""

from __future__ import annotations

from pathlib import Path

LEVELS_DIR = Path(__file__).resolve().parent
DEFAULT_LEVEL = LEVELS_DIR / "cloth.toml"
SCHEMA_PATH = LEVELS_DIR / "level.schema.json"
