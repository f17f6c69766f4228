"""Pytest configuration: headless Arcade for every test that draws, and the repo root on sys.path."""

import os
import sys
from pathlib import Path

# Tests never need a display: Arcade must see this before it is first imported.
os.environ.setdefault("ARCADE_HEADLESS", "1")

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
