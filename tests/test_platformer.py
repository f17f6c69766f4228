"""The platformer example runs headless as a player would play it: its own processor runs every frame,
its crates' sprites ride on their bodies, and Weft's contact events reach it."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator

import esper
import numpy as np
import pytest
from support.plugins import ROOT

EXAMPLE = ROOT / "examples" / "platformer"


@pytest.fixture
def platformer() -> Iterator[object]:
    """The example's view, shown in the shared headless window; its world deleted after."""
    import arcade

    from weft.game.offscreen import shared_window

    sys.path.insert(0, str(EXAMPLE))
    previous = esper.current_world
    window = shared_window()
    try:
        import platformer as example

        view = example.Platformer()
        window.show_view(view)
        yield view
    finally:
        window.show_view(arcade.View())
        sys.path.remove(str(EXAMPLE))
        sys.modules.pop("platformer", None)
        esper.switch_world(previous)
        if "platformer" in esper.list_worlds():
            esper.delete_world("platformer")


def test_the_platformer_plays_300_frames_with_its_own_processor_sprites_and_contact_events(
    platformer,
) -> None:
    import arcade

    view = platformer
    physics = view.physics
    script = {
        0: ("press", arcade.key.RIGHT),
        90: ("press", arcade.key.SPACE),
        200: ("release", arcade.key.RIGHT),
    }
    start = physics.positions(view.player_body)[0].copy()
    for frame in range(300):
        kind, key = script.get(frame, (None, None))
        if kind == "press":
            view.on_key_press(key, 0)
        elif kind == "release":
            view.on_key_release(key, 0)
        if frame == 240:
            view.on_mouse_press(900, 500, arcade.MOUSE_BUTTON_LEFT, 0)
        view.on_update(1 / 60)
        if frame % 30 == 0:
            view.on_draw()
        for k, sprite in enumerate(view.crate_sprites):
            x, y, angle = physics.pose(view.crates, k)
            assert sprite.position == pytest.approx((x, y))
            assert sprite.angle == pytest.approx(-math.degrees(angle))
        assert esper.current_world == "platformer"
    assert view.controls.frames == 300 and physics.frame == 300  # the game's processor, every frame
    assert view.contacts > 0  # crates, coins and platforms all touched the player
    assert physics.positions(view.player_body)[0, 0] > start[0] + 300  # it walked right
    assert len(view.marbles) == 1
    assert np.isfinite(physics.positions(view.marbles[0])).all()
