"""Sessions opened by drawing tests, each with an offscreen picture maker; closed by the ``sessions``
fixture (``conftest.py``) after the test."""

from __future__ import annotations

from pathlib import Path

from support.worlds import simulate
from weft.game.offscreen import Offscreen
from weft.game.session import Session
from weft.game.simulation import Simulation

Opened = list[tuple[Session, Offscreen]]


def open_level(opened: Opened, source: str | Path) -> tuple[Session, Offscreen]:
    """A session of a level (its text, or a path to its file) at frame 0, and an ``Offscreen`` for it."""
    sim = Simulation.load(source) if isinstance(source, Path) else simulate(source)
    session = Session(sim)
    pictures = Offscreen(session)
    opened.append((session, pictures))
    return session, pictures
