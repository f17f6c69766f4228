"""Pytest configuration: headless Arcade for every test that draws, and the ``sessions`` fixture of the
drawing tests. ``weft`` itself is imported as installed (``pip install -e ".[test]"``)."""

import os
from collections.abc import Iterator

import pytest

# Tests never need a display: Arcade must see this before it is first imported.
os.environ.setdefault("ARCADE_HEADLESS", "1")


@pytest.fixture
def sessions() -> Iterator[list]:
    """Sessions a drawing test opens with ``support.sessions.open_level``; closed after it."""
    opened: list = []
    yield opened
    for session, _ in opened:
        session.sim.close()
