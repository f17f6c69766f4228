"""The window, driven headless: input becomes session events, physics runs at 60 Hz, it draws."""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from support.gui import import_gui_headless

import_gui_headless()

import arcade  # noqa: E402
from arcade.gui import UILabel  # noqa: E402

from weft.game.clock import MAX_CATCH_UP_FRAMES  # noqa: E402
from weft.game.hud import HELP_KEY_COLUMN, HELP_TEXT, HINT_BAND  # noqa: E402
from weft.game.offscreen import shared_window  # noqa: E402
from weft.game.panel import PANEL_MARGIN, PANEL_WIDTH  # noqa: E402
from weft.game.render import view_bounds  # noqa: E402
from weft.game.session import Session  # noqa: E402
from weft.game.simulation import Simulation  # noqa: E402
from weft.game.window import KEY_NAMES, PlayView, pressed_buttons  # noqa: E402
from weft.levels import DEFAULT_LEVEL, LEVELS_DIR  # noqa: E402


@contextlib.contextmanager
def shown(path: Path) -> Iterator[PlayView]:
    """The play view of the level at ``path``, shown in the shared window (and closed after)."""
    window = shared_window()
    session = Session(Simulation.load(path))
    play = PlayView(session)
    window.show_view(play)
    try:
        yield play
    finally:
        window.show_view(arcade.View())  # disables the panel's UI manager
        session.sim.close()


@pytest.fixture
def view():
    with shown(DEFAULT_LEVEL) as play:
        yield play


def test_keys_and_buttons_are_named_as_scripts_name_them() -> None:
    assert KEY_NAMES[arcade.key.SPACE] == "SPACE"
    assert KEY_NAMES[arcade.key.ENTER] == "ENTER"
    assert KEY_NAMES[arcade.key.R] == "R"
    assert KEY_NAMES[arcade.key.KEY_1] == "KEY_1"
    assert pressed_buttons(arcade.MOUSE_BUTTON_LEFT | arcade.MOUSE_BUTTON_RIGHT) == ["left", "right"]


def test_mouse_input_is_applied_at_the_next_physics_frame_and_recorded(view: PlayView) -> None:
    view.on_draw()  # fits the camera, as the first drawn frame does
    corner = view.session.sim.positions("sheet")[-1]
    x, y = (round(float(c)) for c in view.renderer.to_window([corner])[0])  # window px of the corner
    view.on_mouse_press(x, y, arcade.MOUSE_BUTTON_LEFT, 0)
    assert view.session.log == []  # queued, not applied between frames
    view.on_update(1 / 60)
    assert view.session.log[0]["type"] == "mouse_press"
    assert view.session.log[0]["frame"] == 0
    # 30 window px in a frame, 38 world px beside the panel: slower than a grab leads a point
    # (Grab.speed, 50 px a frame)
    view.on_mouse_drag(x + 18, y - 24, 18, -24, arcade.MOUSE_BUTTON_LEFT, 0)
    view.on_update(1 / 60)
    target = view.renderer.to_world(x + 18, y - 24)
    np.testing.assert_allclose(view.session.sim.positions("sheet")[-1], target)
    # the move is recorded in world px, as the position is (the view is scaled to fit the floor in)
    drag = view.session.log[1]
    np.testing.assert_allclose((drag["dx"], drag["dy"]), np.subtract(target, view.renderer.to_world(x, y)))


def test_a_long_stall_runs_only_a_few_frames_of_catch_up(view: PlayView) -> None:
    view.on_update(2.0)
    assert view.session.sim.frame == MAX_CATCH_UP_FRAMES


def test_space_pauses_and_s_steps_one_frame(view: PlayView) -> None:
    view.on_key_press(arcade.key.SPACE, 0)
    view.on_update(1 / 60)
    paused_at = view.session.sim.frame
    for _ in range(5):
        view.on_update(1 / 60)
    assert view.session.sim.frame == paused_at
    view.on_key_press(arcade.key.S, 0)
    view.on_update(1 / 60)
    assert view.session.sim.frame == paused_at + 1


