"""A level that loaded: what ``load_level`` returns, and what building, the schedule and the window
read. Only data, so that everything that reads a level can import it without importing the loader."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from weft.game.level.problems import KeyPath
from weft.game.level.schema import Level


@dataclass
class LoadedLevel:
    """A valid level: the model, the data it came from, and where it came from."""

    source: Path
    raw: dict[str, Any]
    model: Level
    overridden: dict[KeyPath, str] = field(default_factory=dict)
    """Keys changed after reading the file, with where the change came from (for error messages)."""
    allow_import: tuple[str, ...] = ()
    """Modules ``module:attr`` systems may be imported from (``--allow-import``; never from the file)."""
    text: str | None = None
    """The file's text, for the line numbers of problems found after it loaded (None: not TOML)."""
    kernels_checked: bool = False
    """Whether the checks that run numba kernels were made (``validate``'s ``build``); if not,
    ``kernel_checks`` makes them before a simulation is built from it."""

    @property
    def directory(self) -> Path:
        """Paths inside the level are relative to this folder."""
        return self.source.parent
