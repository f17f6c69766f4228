"""Creatures, checked on real offscreen pictures (Mesa llvmpipe; no display, no GPU).

The pictures are read the way a player would look at them: the body is its
colour in the middle, shaded towards the lower right, ringed by a dark
outline whose edge is smooth (no corners at the ring's 16 points) and sits
where the skin's beads are; four legs stand under it; pressed, it cries.
World points are mapped to pixels through the renderer's own fit.
"""

from __future__ import annotations

import os

os.environ["ARCADE_HEADLESS"] = "1"  # before anything imports arcade

import math
from pathlib import Path

import esper
import numpy as np
import numpy.typing as npt
import pytest
from support.pictures import CLOSE, Picture, draw_calls, near
from support.sessions import Opened, open_level

from weft.components import SoftBody
from weft.game.level.values import rgba
from weft.game.offscreen import Offscreen
from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.systems.draw.faces import TEAR

ROOT = Path(__file__).resolve().parents[1]
CREATURE = ROOT / "levels" / "creature.toml"
CREATURES = ROOT / "levels" / "creatures.toml"


DARK_CLOSE = 12.0
"""The same for telling the outline from the background: both are dark, 32 apart."""

FloatArray = npt.NDArray[np.float64]


def ray(centre: FloatArray, angle: float, start: float, stop: float, step: float = 0.5) -> FloatArray:
    """World points ``(n, 2)`` from ``start`` to ``stop`` px out of ``centre`` at ``angle`` radians."""
    radii = np.arange(start, stop, step)
    return centre + radii[:, None] * np.array([math.cos(angle), math.sin(angle)])


def creature(sim: Simulation, name: str) -> SoftBody:
    sim.activate()
    return next(body for _, body in esper.get_component(SoftBody) if body.name == name)


def centre_and_radius(sim: Simulation, body: SoftBody) -> tuple[FloatArray, float]:
    """The ring's centroid and its mean radius to the outside of the skin (ring radius plus bead), px."""
    ring = sim.stores.particles.pos[body.ring]
    centre = ring.mean(axis=0)
    return centre, float(np.linalg.norm(ring - centre, axis=1).mean() + body.bead)


@pytest.fixture
def mochi(sessions: Opened) -> tuple[Session, Offscreen]:
    """The one-creature level, settled on its legs for a second."""
    session, pictures = open_level(sessions, CREATURE)
    session.run(60)
    return session, pictures


def test_body_is_lit_from_the_upper_left_with_a_shade_band_at_the_lower_right_inside_a_dark_outline(
    mochi: tuple[Session, Offscreen],
) -> None:
    session, pictures = mochi
    body = creature(session.sim, "mochi")
    look = body.look
    picture = Picture(pictures.capture(), pictures)
    centre, radius = centre_and_radius(session.sim, body)
    background = rgba(session.sim.level.model.world.background)

    # the body colour fills the middle (the face takes a little of it)
    grid = np.stack(np.meshgrid(np.linspace(-1, 1, 41), np.linspace(-1, 1, 41)), -1).reshape(-1, 2)
    disc = centre + 0.5 * radius * grid[np.linalg.norm(grid, axis=1) <= 1.0]
    assert near(picture.at(disc), look.body).mean() > 0.8

    def first(colors: FloatArray, target: tuple[int, ...], within: float = CLOSE) -> int:
        hits = np.flatnonzero(near(colors, target, within))
        return int(hits[0]) if len(hits) else -1

    # towards the lower right: body, then a band of shade, then the outline, then the background
    lower_right = picture.at(ray(centre, math.radians(-45.0), 0.3 * radius, 1.3 * radius))
    shade_run = int(near(lower_right, look.shade).sum())
    assert shade_run >= 8, f"only {shade_run * 0.5:.1f} px of shade at the lower right"
    order = [
        first(lower_right, look.body),
        first(lower_right, look.shade),
        first(lower_right, look.outline, DARK_CLOSE),
        first(lower_right, background, DARK_CLOSE),
    ]
    assert -1 not in order and order == sorted(order), f"lower right reads {order} (body, shade, outline, bg)"
    # towards the upper left the light reaches the outline: no shade there (the ray starts past the
    # face, whose eye edges blend through shade-like colours)
    upper_left = picture.at(ray(centre, math.radians(135.0), 0.6 * radius, 1.3 * radius))
    assert near(upper_left, look.shade).sum() <= 2, "shade at the upper left (beyond 1 px of blended edge)"
    assert first(upper_left, look.outline, DARK_CLOSE) > first(upper_left, look.body) >= 0

    # all round, the last thing before the background is the dark outline (or a leg's); the creature
    # stands on the bottom edge, so rays down through a foot may leave the picture before any background
    checked = 0
    for angle in np.radians(np.arange(0.0, 360.0, 5.0)):
        points = ray(centre, angle, 0.5 * radius, 2.0 * radius)
        colors = picture.at(points[picture.inside(points)])
        outside = np.flatnonzero(near(colors, background, DARK_CLOSE))
        if not len(outside):
            assert math.sin(angle) < 0.0, f"no background found at {math.degrees(angle):.0f} degrees"
            continue
        rim = colors[max(0, outside[0] - 8) : outside[0]]  # the last 4 px before it
        assert near(rim, look.outline, DARK_CLOSE).any(), f"no outline at {math.degrees(angle):.0f} degrees"
        checked += 1
    assert checked >= 60, f"only {checked} of 72 rays reached the background inside the picture"


