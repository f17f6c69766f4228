"""Where each entry of a map's level data came from, so validation problems name the map object."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from weft.game.level.problems import KeyPath, Problem


@dataclass
class Origin:
    """Where an entry of the level data came from in the map, for error messages."""

    where: str
    """``object 12 (box "crate")``, ``map size``, or ``map property`` (then ``by_key``)."""
    keys: dict[KeyPath, tuple[str, str]] = field(default_factory=dict)
    """Level keys (below the entry) the map names otherwise: key -> (name in the map, note)."""
    by_key: bool = False
    """Name the problem by its whole level key (``map property world.gravity.1``)."""


@dataclass
class TiledLevel:
    """A map turned into level data, with what was wrong on the way and where each entry came from."""

    raw: dict[str, Any]
    label: str
    problems: list[Problem] = field(default_factory=list)
    origins: dict[KeyPath, Origin] = field(default_factory=dict)

    def locate(self, problems: list[Problem]) -> list[Problem]:
        """The validation ``problems`` of ``raw``, each told against the map object it came from.

        A problem from a ``--set`` (it has a note) keeps its level key path.
        """
        return [self._locate(problem) for problem in problems]

    def _locate(self, problem: Problem) -> Problem:
        if problem.note:
            return problem
        for end in range(len(problem.path), 0, -1):
            origin = self.origins.get(problem.path[:end])
            if origin is None:
                continue
            if origin.by_key:
                return Problem(f"{problem.file}: {origin.where} {dotted(problem.path)}", (), problem.message)
            rest = problem.path[end:]
            note = ""
            for cut in range(len(rest), -1, -1):
                if rest[:cut] in origin.keys:
                    name, note = origin.keys[rest[:cut]]
                    rest = ((name,) if name else ()) + rest[cut:]
                    break
            return Problem(f"{problem.file}: {origin.where}", rest, problem.message, note=note)
        return problem


def dotted(path: KeyPath) -> str:
    return ".".join(str(part) for part in path)
