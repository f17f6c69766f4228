"""Rigid boxes, checked on real offscreen pictures (Mesa llvmpipe; no display, no GPU).

A box should read as its rotated rectangle in its set's colour, edged by a
darker outline, so that touching boxes of one colour stay apart; fixed boxes
look muted and blue-grey. The debug view dims sleeping boxes (each island
its own tint) and marks every contact point with a dot coloured by depth.
World points are mapped to pixels through the renderer's own fit.
"""

from __future__ import annotations

import os

os.environ["ARCADE_HEADLESS"] = "1"  # before anything imports arcade

import math

import numpy as np
import numpy.typing as npt
from support.pictures import LUMA, Picture, draw_calls, near
from support.sessions import Opened, open_level

from weft.game.level.values import rgba
from weft.systems.draw.boxes import DEPTH_COLORS

FloatArray = npt.NDArray[np.float64]

BACKGROUND = "#101010"
SAND = (214, 162, 92)
"""``#d6a25c``, the colour of the boxes below."""


def box_points(centre: npt.ArrayLike, angle: float, local: FloatArray) -> FloatArray:
    """World points ``(n, 2)`` of points ``local`` ``(n, 2)`` given in a box's own frame."""
    c, s = math.cos(angle), math.sin(angle)
    return np.asarray(centre) + local @ np.array([[c, s], [-s, c]])


def box_frame(points: FloatArray, centre: npt.ArrayLike, angle: float) -> FloatArray:
    """Points ``(..., 2)`` in a box's own frame: ``box_points`` undone."""
    c, s = math.cos(angle), math.sin(angle)
    return (points - np.asarray(centre)) @ np.array([[c, -s], [s, c]])


def level(boxes: str) -> str:
    """A level of ``boxes`` (its ``[[boxes]]`` tables) on the ``BACKGROUND``."""
    return f'[world]\nbackground = "{BACKGROUND}"\n{boxes}'


def test_a_box_turned_30_degrees_covers_its_rotated_rectangle_and_nothing_else(sessions: Opened) -> None:
    _, pictures = open_level(
        sessions,
        level(
            '[[boxes]]\nlayout = "list"\npositions = [[640, 360]]\nangles_deg = [30]\n'
            'size = [200, 100]\ncolors = ["#d6a25c"]'
        ),
    )
    picture = Picture(pictures.capture(), pictures)  # frame 0: the box has not started to fall
    angle, half = math.radians(30.0), np.array([100.0, 50.0])

    # inside, away from the outline and bevel: the fill colour everywhere
    grid = np.stack(np.meshgrid(np.linspace(-1, 1, 41), np.linspace(-1, 1, 21)), -1).reshape(-1, 2)
    inside = box_points((640, 360), angle, grid * (half - 6.0))
    assert near(picture.at(inside), SAND).all(), "the fill does not cover the rotated rectangle"

    # a band 3 to 12 px outside the rectangle all round: the background everywhere
    around = np.array(
        [(x, y) for x in np.linspace(-1, 1, 41) for y in (-1, 1)]
        + [(x, y) for y in np.linspace(-1, 1, 21) for x in (-1, 1)]
    )
    for margin in (3.0, 12.0):
        outside = box_points((640, 360), angle, around * (half + margin))
        assert near(picture.at(outside), rgba(BACKGROUND)).all(), f"paint {margin:.0f} px outside the box"

    # the corners are where the turned box has them, not where an upright one would
    corners = np.array([(1, 1), (-1, 1), (-1, -1), (1, -1)], dtype=np.float64)
    turned = picture.at(box_points((640, 360), angle, corners * (half - 3.0)))
    upright = picture.at(np.array([640.0, 360.0]) + corners * (half - 3.0))
    assert not near(turned, rgba(BACKGROUND)).any(), "a corner of the turned box is missing"
    assert near(upright, rgba(BACKGROUND)).sum() >= 2, "the box is drawn upright"