def test_panel_changes_become_recorded_set_events(view: PlayView) -> None:
    from arcade.gui import UIOnChangeEvent

    label, _control, slider = next(
        entry for entry in view.panel._labels if entry[1].label.startswith("Stiffness")
    )
    slider.on_change(UIOnChangeEvent(slider, slider.value, 35.0))
    view.on_update(1 / 60)
    assert view.session.sim.settings.iterations == 35
    assert {"frame": 0, "type": "set", "key": "world.iterations", "value": 35} in view.session.log
    assert "35" in label.text


def test_a_drag_near_the_levels_own_value_lands_on_it(view: PlayView) -> None:
    # before: gravity's 980 px/s², once moved, was found again only by luck of the pixel
    from arcade.gui import UIOnChangeEvent

    from weft.game.panel import SNAP

    label, _control, slider = next(entry for entry in view.panel._labels if entry[1].label == "Gravity")
    start, length = slider.value, slider.max_value - slider.min_value
    slider.on_change(UIOnChangeEvent(slider, start, start + 3 * SNAP * length))  # away: taken as it is
    slider.on_change(UIOnChangeEvent(slider, start, start + 0.5 * SNAP * length))  # near: on the start
    assert slider.value == start and f"{start:.0f}" in label.text
    view.on_update(1 / 60)
    sets = [event["value"] for event in view.session.log if event["type"] == "set"]
    assert sets == [[0.0, pytest.approx(-start - 3 * SNAP * length, abs=0.5)], [0.0, -start]]
    assert view.session.sim.settings.gravity[1] == -start


def test_the_window_draws_the_sheet_the_hud_and_the_panel(view: PlayView) -> None:
    view.session.queue({"type": "key_press", "key": "H"})
    for _ in range(10):
        view.on_update(1 / 60)
    view.on_draw()
    image = np.asarray(arcade.get_image(0, 0, 1280, 720).convert("RGB")).astype(int)
    background = np.array([0x1B, 0x1F, 0x2A])
    not_background = np.abs(image - background).sum(axis=2) > 30
    assert not_background[40:660, 200:1080].mean() > 0.5  # the sheet (and the help box over it)
    assert not_background[5:25, 10:200].any()  # HUD text, top left
    assert not_background[20:200, 1030:1270].mean() > 0.3  # the panel, top right


def test_with_the_panel_shown_the_world_is_fitted_beside_it_and_whole_without_it(view: PlayView) -> None:
    # the junkyard's shelf lay under the panel: nothing of the level may be drawn where it sits
    width, height = view.window.get_framebuffer_size()
    panel_left = width - (PANEL_WIDTH + PANEL_MARGIN) * view.window.get_pixel_ratio()
    corners = np.array(view_bounds(view.session)).reshape(2, 2)
    for shown in (True, False):
        view.session.show_panel = shown
        view.on_draw()
        (left, bottom), (right, top) = view.renderer.to_window(corners)
        assert left >= -0.5 and bottom >= -0.5 and top <= height + 0.5
        if shown:
            assert right <= panel_left - PANEL_MARGIN + 0.5
        else:
            assert right > panel_left  # the whole framebuffer again: the panel's column is the world's
        # a window px over the world maps back to the world px drawn there
        x, y = view.renderer.to_window([[corners.mean(axis=0)[0], corners.mean(axis=0)[1]]])[0]
        assert view.renderer.to_world(x, y) == pytest.approx(tuple(corners.mean(axis=0)))


@pytest.mark.parametrize("level", ["large_pyramid.toml", "cloth.toml", "balls.toml"])
def test_the_hint_line_lies_over_the_floor_not_over_what_rests_on_it(level: str) -> None:
    # zoomed out to show 5050 boxes, the large pyramid's floor was 7 px high: the hint covered the
    # lowest three rows of its left half
    with shown(LEVELS_DIR / level) as play:
        play.on_draw()
        left, bottom, right, top = play.session.sim.settings.bounds
        (_, ground), (_, roof) = play.renderer.to_window([[left, bottom], [right, top]])
        assert ground >= HINT_BAND * play.window.get_pixel_ratio() - 0.5
        assert roof <= play.window.get_framebuffer_size()[1] + 0.5  # still whole
        # the middle of the bounds maps back to itself
        x, y = play.renderer.to_window([[(left + right) / 2, (bottom + top) / 2]])[0]
        assert play.renderer.to_world(x, y) == pytest.approx(((left + right) / 2, (bottom + top) / 2))


