"""Pytest configuration: headless Arcade for every test that draws, the repo root on sys.path, and the
``sessions`` fixture of the drawing tests."""

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# Tests never need a display: Arcade must see this before it is first imported.
os.environ.setdefault("ARCADE_HEADLESS", "1")

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture
def sessions() -> Iterator[list]:
    """Sessions a drawing test opens with ``support.sessions.open_level``; closed after it."""
    opened: list = []
    yield opened
    for session, _ in opened:
        session.sim.close()
