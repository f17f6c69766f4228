"""Drawing, checked on real offscreen pictures (Mesa llvmpipe; no display, no GPU needed).

The pictures are compared with what the level says: the sheet shows its
pattern's colours, a cut lets the background through, the CLI writes the
images it promises.
"""

from __future__ import annotations

import os

os.environ["ARCADE_HEADLESS"] = "1"  # before anything imports arcade

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image
from support.pictures import Picture, near

import weft
from weft.game.filmstrip import FILMSTRIP_COLUMNS, FILMSTRIP_SCALE
from weft.game.level.values import rgba
from weft.game.offscreen import Offscreen
from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.systems.draw.patterns import pattern_image
from weft.systems.schedule import Stage

ROOT = Path(__file__).resolve().parents[1]
LEVEL = ROOT / "levels" / "cloth.toml"

CLOSE = 45.0
"""RGB distance under which a pixel counts as a given colour (shading and filtering move it a little)."""


def _pixels_at(
    image: Image.Image, pictures: Offscreen, points: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """RGB ``(n, 3)`` of the picture at world points ``(n, 2)``, through the view's fit."""
    return Picture(image, pictures).at(points)


def _inner_grid(positions: npt.NDArray[np.float64], shrink: float, n: int = 40) -> npt.NDArray[np.float64]:
    """An ``n x n`` grid of world points inside the sheet's bounding box, shrunk by ``shrink`` per side."""
    low, high = positions.min(axis=0), positions.max(axis=0)
    margin = (high - low) * shrink
    xs = np.linspace(low[0] + margin[0], high[0] - margin[0], n)
    ys = np.linspace(low[1] + margin[1], high[1] - margin[1], n)
    return np.array([(x, y) for y in ys for x in xs])


def _near_pattern(
    colors: npt.NDArray[np.float64], palette: list[tuple[int, int, int, int]]
) -> npt.NDArray[np.bool_]:
    """Which ``colors`` are a shade (55-105 %) of a blend of two palette colours.

    The woven, lit sheet shows exactly such colours: the weave blends two
    threads' colours, folds and the back of the cloth darken them.
    """
    base = np.array([c[:3] for c in palette], dtype=np.float64)
    blends = [
        base[i] * (1 - t) + base[j] * t
        for i in range(len(base))
        for j in range(len(base))
        for t in (0, 0.25, 0.5)
    ]
    candidates = np.array([np.array(b) * s for b in blends for s in np.linspace(0.55, 1.05, 11)])
    distance = np.linalg.norm(colors[:, None, :] - candidates[None, :, :], axis=2).min(axis=1)
    return distance < CLOSE


def _near(colors: npt.NDArray[np.float64], color: tuple[int, ...]) -> npt.NDArray[np.bool_]:
    return np.linalg.norm(colors - np.array(color[:3], dtype=np.float64), axis=1) < CLOSE


def _cut_across(session: Session, y: float, x0: float, x1: float, step: float = 20.0) -> None:
    """A right-button stroke from (x0, y) to (x1, y), one drag event per tick, as the window sends it."""
    session.queue({"type": "mouse_press", "x": x0, "y": y, "button": "right"})
    session.advance()
    x = x0
    while x < x1:
        session.queue(
            {"type": "mouse_drag", "x": x + step, "y": y, "dx": step, "dy": 0.0, "buttons": ["right"]}
        )
        session.advance()
        x += step
    session.queue({"type": "mouse_release", "x": x, "y": y, "button": "right"})
    session.advance()


@pytest.fixture
def session() -> Session:
    sim = Simulation.load(LEVEL)
    yield Session(sim)
    sim.close()


def test_default_sheet_shows_its_pattern_colours_over_most_of_its_area(session: Session) -> None:
    sim = session.sim
    pictures = Offscreen(session)
    session.run(30)
    image = pictures.capture()
    assert image.size == (1280, 720) and image.mode == "RGB"

    colors = _pixels_at(image, pictures, _inner_grid(sim.positions("sheet"), shrink=0.08))
    palette = [rgba(c) for c in sim.level.model.cloth[0].colors]
    background = rgba(sim.level.model.world.background)
    on_pattern = _near_pattern(colors, palette) & ~_near(colors, background)
    assert on_pattern.mean() > 0.85, f"only {on_pattern.mean():.0%} of the sheet shows its pattern colours"
    # every main colour of the level shows somewhere, so the pattern is not a flat fill
    for color in palette[:2]:
        assert _near(colors, color).mean() > 0.05


def test_cut_lets_the_background_show_through_along_the_cut(session: Session) -> None:
    sim = session.sim
    pictures = Offscreen(session)  # a second Offscreen in the same process reuses the window
    session.run(20)
    sheet = sim.positions("sheet")
    y_cut = float(np.median(sheet[:, 1]))
    x_low, x_high = sheet[:, 0].min(), sheet[:, 0].max()
    line = np.column_stack([np.linspace(x_low + 40, x_high - 40, 200), np.full(200, y_cut - 30.0)])
    background = rgba(sim.level.model.world.background)
    before = _near(_pixels_at(pictures.capture(), pictures, line), background).mean()

    _cut_across(session, y_cut, x_low - 40.0, x_high + 40.0)
    session.run(30)  # the lower part falls away from the cut
    after = _near(_pixels_at(pictures.capture(), pictures, line), background).mean()

    assert before < 0.05, "the sheet should cover the line before the cut"
    assert after > 0.7, f"only {after:.0%} of the line below the cut shows the background"


def test_look_changes_at_run_time_are_drawn(session: Session) -> None:
    sim = session.sim
    pictures = Offscreen(session)
    session.run(10)
    teal, sand = "#2a9d8f", "#e9c46a"
    session.queue({"type": "set", "key": "cloth.0.colors", "value": [teal, sand]})
    session.queue({"type": "set", "key": "cloth.0.pattern", "value": "checker"})
    session.advance()
    colors = _pixels_at(pictures.capture(), pictures, _inner_grid(sim.positions("sheet"), shrink=0.08))
    assert _near_pattern(colors, [rgba(teal), rgba(sand)]).mean() > 0.85
    assert _near(colors, rgba(teal)).mean() > 0.2 and _near(colors, rgba(sand)).mean() > 0.2


def test_reset_rebuilds_the_schedule_and_the_sheet_is_still_drawn(session: Session) -> None:
    sim = session.sim
    pictures = Offscreen(session)
    session.run(10)
    _cut_across(session, 380.0, 100.0, 1180.0)
    session.queue({"type": "key_press", "key": "R"})
    session.advance()
    assert "cloth_mesh" not in sim.schedule.names(Stage.DRAW), "a reset builds a schedule without drawing"
    image = pictures.capture()
    assert sim.schedule.get("cloth_mesh") is pictures.renderer.bodies.systems[0]
    colors = _pixels_at(image, pictures, _inner_grid(sim.positions("sheet"), shrink=0.08))
    palette = [rgba(c) for c in sim.level.model.cloth[0].colors]
    assert _near_pattern(colors, palette).mean() > 0.85, "the rebuilt sheet must be drawn whole, uncut"


def test_debug_view_colours_threads_and_draws_pins(session: Session) -> None:
    pictures = Offscreen(session)
    session.run(20)
    plain = np.asarray(pictures.capture(), dtype=np.float64)
    session.debug = True
    debug = np.asarray(pictures.capture(), dtype=np.float64)

    # strain lines are blue to red: the debug picture has strongly blue or green pixels the gingham lacks
    def coloured(pixels: npt.NDArray[np.float64]) -> float:
        r, g, b = pixels[..., 0], pixels[..., 1], pixels[..., 2]
        return float(((b > r + 60) | (g > r + 60)).mean())

    assert coloured(debug) > 5 * max(coloured(plain), 1e-4)
    # a magenta ring on every pin of the sheet
    stores = session.sim.stores
    anchors = stores.pins.anchor[: stores.pins.count]
    ring = np.array([255, 89, 217], dtype=np.float64)
    for (x, y), (col, row) in zip(anchors, pictures.renderer.to_window(anchors), strict=True):
        row = 720 - int(row)
        around = debug[row - 8 : row + 9, int(col) - 8 : int(col) + 9].reshape(-1, 3)
        assert (np.linalg.norm(around - ring, axis=1) < CLOSE).any(), f"no pin ring at ({x}, {y})"


@pytest.mark.parametrize("name", ["gingham", "stripes", "checker", "plaid"])
@pytest.mark.parametrize("count", [2, 3, 4])
def test_pattern_tiles_use_every_colour(name: str, count: int) -> None:
    palette = ((200, 85, 61, 255), (242, 233, 220, 255), (45, 65, 89, 255), (224, 176, 72, 255))[:count]
    tile = pattern_image(name, palette, 256)
    assert tile.shape == (256, 256, 4) and tile.dtype == np.uint8
    pixels = tile[..., :3].reshape(-1, 3).astype(np.float64)
    nearest = np.linalg.norm(pixels[:, None] - np.array(palette)[None, :, :3], axis=2).argmin(axis=1)
    shares = np.bincount(nearest, minlength=count) / len(nearest)
    assert (shares > 0.01).all(), f"{name} with {count} colours uses them as {shares.round(3)}"


def test_cli_writes_a_filmstrip_of_twelve_tiles_and_a_screenshot(tmp_path: Path) -> None:
    strip, shot = tmp_path / "strip.png", tmp_path / "shot.png"
    result = subprocess.run(
        [
            *(sys.executable, "-m", "weft", "run", str(LEVEL), "--frames", "120"),
            *("--filmstrip", str(strip), "--every", "10", "--screenshot", str(shot)),
        ],
        cwd=ROOT,
        env={**os.environ, "ARCADE_HEADLESS": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    tile = (1280 // FILMSTRIP_SCALE, 720 // FILMSTRIP_SCALE)
    with Image.open(strip) as image:
        assert image.size == (FILMSTRIP_COLUMNS * tile[0], 3 * tile[1])  # 12 pictures, 4 to a row
    with Image.open(shot) as image:
        assert image.size == (1280, 720)
        colors = np.asarray(image.convert("RGB"), dtype=np.float64)[300:400, 500:700].reshape(-1, 3)
        assert not _near(colors, rgba("#1b1f2a")).all(), "the screenshot shows the sheet, not just background"


def test_a_level_larger_than_the_window_is_drawn_whole(session: Session) -> None:
    """The window already open is 1280 × 720; a 3000 × 2000 level must still fill its own picture."""
    Offscreen(session).capture()  # opens (or reuses) the small window first
    from support.worlds import simulate

    big = simulate(
        """
        [world]
        bounds = [0, 0, 3000, 2000]
        background = "#203040"
        [[boxes]]
        name = "far"
        layout = "list"
        positions = [[2900, 50]]
        size = [100, 100]
        colors = ["#ff0000"]
        """
    )
    image = np.asarray(Offscreen(Session(big)).capture(), dtype=np.float64)
    assert image.shape[:2] == (2000, 3000)
    # the background reaches the far corner, and the box at the far right is red (a blit clipped to
    # the window's scissor box once left all but the bottom-left 1280 × 720 px black)
    assert np.allclose(image[10, 2990], rgba("#203040")[:3], atol=3)
    far = image[2000 - 50, 2900]  # rows run down: y = 50 is row 1950
    assert far[0] > far[1] + 60 and far[0] > far[2] + 60, far


def test_two_picture_makers_can_take_turns_on_one_session(session: Session) -> None:
    """The window and an F12 screenshot, or two tests' pictures: each puts its own drawing systems in."""
    first, second = Offscreen(session), Offscreen(session)
    pictures = [np.asarray(maker.capture()) for maker in (first, second, first)]
    assert np.array_equal(pictures[0], pictures[1]) and np.array_equal(pictures[1], pictures[2])


def test_a_piece_lying_flat_on_the_floor_is_drawn_above_the_windows_edge(session: Session) -> None:
    sim = session.sim
    pictures = Offscreen(session)
    session.run(10)
    _cut_across(session, 600.0, 60.0, 1220.0)  # below the pins: everything under falls
    session.run(400)
    points = sim.positions("sheet")
    flat = points[
        points[:, 1] < 2.0
    ]  # the piece: on the floor, one line of points (y = 1, half the thickness)
    # within 0.01 px of one line: the walls' clamp runs only when a point is past them, so a point
    # the relaxation lifted a hair off the floor stays there (0.002 px measured)
    assert len(flat) > 1000 and np.ptp(flat[:, 1]) < 0.01
    picture = Picture(pictures.capture(), pictures)
    background = rgba(sim.level.model.world.background)
    colors = picture.at(flat)
    # drawn (its triangles have no area: the edge-on strokes draw it), neither the background nor the floor
    floor = picture.at(flat - (0.0, 14.0))
    assert not near(floor, background, 12.0).any()  # there is a floor under it to lie on
    shown = ~near(colors, background, 12.0) & (np.linalg.norm(colors - floor, axis=1) > 12.0)
    assert shown.mean() > 0.9, f"only {shown.mean():.0%} of the piece on the floor shows"
    assert (pictures.renderer.to_window(flat)[:, 1] > 20.0).all()  # above the window's edge and the hint


def test_renderer_arguments_and_options_are_checked_with_the_level_formats_messages() -> None:
    # before: a palette of hex strings raised numpy's "could not convert string to float" once and
    # drew the old colours after; zoom=0, a string of layers and Renderer("physics") were taken
    import arcade

    from weft.game.offscreen import shared_window
    from weft.game.renderer import Renderer

    shared_window()
    physics = weft.Physics(world="renderer-checks")
    try:
        physics.add(weft.Balls(count=20, radius=[4, 9], region=[100, 100, 300, 300]))
        renderer = Renderer(physics)
        renderer.options.palette = ["#ff0000", (0, 0, 255), arcade.color.GREEN]  # a level's, RGB, arcade's
        renderer.draw()
        assert renderer.options.palette == ((255, 0, 0, 255), (0, 0, 255, 255), (0, 255, 0, 255))
        renderer.options.palette = ["#zzzzzz", "#000000"]
        for _ in range(2):  # every draw, not the first only
            with pytest.raises(weft.LevelError, match=r"renderer\.options: palette\.0: expected a colour"):
                renderer.draw()
        renderer.options.palette = ["#000000", "#ffffff"]
        renderer.options.color_by = "rainbow"
        with pytest.raises(weft.LevelError, match="color_by: expected one of 'size' or 'speed'"):
            renderer.draw()
        renderer.options.color_by = "speed"
        for wrong, kind, said in (
            ({"layers": "circles"}, TypeError, "expected a list of layer names"),
            ({"zoom": 0.0}, ValueError, "zoom: expected a finite number > 0"),
            ({"zoom": math.nan}, ValueError, "zoom: expected a finite number > 0"),
        ):
            with pytest.raises(kind, match=said):
                renderer.draw(**wrong)
        renderer.draw()
        with pytest.raises(TypeError, match=r"expected a weft\.Physics"):
            Renderer("physics")
    finally:
        physics.close()


def test_a_filmstrip_of_fewer_pictures_than_a_row_has_no_empty_cell() -> None:
    # before: three pictures made a sheet four tiles wide, the last one blank
    from weft.game.filmstrip import Filmstrip

    strip = Filmstrip((1280, 720), 3)
    assert strip.sheet.size == (3 * strip.tile[0], strip.tile[1])
    assert Filmstrip((1280, 720), 9).sheet.size == (FILMSTRIP_COLUMNS * strip.tile[0], 3 * strip.tile[1])