@pytest.mark.parametrize(
    "level", ["cloth.toml", "balls.toml", "hammock.toml", "silo.toml", "flag.toml", "large_pyramid.toml"]
)
def test_every_panel_control_sets_what_it_then_shows_at_both_ends(level: str) -> None:
    from weft.game.panel import BOX_CONTROLS, CLOTH_CONTROLS, CONTROLS, Slider
    from weft.levels import LEVELS_DIR

    session = Session(Simulation.load(LEVELS_DIR / level))
    model = session.sim.level.model
    for name in model.panel.show:
        if (name in CLOTH_CONTROLS and not model.cloth) or (name in BOX_CONTROLS and not model.boxes):
            continue  # the panel leaves these out
        control = CONTROLS[name]
        if isinstance(control, Slider):
            values = [control.low_for(session), control.high_for(session)]
        else:
            values = list(control.options)
        for value in values:
            if isinstance(control, Slider) and control.event is not None:
                session.apply(control.event(value))
            for key, setting in control.write(session, value):
                session.sim.set(key, setting)  # raises LevelError if the panel wrote something invalid
            shown = control.read(session)
            if isinstance(control, Slider):  # written rounded to whole units at worst
                assert shown == pytest.approx(value, abs=0.5), f"{name} set to {value} shows {shown}"
            else:
                assert shown == value, f"{name} set to {value!r} shows {shown!r}"
    session.sim.step(2)
    session.sim.close()


@pytest.mark.parametrize("level", sorted(path.name for path in LEVELS_DIR.glob("*.toml")))
def test_no_label_widens_the_panel_at_either_end_of_its_slider(level: str) -> None:
    # "Correction percent: 20% of the overlap" made the iterations level's panel 23 px wider than the
    # column the world is fitted beside: the panel lay over the floor's end
    from weft.game.panel import Slider

    with shown(LEVELS_DIR / level) as play:
        session = play.session
        for _, control, _ in play.panel._labels:
            assert isinstance(control, Slider)
            for value in (control.low_for(session), control.high_for(session)):
                for key, setting in control.write(session, value):  # as the slider does
                    session.queue({"type": "set", "key": key, "value": setting})
                session.advance()
                play.on_draw()  # the labels follow the level's values, and the panel is laid out
                width = play.panel.widget.rect.width
                assert width <= PANEL_WIDTH + 0.5, f"{level}: {control.label} at {value}: {width} px"


def test_a_control_the_budgets_leave_one_value_is_a_line_that_says_so_not_a_slider() -> None:
    # before: the large pyramid's "Box iterations" went to 20, and each value past 1 was clamped back
    # to 1 with a notice, the slider jumping back under the player's hand
    with shown(LEVELS_DIR / "large_pyramid.toml") as play:
        sliders = [control.label for _, control, _ in play.panel._labels]
        assert "Box iterations" not in sliders and "Box substeps" in sliders
        lines = [child.text for child in play.panel.box.children if isinstance(child, UILabel)]
        assert "Box iterations: 1 per substep, the most this level's budgets allow" in lines
        play.on_draw()
        assert play.panel.widget.rect.width <= PANEL_WIDTH + 0.5  # the line wraps, it does not widen