def test_silhouette_is_a_smooth_curve_one_bead_outside_the_ring_without_corners_at_its_points(
    mochi: tuple[Session, Offscreen],
) -> None:
    session, pictures = mochi
    body = creature(session.sim, "mochi")
    picture = Picture(pictures.capture(), pictures)
    centre, radius = centre_and_radius(session.sim, body)
    background = rgba(session.sim.level.model.world.background)

    # where the light body meets the dark outline, to a fraction of a pixel, at every degree
    angles = np.radians(np.arange(360.0))
    step = 0.25
    edge = np.empty(len(angles))
    outer = np.empty(len(angles))
    for k, angle in enumerate(angles):
        points = ray(centre, angle, 0.6 * radius, 1.5 * radius, step)
        light = picture.smooth_luminance_at(points)
        i = int(np.argmax(light < 100.0))
        fraction = (light[i - 1] - 100.0) / (light[i - 1] - light[i])
        edge[k] = 0.6 * radius + (i - 1 + fraction) * step
        # and the outer edge: the first pixel of background past the outline
        beyond = points[i:]
        outer[k] = 0.6 * radius + (i + np.argmax(near(picture.at(beyond), background, DARK_CLOSE))) * step

    # a 16-gon's corners ripple the radius at 16 (and 32, 48...) cycles a turn: 0.6 px at 16 for this
    # body, drawn the same way (measured); a spline through the points leaves nothing there
    ripple = np.abs(np.fft.rfft(edge))[1:] * 2.0 / len(edge)
    assert ripple[11:60].max() < 0.15, f"ripple {ripple[11:60].max():.2f} px at {ripple[11:60].argmax() + 12}"
    assert abs(ripple[15]) < 0.1

    # the outline's outer edge is the skin's: one bead outside the ring points, as they collide
    top = [k for k, a in enumerate(angles) if 20.0 < math.degrees(a) < 160.0]  # above the legs
    assert abs(np.median(outer[top]) - radius) < 1.5, (
        f"outer edge {np.median(outer[top]):.1f} vs {radius:.1f}"
    )


def test_legs_stand_below_the_body_outlined_and_with_their_roots_under_it(
    mochi: tuple[Session, Offscreen],
) -> None:
    session, pictures = mochi
    sim = session.sim
    body = creature(sim, "mochi")
    look, legs = body.look, body.legs
    picture = Picture(pictures.capture(), pictures)
    pos = sim.stores.particles.pos
    centre, radius = centre_and_radius(sim, body)
    background = rgba(sim.level.model.world.background)

    # a line across the shins, half way between knees and feet: four separate legs
    y = 0.5 * (pos[legs.knee, 1].mean() + pos[legs.foot, 1].mean())
    assert y < centre[1] - radius, "the legs hang below the body"
    xs = np.arange(centre[0] - 1.5 * radius, centre[0] + 1.5 * radius, 0.5)
    colors = picture.at(np.column_stack([xs, np.full(len(xs), y)]))
    solid = ~near(colors, background, DARK_CLOSE)
    starts = np.flatnonzero(solid[1:] & ~solid[:-1]) + 1
    ends = np.flatnonzero(~solid[1:] & solid[:-1]) + 1
    assert len(starts) == len(ends) == 4, f"{len(starts)} legs cross the line at y = {y:.0f}"
    for start, end in zip(starts, ends, strict=True):
        width = (end - start) * 0.5
        assert 0.7 * legs.thickness < width < 2.0 * legs.thickness, f"a leg {width:.1f} px wide"
        leg = colors[start:end]
        middle = len(leg) // 2
        assert (
            near(leg[:4], look.outline, DARK_CLOSE).any() and near(leg[-4:], look.outline, DARK_CLOSE).any()
        )
        assert near(leg[middle - 1 : middle + 2], look.body).any(), "a leg's core is the body colour"

    # where each leg meets the ring the body is drawn over it: no leg outline round the root (the body's
    # own outline is a bead, 14 px, further out)
    roots = pos[legs.root_a] + (pos[legs.root_b] - pos[legs.root_a]) * legs.root_t[:, None]
    grid = np.stack(np.meshgrid(np.linspace(-1, 1, 25), np.linspace(-1, 1, 25)), -1).reshape(-1, 2)
    around = 0.6 * legs.thickness * grid[np.linalg.norm(grid, axis=1) <= 1.0]
    for root in roots:
        colors = picture.at(root + around)
        assert not near(colors, look.outline).any(), "a leg's outline shows over the body"
        assert (near(colors, look.body) | near(colors, look.shade)).mean() > 0.9