def test_the_outline_is_a_darker_shade_of_the_fill_on_every_side(sessions: Opened) -> None:
    _, pictures = open_level(
        sessions,
        level(
            '[[boxes]]\nlayout = "list"\npositions = [[640, 360]]\nangles_deg = [10]\n'
            'size = [120, 80]\ncolors = ["#d6a25c"]'
        ),
    )
    picture = Picture(pictures.capture(), pictures)
    angle, half = math.radians(10.0), np.array([60.0, 40.0])
    fill = float(np.array(SAND) @ LUMA)

    # every pixel centre in the box's frame, and its distance to the rectangle (< 0 inside)
    local = box_frame(picture.centres(), (640, 360), angle)
    q = np.abs(local) - half
    inside = q.max(axis=-1) < 0.0
    distance = np.where(inside, q.max(axis=-1), np.linalg.norm(np.maximum(q, 0.0), axis=-1))
    nearest_side = np.where(q[..., 0] > q[..., 1], np.sign(local[..., 0]), 2.0 * np.sign(local[..., 1]))
    for side in (1.0, -1.0, 2.0, -2.0):
        # pixels whose centre lies 0.5 to 1 px inside the edge are wholly outline (1.5 px wide)
        band = (distance > -1.0) & (distance < -0.5) & (nearest_side == side)
        assert band.sum() > 20
        colors = picture.pixels[band]
        shade = (colors @ LUMA) / fill
        assert 0.5 < np.median(shade) < 0.75, f"outline at {np.median(shade):.2f} of the fill on side {side}"
        hue = near(colors, np.outer(shade, SAND), 15.0).mean()
        assert hue > 0.9, f"the outline on side {side} is not the fill's colour darkened ({hue:.0%})"
    assert (picture.pixels[distance < -6.0] @ LUMA).min() > 0.8 * fill, "the fill darkens away from the edge"


def test_two_stacked_boxes_of_one_colour_are_parted_by_their_outlines(sessions: Opened) -> None:
    session, pictures = open_level(
        sessions,
        level('[[boxes]]\nlayout = "stack"\ncount = 2\nbase = [640, 0]\ngap = 0\ncolors = ["#d6a25c"]'),
    )
    session.run(30)
    rigid = session.sim.stores.rigid
    low, high = rigid.pos[0], rigid.pos[1]
    picture = Picture(pictures.capture(), pictures)
    # straight up from the lower box's middle to the upper one's, a quarter px at a time
    ys = np.arange(low[1], high[1], 0.25)
    line = picture.luminance_at(np.column_stack([np.full(len(ys), low[0]), ys]))
    fill = float(np.array(SAND) @ LUMA)
    seam = 0.5 * (low[1] + high[1])
    dark = ys[line < 0.75 * fill]
    assert len(dark), "nothing darker than the fill between the boxes"
    assert abs(dark.mean() - seam) < 1.5, (
        f"the dark line sits at y = {dark.mean():.1f}, the seam at {seam:.1f}"
    )
    assert 1.5 <= np.ptp(dark) + 0.25 <= 6.0, f"the seam is {np.ptp(dark) + 0.25:.2f} px wide (two outlines)"


def test_fixed_boxes_are_a_muted_grey_blue_of_their_colour(sessions: Opened) -> None:
    _, pictures = open_level(
        sessions,
        level(
            '[[boxes]]\nname = "shelf"\nlayout = "list"\npositions = [[400, 300]]\nsize = [200, 40]\n'
            'fixed = true\ncolors = ["#d6a25c"]\n'
            '[[boxes]]\nname = "free"\nlayout = "list"\npositions = [[900, 300]]\nsize = [200, 40]\n'
            'colors = ["#d6a25c"]'
        ),
    )
    picture = Picture(pictures.capture(), pictures)
    fixed, free = picture.at([[400, 300], [900, 300]])
    assert near(free, SAND).all()
    assert fixed[2] > fixed[0], f"the fixed box {fixed} is not bluer than red"
    saturation = (fixed.max() - fixed.min()) / fixed.max()
    assert saturation < 0.5 * (max(SAND) - min(SAND)) / max(SAND), f"the fixed box {fixed} is not muted"


RESTING = level(
    '[[boxes]]\nname = "shelf"\nlayout = "list"\npositions = [[640, 300]]\nsize = [400, 20]\nfixed = true\n'
    'colors = ["#6a7a8a"]\n'
    '[[boxes]]\nname = "box"\nlayout = "list"\npositions = [[600, 330]]\nsize = [60, 40]\n'
    'colors = ["#d6a25c"]'
)
"""A box resting on a fixed shelf in the middle of the picture: its two contact points are on show."""