def test_the_hud_counts_the_threads_a_cut_severs_not_the_hidden_ones_with_them() -> None:
    from weft.levels import LEVELS_DIR

    window = shared_window()
    session = Session(Simulation.load(LEVELS_DIR / "flag.toml"))  # shear threads lean on the sheet's
    play = PlayView(session)
    window.show_view(play)
    try:
        x = 260.0 + 20.5 * 13  # down between columns 20 and 21 of the flag, top to bottom
        session.queue({"type": "mouse_press", "x": x, "y": 640.0, "button": "right"})
        session.queue(
            {"type": "mouse_drag", "x": x, "y": 200.0, "dx": 0.0, "dy": -440.0, "buttons": ["right"]}
        )
        session.advance()
        play.on_draw()
        d = session.sim.stores.distances
        dead = ~d.alive[: d.count]
        structural = int(np.count_nonzero(dead & (d.kind[: d.count] == 0)))
        assert structural > 0 and np.count_nonzero(dead) > structural  # hidden threads went with them
        assert f"· {structural} torn" in play.hud.stats.text
    finally:
        window.show_view(arcade.View())
        session.sim.close()


def slider_value(view: PlayView, label: str) -> float:
    """What the panel's slider ``label`` shows now."""
    return next(slider.value for _, control, slider in view.panel._labels if control.label == label)


def test_the_tilt_and_gravity_sliders_follow_the_tilt_tool_and_the_arrow_keys() -> None:
    from weft.levels import LEVELS_DIR

    window = shared_window()
    session = Session(Simulation.load(LEVELS_DIR / "creatures.toml"))
    play = PlayView(session)
    window.show_view(play)
    try:
        for _ in range(3):
            play.on_key_press(arcade.key.RIGHT, 0)
        play.on_update(1 / 60)
        play.on_draw()
        # they showed the values the level started with (0° and 980) whatever gravity became
        assert slider_value(play, "Tilt") == pytest.approx(15.0)
        session.queue({"type": "tool", "name": "tilt"})
        session.queue({"type": "mouse_press", "x": 600.0, "y": 400.0, "button": "left"})
        session.queue(
            {"type": "mouse_drag", "x": 680.0, "y": 400.0, "dx": 80.0, "dy": 0.0, "buttons": ["left"]}
        )
        play.on_update(1 / 60)
        play.on_draw()
        assert slider_value(play, "Tilt") == pytest.approx(35.0)  # 15° + 80 px at 0.25°/px
        assert slider_value(play, "Gravity") == pytest.approx(980.0)  # its strength, tilted or not
        gx, gy = session.sim.level.model.world.gravity
        session.queue({"type": "set", "key": "world.gravity", "value": [gx * 2, gy * 2]})
        play.on_update(1 / 60)
        play.on_draw()
        assert slider_value(play, "Gravity") == pytest.approx(1960.0)
        assert slider_value(play, "Tilt") == pytest.approx(35.0)
        assert [e["key"] for e in session.log if e["type"] == "set"] == ["world.gravity"]  # sync sets nothing
    finally:
        window.show_view(arcade.View())
        session.sim.close()


@pytest.mark.parametrize("level", ["cloth.toml", "flag.toml", "hammock.toml"])
def test_at_the_stiffness_sliders_low_end_the_sheet_stays_on_its_pins(level: str) -> None:
    from weft.game.panel import CONTROLS
    from weft.levels import LEVELS_DIR

    session = Session(Simulation.load(LEVELS_DIR / level))
    control = CONTROLS["iterations"]
    for key, value in control.write(session, control.low_for(session)):
        session.sim.set(key, value)
    session.sim.step(600)  # 10 s: at 1 pass the default sheet lost 70 threads, the flag 347
    assert session.sim.metrics()["counts"]["torn"] == 0


@pytest.mark.parametrize("level", ["cloth.toml", "flag.toml"])  # the levels whose panel shows compliance
def test_at_the_compliance_sliders_high_end_the_sheet_stays_on_its_pins(level: str) -> None:
    from weft.game.panel import CONTROLS
    from weft.levels import LEVELS_DIR

    session = Session(Simulation.load(LEVELS_DIR / level))
    control = CONTROLS["compliance"]
    for key, value in control.write(session, control.high_for(session)):
        session.sim.set(key, value)
    session.sim.step(600)  # 10 s: at 10^-3, its old end, the default sheet lost 53 threads, the flag 31
    assert session.sim.metrics()["counts"]["torn"] == 0


