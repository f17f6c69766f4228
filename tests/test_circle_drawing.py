"""Circles and the container, checked on real offscreen pictures (Mesa llvmpipe; no display, no GPU).

Each circle's centre pixel is compared with the colour its radius (or speed)
picks on the level's palette ramp; the walls' frame is looked for where the
walls are. Levels with circles show a little more than their bounds (the
walls sit outside them, and shaking swings them wider), so world points are
mapped to pixels through the renderer's own fit.
"""

from __future__ import annotations

import os

os.environ["ARCADE_HEADLESS"] = "1"  # before anything imports arcade

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image
from support.worlds import simulate

from weft.components import ParticleKind
from weft.game.level.values import rgba
from weft.game.offscreen import Offscreen
from weft.game.overlays import WALL_THICKNESS, wall_color
from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.game.tools import MAX_SWING

ROOT = Path(__file__).resolve().parents[1]
BALLS = ROOT / "levels" / "balls.toml"

CLOSE = 40.0
"""RGB distance under which a pixel counts as a given colour (the ball's shading moves it a little)."""

CENTRE_SHADE = (0.985, 10.0)
"""A ball's centre pixel is about ``0.985 × colour + 10``: Lambert at the centre plus the highlight's tail."""


def pixels_at(
    image: Image.Image, pictures: Offscreen, points: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """RGB ``(n, 3)`` of the picture at world points ``(n, 2)``, through the renderer's last fit."""
    window = pictures.renderer.to_window(points)
    pixels = np.asarray(image, dtype=np.float64)
    height, width = pixels.shape[:2]
    cols = np.clip(np.floor(window[:, 0]).astype(int), 0, width - 1)
    rows = np.clip(np.floor(height - window[:, 1]).astype(int), 0, height - 1)  # y up, rows down
    return pixels[rows, cols, :3]


def ramp(palette: list[tuple[int, int, int, int]], t: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """RGB ``(n, 3)`` of the palette ramp at ``t`` in 0..1: straight lines between consecutive colours."""
    colors = np.array([c[:3] for c in palette], dtype=np.float64)
    s = np.clip(t, 0.0, 1.0) * (len(colors) - 1)
    k = np.minimum(s.astype(int), len(colors) - 2)
    f = (s - k)[:, None]
    return colors[k] * (1.0 - f) + colors[k + 1] * f


def centre_color(base: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    scale, lift = CENTRE_SHADE
    return np.clip(base * scale + lift, 0.0, 255.0)


def near(colors: npt.NDArray[np.float64], target: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    return np.linalg.norm(colors - np.asarray(target, dtype=np.float64)[..., :3], axis=-1) < CLOSE


def circles(sim: Simulation) -> npt.NDArray[np.int64]:
    particles = sim.stores.particles
    return np.flatnonzero(particles.kind[: particles.count] == ParticleKind.CIRCLE)


@pytest.fixture
def balls() -> Session:
    sim = Simulation.load(BALLS)
    yield Session(sim)
    sim.close()


def test_every_ball_is_drawn_in_the_colour_its_size_picks_on_the_palette(balls: Session) -> None:
    sim = balls.sim
    pictures = Offscreen(balls)
    balls.run(20)
    image = pictures.capture()

    rows = circles(sim)
    particles = sim.stores.particles
    centres, radii = particles.pos[rows], particles.radius[rows]
    palette = [rgba(c) for c in sim.level.model.view.palette]
    expected = centre_color(ramp(palette, (radii - radii.min()) / (radii.max() - radii.min())))
    drawn = pixels_at(image, pictures, centres)
    matches = near(drawn, expected)
    assert matches.mean() > 0.9, f"only {matches.mean():.0%} of the balls show their size's colour"
    # and the ramp is used end to end: small balls look like the first colour, large like the last
    first, last = (centre_color(np.array(palette[k][:3], dtype=np.float64)) for k in (0, -1))
    assert near(drawn[radii < radii.min() + 0.05], first).mean() > 0.9
    assert near(drawn[radii > radii.max() - 0.05], last).mean() > 0.9

    # the background shows in the gaps of the pile (discs, not squares), not only above it
    low, high = centres.min(axis=0) + 20.0, np.percentile(centres, 50, axis=0)
    grid = np.stack(np.meshgrid(np.linspace(low[0], high[0], 120), np.linspace(low[1], high[1], 60)), -1)
    inside = pixels_at(image, pictures, grid.reshape(-1, 2))
    gaps = near(inside, rgba(sim.level.model.world.background)).mean()
    assert 0.05 < gaps < 0.75, f"{gaps:.0%} of the lower pile's area shows the background"


def test_poured_circles_grow_the_gpu_buffer_and_are_all_drawn() -> None:
    sim = simulate(
        """
        [world]
        background = "#101010"
        [[balls]]
        count = 20
        radius = [5, 5]
        region = [40, 20, 400, 60]
        [tools]
        available = ["pour"]
        start = "pour"
        sizes = [5, 5]
        pour_rate = 12
        [view]
        palette = ["#ff3030", "#ff3030"]
        """
    )
    session = Session(sim)
    pictures = Offscreen(session)
    pictures.capture()  # the first draw makes the renderer's systems
    system = next(s for s in pictures.renderer.bodies.systems if s.name == "circles")

    def red_pixels() -> int:
        pixels = np.asarray(pictures.capture(), dtype=np.float64).reshape(-1, 3)
        return int(near(pixels, (255, 48, 48)).sum())

    before_pixels, before_capacity = red_pixels(), system.capacity
    # sweep the spout to and fro across the top, so the stream never chokes on itself
    session.queue({"type": "mouse_press", "x": 100.0, "y": 620.0, "button": "left"})
    for k in range(60):
        x = 100.0 + 1080.0 * abs((k % 40) / 20.0 - 1.0)
        session.queue({"type": "mouse_drag", "x": x, "y": 620.0, "dx": 27.0, "dy": 0.0, "buttons": ["left"]})
        session.advance()
    poured = sim.stores.particles.circles
    after_pixels = red_pixels()
    sim.close()

    assert poured > 256 > before_capacity // 2, f"expected a few hundred circles, got {poured}"
    assert system.capacity >= poured > before_capacity, "the GPU buffer must grow to hold the poured circles"
    # each circle of radius 5 covers about 60 px at the view's zoom: the red area grows with the count
    assert after_pixels > 0.6 * before_pixels * poured / 20


def test_colour_by_speed_tells_fast_circles_from_still_ones() -> None:
    sim = simulate(
        """
        [[balls]]
        count = 200
        radius = [5, 5]
        region = [100, 100, 1100, 300]
        [view]
        color_by = "speed"
        palette = ["#2060ff", "#ffd030", "#ff2020"]
        """
    )
    session = Session(sim)
    pictures = Offscreen(session)
    particles = sim.stores.particles
    rows = circles(sim)
    fast = rows[::2]
    still = rows[1::2]
    particles.prev[still] = particles.pos[still]
    particles.prev[fast] = particles.pos[fast] - np.array([8.0, 0.0])  # 8 px per 1/360 s substep: 2880 px/s
    image = pictures.capture()
    palette = [rgba(c) for c in sim.level.model.view.palette]
    sim.close()

    drawn_fast = pixels_at(image, pictures, particles.pos[fast])
    drawn_still = pixels_at(image, pictures, particles.pos[still])
    assert near(drawn_still, centre_color(np.array(palette[0][:3], dtype=np.float64))).mean() > 0.95
    assert near(drawn_fast, centre_color(np.array(palette[-1][:3], dtype=np.float64))).mean() > 0.95


def test_the_walls_frame_is_drawn_at_the_bounds_and_follows_them_when_shaken(balls: Session) -> None:
    sim = balls.sim
    pictures = Offscreen(balls)
    balls.run(5)
    wall = wall_color(rgba(sim.level.model.world.background))
    left, bottom, right, top = sim.settings.bounds
    just_outside = 0.5 * WALL_THICKNESS
    along_x = np.linspace(left + 30.0, right - 30.0, 50)
    along_y = np.linspace(bottom + 30.0, top - 30.0, 50)

    def frame_shows(image: Image.Image, left: float, right: float) -> list[float]:
        sides = [
            np.column_stack([along_x, np.full(50, bottom - just_outside)]),
            np.column_stack([along_x, np.full(50, top + just_outside)]),
            np.column_stack([np.full(50, left - just_outside), along_y]),
            np.column_stack([np.full(50, right + just_outside), along_y]),
        ]
        return [float(near(pixels_at(image, pictures, side), wall).mean()) for side in sides]

    assert min(frame_shows(pictures.capture(), left, right)) > 0.95

    # shaking at full strength swings the walls up to MAX_SWING px; the view keeps them in sight
    balls.queue({"type": "set", "key": "tools.strength", "value": 1.0})
    balls.queue({"type": "tool", "name": "shake"})
    balls.queue({"type": "mouse_press", "x": 640.0, "y": 400.0, "button": "left"})
    balls.run(3)  # a quarter period of 5 Hz (3 frames): the widest swing
    offset = sim.settings.wall_offset[0]
    assert offset > 0.8 * MAX_SWING
    image = pictures.capture()
    window = pictures.renderer.to_window(np.array([[right + offset + WALL_THICKNESS, top]]))
    assert window[0, 0] < image.size[0], "the swung wall must stay inside the picture"
    assert min(frame_shows(image, left + offset, right + offset)) > 0.95
    # and the frame left the wall's home position
    home = np.column_stack([np.full(50, left - just_outside), along_y])
    assert near(pixels_at(image, pictures, home), wall).mean() < 0.05
