"""Importing ``arcade.gui`` without a display.

With ``ARCADE_HEADLESS=1``, ``import arcade.gui`` fails: ``pyglet.input`` probes
for X11 input devices. Pyglet skips that probe while building its own docs
(``sys.is_pyglet_doc_run``), and arcade only needs the controller manager's
name. This shim lives here, in test support, never in the engine.
"""

from __future__ import annotations

import os
import sys


def import_gui_headless() -> None:
    """Make ``import arcade.gui`` (and so ``weft.game.window``) work offscreen."""
    os.environ.setdefault("ARCADE_HEADLESS", "1")
    if "arcade.gui" in sys.modules:
        return
    sys.is_pyglet_doc_run = True
    try:
        import pyglet.input  # noqa: F401
    finally:
        del sys.is_pyglet_doc_run
    import arcade
    import arcade.controller

    arcade.ControllerManager = arcade.controller.ControllerManager
    import arcade.gui