def test_a_level_softer_than_the_compliance_sliders_end_gets_a_slider_up_to_its_own_value() -> None:
    from weft.game.panel import COMPLIANCE_SLIDER_TOP, CONTROLS
    from weft.levels import LEVELS_DIR

    session = Session(Simulation.load(LEVELS_DIR / "cloth.toml"))
    control = CONTROLS["compliance"]
    assert control.high_for(session) == COMPLIANCE_SLIDER_TOP
    session.sim.set("cloth.0.compliance", 1e-3)  # what a level file may say: the panel is built from it
    assert control.high_for(session) == pytest.approx(4.0)
    assert control.read(session) == pytest.approx(4.0)  # the slider shows where it is, not its old end


def test_the_panels_controls_set_level_keys_and_stay_inside_the_schemas_ranges() -> None:
    from support.worlds import simulate

    from weft.game.level.load import parse_key, with_value
    from weft.game.level.schema import (
        TUNABLES,
        Balls,
        Boxes,
        Cloth,
        Creature,
        RigidTable,
        ToolsTable,
        WindTable,
        World,
        field_at,
        number_range,
    )
    from weft.game.level.values import SLIDER
    from weft.game.panel import CONTROLS, Slider

    assert set(CONTROLS) == set(TUNABLES)
    shown = ", ".join(f'"{name}"' for name in TUNABLES)
    session = Session(
        simulate(
            '[[cloth]]\ncols = 4\nrows = 3\n\n[[boxes]]\nlayout = "list"\npositions = [[640, 20]]\n\n'
            f"[panel]\nshow = [{shown}]"
        )
    )
    for control in CONTROLS.values():
        if isinstance(control, Slider):
            values = [control.low_for(session), control.high_for(session)]
        else:
            values = list(control.options)
        for value in values:
            for key, setting in control.write(session, value):
                field_at(key)  # a key of the schema (KeyError if not)
                # inside the schema's range: valid as it is, never clamped
                with_value(session.sim.level, parse_key(key), setting)
    # and every slider span a key gives lies inside that key's own range
    spans = {}
    for table in (World, WindTable, RigidTable, Cloth, Balls, Creature, Boxes, ToolsTable):
        for key, field in table.model_fields.items():
            extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
            if SLIDER in extra:
                spans[f"{table.__name__}.{key}"] = (*extra[SLIDER], *number_range(field))
    assert len(spans) >= 10
    outside = {key: span for key, span in spans.items() if not span[2] <= span[0] < span[1] <= span[3]}
    assert outside == {}


def test_the_wind_sliders_follow_the_wind_tool(view: PlayView) -> None:
    session = view.session
    session.queue({"type": "tool", "name": "wind"})
    session.queue({"type": "mouse_press", "x": 300.0, "y": 300.0, "button": "left"})
    session.queue({"type": "mouse_release", "x": 300.0, "y": 400.0, "button": "left"})  # 100 px, up
    view.on_update(1 / 60)
    view.on_draw()
    assert slider_value(view, "Wind strength") == pytest.approx(600.0)  # 6 px/s² per px drawn
    assert slider_value(view, "Wind direction") == pytest.approx(90.0)
    label = next(label for label, control, _ in view.panel._labels if control.label == "Wind strength")
    assert "600" in label.text


def dropped_ball_rebound(restitution: float, damping: float, drop: float) -> float:
    """The share of its drop height a ball of radius 10 let go at rest rises back to, simulated."""
    from support.worlds import simulate

    sim = simulate(
        f"[world]\nrestitution = {restitution}\ndamping = {damping}\n"
        f"[[balls]]\nname = 'ball'\nradius = [10, 10]\npositions = [[640, {drop + 10}]]\n"
    )
    heights = []
    for _ in range(300):
        sim.step()
        heights.append(float(sim.stores.particles.pos[0, 1]) - 10.0)
    rise = np.diff(heights) > 0.0
    bounce = int(np.argmax(rise))  # the first frame it moves up again
    top = bounce + int(np.argmin(rise[bounce:]))  # the first frame after that it stops rising
    return heights[top] / drop