def test_the_debug_view_marks_each_contact_point_with_a_dot_coloured_by_its_depth(sessions: Opened) -> None:
    session, pictures = open_level(sessions, RESTING)
    session.run(10)  # settled, not yet asleep: sleeping boxes have no contacts
    contacts = session.sim.stores.contacts
    assert contacts.count == 2
    points = contacts.point[: contacts.count].copy()
    plain = Picture(pictures.capture(), pictures)
    session.debug = True
    debug = Picture(pictures.capture(), pictures)

    touching, red = DEPTH_COLORS[0], DEPTH_COLORS[-1]
    assert near(debug.at(points), touching).all(), f"contact points show {debug.at(points)}, not green"
    assert not near(plain.at(points), touching).any()
    # everything the debug view adds is close to a contact point (dots and 12 px normals)
    changed = np.argwhere(np.linalg.norm(debug.pixels - plain.pixels, axis=-1) > 30.0)
    window = pictures.renderer.to_window(points)
    xy = np.column_stack([changed[:, 1] + 0.5, debug.pixels.shape[0] - changed[:, 0] - 0.5])
    distance = np.linalg.norm(xy[:, None] - window[None], axis=-1).min(axis=1)
    assert len(changed) > 20 and distance.max() < 16.0, f"debug marks {distance.max():.0f} px from contacts"

    # the same points sunk 2 px into the shelf: red dots, and bigger ones
    green_dots = int(near(debug.pixels, touching).sum())
    contacts.gap[: contacts.count] = -2.0
    deep = Picture(pictures.capture(), pictures)
    assert near(deep.at(points), red).all(), f"overlapping points show {deep.at(points)}, not red"
    assert int(near(deep.pixels, red).sum()) > 1.3 * green_dots, "the dots do not grow with the overlap"


def test_the_debug_view_dims_sleeping_boxes_and_tints_each_island_its_own_way(sessions: Opened) -> None:
    session, pictures = open_level(
        sessions,
        level(
            '[[boxes]]\nname = "left"\nlayout = "stack"\ncount = 3\nbase = [400, 0]\ncolors = ["#d6a25c"]\n'
            '[[boxes]]\nname = "right"\nlayout = "stack"\ncount = 3\nbase = [880, 0]\ncolors = ["#d6a25c"]'
        ),
    )
    session.debug = True
    rigid = session.sim.stores.rigid
    awake = Picture(pictures.capture(), pictures).at(rigid.pos[:6])
    assert near(awake, SAND).all(), "awake boxes are dimmed in the debug view"

    session.run(120)
    assert rigid.asleep[:6].all(), "the stacks did not fall asleep in 120 frames"
    assert len(set(rigid.island[:6].tolist())) == 2
    middles = rigid.pos[:6].copy()
    session.debug = False
    plain = Picture(pictures.capture(), pictures).at(middles)
    session.debug = True
    dimmed = Picture(pictures.capture(), pictures).at(middles)
    assert near(plain, SAND).all(), "sleeping boxes change colour outside the debug view"
    assert (dimmed @ LUMA < 0.8 * (plain @ LUMA)).all(), f"sleeping boxes are not dimmed: {dimmed @ LUMA}"
    # one tint per island: the same colour within a stack, different between the two
    assert np.abs(dimmed[:3] - dimmed[0]).max() < 3.0 and np.abs(dimmed[3:] - dimmed[3]).max() < 3.0
    assert np.linalg.norm(dimmed[0] - dimmed[3]) > 15.0, "the two islands are tinted alike"


def test_any_number_of_boxes_takes_one_draw_call_and_their_contacts_one_more(
    sessions: Opened,
) -> None:
    counts = []
    for boxes in ('[[boxes]]\nlayout = "stack"\ncount = 1', '[[boxes]]\nlayout = "pyramid"\ncount = 10'):
        session, pictures = open_level(sessions, level(boxes))
        session.run(2)
        pictures.capture()
        for debug in (False, True):
            session.debug = debug
            counts.append((session.sim.stores.rigid.count, debug, draw_calls(pictures, "box_sprites", debug)))
        assert session.sim.stores.contacts.count > 0
    assert counts == [(1, False, 1), (1, True, 2), (55, False, 1), (55, True, 2)]