def test_a_pressed_creature_squeezes_its_eyes_shut_and_cries_until_let_go(
    mochi: tuple[Session, Offscreen],
) -> None:
    session, pictures = mochi
    sim = session.sim
    body = creature(sim, "mochi")
    centre, radius = centre_and_radius(sim, body)

    def face() -> tuple[FloatArray, int]:
        """The face's box (pixels around the centre) and how many pixels have the tears' colour."""
        picture = Picture(pictures.capture(), pictures)
        grid = np.stack(np.meshgrid(np.linspace(-0.7, 0.7, 113), np.linspace(-0.4, 0.6, 81)), -1)
        box = picture.at(centre + radius * grid.reshape(-1, 2))
        return box, int(near(picture.pixels, TEAR).sum())

    calm, calm_tears = face()
    assert not body.pressed and calm_tears == 0

    # the press tool's finger comes down on the top of the head and sinks in 30 px
    top = sim.stores.particles.pos[body.ring[body.head]]
    finger = (float(top[0]), float(top[1] + body.bead - 30.0))
    session.queue({"type": "mouse_press", "x": finger[0], "y": finger[1], "button": "left"})
    session.run(8)
    assert body.pressed
    crying, tears = face()
    assert tears > 60, f"only {tears} px of tears while pressed"
    changed = np.linalg.norm(crying - calm, axis=-1) > CLOSE
    assert changed.mean() > 0.03, "the face looks the same pressed"

    session.queue({"type": "mouse_release", "x": finger[0], "y": finger[1], "button": "left"})
    session.run(30)
    assert not body.pressed
    _, dried = face()
    assert dried == 0


def test_the_face_turns_with_the_body_of_a_creature_upside_down(sessions: Opened) -> None:
    session, pictures = open_level(sessions, CREATURES)
    sim = session.sim
    session.run(2)  # pip starts upside down: its head is at the bottom
    body = creature(sim, "pip")
    centre, radius = centre_and_radius(sim, body)
    picture = Picture(pictures.capture(), pictures)

    grid = np.stack(np.meshgrid(np.linspace(-0.6, 0.6, 61), np.linspace(-0.6, 0.6, 61)), -1).reshape(-1, 2)
    inside = grid[np.linalg.norm(grid, axis=1) < 0.6]
    ink = near(picture.at(centre + radius * inside), body.look.outline)
    above = int(ink[inside[:, 1] > 0.05].sum())
    below = int(ink[inside[:, 1] < -0.05].sum())
    assert below > 20 and above == 0, f"eyes and mouth: {above} px above the centre, {below} below"


def test_any_number_of_creatures_takes_the_same_three_draw_calls(sessions: Opened) -> None:
    counts = []
    for level in (CREATURE, CREATURES):
        session, pictures = open_level(sessions, level)
        session.run(2)
        pictures.capture()
        calls = draw_calls(pictures, "creatures")
        counts.append((sum(isinstance(body, SoftBody) for _, body in session.sim.bodies()), calls))
    assert counts == [(1, 3), (3, 3)]


@pytest.mark.parametrize(
    "events",
    [
        [(300, {"type": "mouse_press", "x": 640.0, "y": 10.0, "button": "left"})],  # down to the floor
        [(300 + f, {"type": "key_press", "key": "ENTER"}) for f in (0, 1, 3, 4, 6, 7, 9, 10, 11)],
    ],
    ids=["pressed-to-the-floor", "mashed-enter"],
)
def test_a_body_squashed_as_far_as_a_player_can_is_drawn_inside_its_outline(events) -> None:
    from support.worlds import inside

    from weft.systems.draw.creatures import body_frames, body_parts, build_layout
    from weft.systems.draw.faces import WHITE, face_rows

    session = Session(Simulation.load(CREATURE))
    body = creature(session.sim, "mochi")
    layout = build_layout([body])
    look = body.look
    colors = np.array([[look.outline, look.body, look.shade, look.cheeks, WHITE, TEAR]], dtype=np.float64)
    script = dict(events)
    for frame in range(420):
        if frame in script:
            session.queue(script[frame])
        session.advance()
        if frame < 300:
            continue
        pos = session.sim.stores.particles.pos
        fill, _ = body_parts(pos[body.ring][None], layout.bead, layout.size, colors[:, :3])
        fans = fill[0, :, :2].reshape(2, -1, 2)  # shade and lit: each its centre, then its outline
        for fan in fans:
            offsets = fan[1:] - fan[0]
            following = np.roll(offsets, -1, axis=0)
            turned = offsets[:, 0] * following[:, 1] - offsets[:, 1] * following[:, 0] <= 0.0
            # a fan triangle turned over paints outside the outline: wedges above a dented head
            assert not turned.any(), f"frame {frame}: {turned.sum()} fill triangles turned over"
        rows = face_rows(body_frames(pos, layout), colors[:, [0, 3, 4, 5]], np.array([body.pressed]))[0]
        shown = rows[rows[:, 10] > 0.0]
        ends = np.concatenate([shown[:, 0:2], shown[:, 2:4]]).astype(np.float64)
        assert inside(fans[0, 1:], ends).all(), f"frame {frame}: the face pokes out of the body"
    session.sim.close()