@pytest.mark.parametrize(("damping", "drop"), [(1.0, 300.0), (0.99, 100.0), (0.99, 300.0), (0.99, 600.0)])
def test_the_rebound_the_panel_promises_is_the_one_a_dropped_ball_makes(damping: float, drop: float) -> None:
    from weft.game.panel import rebound_share

    # at 0.99 a 0.6 bounce is not the 36% the panel said: 27.0, 22.6 and 18.7% from 100, 300 and 600 px
    # (Verlet's drag is the continuous one within 0.3 points at 60 Hz and 6 substeps)
    assert rebound_share(0.6, damping, 980.0, drop) == pytest.approx(
        dropped_ball_rebound(0.6, damping, drop), abs=0.006
    )


def test_the_restitution_slider_says_it_is_a_share_of_the_speed_and_how_high_a_drop_rises() -> None:
    from weft.game.panel import REFERENCE_DROP, Panel
    from weft.levels import LEVELS_DIR

    shared_window()  # arcade.gui needs a window
    session = Session(Simulation.load(LEVELS_DIR / "balls.toml", ["world.restitution=0.6"]))
    panel = Panel(session)
    label = next(label for label, control, _ in panel._labels if control.label == "Restitution")
    rises = 100 * dropped_ball_rebound(0.6, session.sim.level.model.world.damping, REFERENCE_DROP)
    assert "60% of its speed back" in label.text
    said = re.search(r"in air, rises (\d+)%", label.text)
    assert said is not None and abs(int(said[1]) - rises) <= 1.0  # 22% (22.6 measured), not "bounce to 36%"
    session.sim.close()


def test_the_gravity_slider_sets_the_strength_and_keeps_the_tilt() -> None:
    from weft.game.panel import CONTROLS

    session = Session(Simulation.load(DEFAULT_LEVEL, ["world.gravity=[-490, -848.705]"]))  # 980 at -30°
    ((key, value),) = CONTROLS["gravity"].write(session, 1960.0)
    assert key == "world.gravity"
    assert value == pytest.approx([-980.0, -1697.41], abs=0.01)
    session.sim.close()


def test_the_gravity_slider_at_zero_and_back_keeps_the_tilt_and_the_tilt_still_turns() -> None:
    from weft.game.panel import CONTROLS
    from weft.levels import LEVELS_DIR

    def move(control, value: float) -> None:
        """The events the panel makes for a slider moved to ``value``, applied."""
        events = [control.event(value)] if control.event is not None else []
        events += [{"type": "set", "key": key, "value": v} for key, v in control.write(session, value)]
        for event in events:
            session.apply(event)

    session = Session(Simulation.load(LEVELS_DIR / "ragdoll.toml"))
    gravity, tilt = CONTROLS["gravity"], CONTROLS["tilt"]
    move(tilt, -60.0)
    move(gravity, 0.0)
    # a vector of no length has no direction: the tilt read 0 (shown "-0°"), and gravity came back
    # straight down
    assert session.sim.level.model.world.gravity == [0.0, 0.0]
    assert tilt.read(session) == pytest.approx(-60.0)
    move(gravity, 980.0)
    assert tilt.read(session) == pytest.approx(-60.0)
    assert session.sim.level.model.world.gravity == pytest.approx([-848.705, -490.0], abs=0.01)
    # and while gravity is zero the tilt slider and the arrow keys still turn it: the slider stood
    # still under the mouse, and gravity came back the way it had pointed before
    move(gravity, 0.0)
    move(tilt, 30.0)
    assert tilt.read(session) == pytest.approx(30.0)
    session.apply({"type": "key_press", "key": "RIGHT"})
    assert tilt.read(session) == pytest.approx(35.0)
    move(gravity, 980.0)
    assert session.sim.level.model.world.gravity == pytest.approx(
        [980.0 * math.sin(math.radians(35.0)), -980.0 * math.cos(math.radians(35.0))], abs=0.01
    )
    session.sim.close()


def test_help_lines_that_do_not_fit_the_box_wrap_under_their_description(view: PlayView) -> None:
    # DejaVu Sans Mono (where Courier New is missing) is wider: "outward" and "cursor" fell to column 0
    view.session.show_help = True
    view.on_draw()
    lines = view.hud.help_lines(view.session)
    indent = " " * (2 + HELP_KEY_COLUMN + 1)
    for line in lines:
        if line and not line.startswith("  "):
            assert line in ("Keys", "Tools (left button; the right button always cuts)")
    assert any(line.startswith(indent) for line in lines)  # the long tool summaries wrapped
    view.hud.help.text = max(lines, key=len)
    assert view.hud.help.content_width <= HELP_TEXT  # the longest line fits the box unwrapped


def test_the_help_is_drawn_on_whole_pixels_so_no_line_loses_its_top(view: PlayView) -> None:
    view.session.show_help = True
    view.on_draw()
    # at y = 578.5 (an odd content height centred) every line's top row of glyphs was lost: "LEFI RIGHI"
    help_text = view.hud.help
    assert float(help_text.x).is_integer() and float(help_text.y).is_integer()


def test_the_counters_stay_at_the_top_left_of_a_resized_window(view: PlayView) -> None:
    # before: laid out once for 720 px, at 900 the level's name, FPS and tool lines were drawn 180 px
    # below the top, over the world; after a shrink and a new level, above the window, gone
    for width, height in ((1500, 900), (500, 300), (1280, 720)):
        view.on_resize(width, height)
        tops = [height - text.y for text in (view.hud.title, view.hud.stats, view.hud.status)]
        assert tops == [22, 42, 60], (width, height, tops)
        assert view.hud.problem.width == width - 24


def test_a_panel_label_keeps_its_lines_when_its_value_grows_longer() -> None:
    # before: a label took the width of its first text, so "100% of its speed back off a wall" wrapped
    # onto a fourth line and every control below it jumped down 17 px while the slider was dragged
    window = shared_window()
    session = Session(Simulation.load(LEVELS_DIR / "silo.toml"))
    play = PlayView(session)
    window.show_view(play)
    try:
        play.on_draw()
        labels = [label for label, _, _ in play.panel._labels]
        assert all(label.rect.height == label._label.content_height > 0 for label in labels)  # all shown
        label = next(label for label in labels if label.text.startswith("Restitution"))
        height = label.rect.height
        session.set("world.restitution", 1.0)
        play.panel.sync()
        play.on_draw()
        assert label.text.startswith("Restitution: 1.00\n100% of its speed")
        assert label.rect.height == label._label.content_height == height
    finally:
        window.show_view(arcade.View())
        session.sim.close()


def test_a_custom_system_that_raises_pauses_the_window_and_says_so(view: PlayView) -> None:
    # before: the exception went up through arcade and closed the window with a traceback
    import weft

    class Broken(weft.System):
        name = "broken"
        stage = weft.Stage.FRAME_START

        def process(self, step: weft.Step) -> None:
            raise RuntimeError("boom")

    view.session.sim.physics.add_system(Broken())
    view.on_update(1 / 60)
    assert view.session.paused
    assert view.session.message.startswith("frame 0: system 'broken' raised RuntimeError: boom: paused")
    view.on_draw()  # and it still draws


def test_a_level_that_offers_no_tool_has_a_left_button_that_does_nothing() -> None:
    # the elbow level is driven by its clip: its drag tool took nothing (the schema wanted one tool)
    window = shared_window()
    session = Session(Simulation.load(LEVELS_DIR / "elbow.toml"))
    play = PlayView(session)
    window.show_view(play)
    try:
        assert session.tools == {} and session.tool.name == "none"
        for event in (
            {"type": "mouse_press", "x": 400.0, "y": 300.0, "button": "left"},
            {"type": "mouse_drag", "x": 450.0, "y": 300.0, "dx": 50.0, "dy": 0.0, "buttons": ["left"]},
            {"type": "mouse_release", "x": 450.0, "y": 300.0, "button": "left"},
            {"type": "key_press", "key": "KEY_1"},
        ):
            session.queue(event)
        play.on_update(1 / 60)
        session.show_help = True
        play.on_draw()
        assert "tool: none" in play.hud.status.text
        assert session.tool.name == "none"
    finally:
        window.show_view(arcade.View())
        session.sim.close()
