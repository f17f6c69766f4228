"""The box-box and box-wall manifolds (``systems/kernels/box_manifold.py``) against cases worked by hand.

A box is (centre x, y, cos, sin of its angle, half width, half height). ``box_box`` returns
``(count, nx, ny, x0, y0, s0, f0, x1, y1, s1, f1)``: the normal from a to b, each point halfway between
the incident corner and the reference face, its separation (negative in overlap) and its feature key
``flip · 64 + reference face · 16 + incident face · 4 + end`` (faces 0 +x, 1 +y, 2 -x, 3 -y).
"""

from __future__ import annotations

import math

import pytest
from support.kernels import from_python

from weft.systems.kernels import box_manifold

# built for other kernels only (no wrapper for Python): copies a test can call
box_box = from_python(box_manifold.box_box)
box_plane = from_python(box_manifold.box_plane)


SQUARE = (1.0, 0.0, 10.0, 10.0)
"""cos, sin, half extents of an unturned 20 px square."""

EXACT = 1e-9
"""px: every case below is a few additions of exact binary fractions, or of √2 computed the same way."""


def test_a_square_resting_1_px_deep_on_another_has_two_points_on_the_lower_ones_top_face() -> None:
    # A's +y face is the reference (A's y axis separates best, and A is favoured over B on a tie);
    # B's -y face is incident; both of its corners lie within A's face, 1 px deep
    found = box_box(0.0, 0.0, *SQUARE, 0.0, 19.0, *SQUARE, 0.5)
    assert found == pytest.approx((2, 0.0, 1.0, -10.0, 9.5, -1.0, 28, 10.0, 9.5, -1.0, 29), abs=EXACT)
    assert found[6] == 0 * 64 + 1 * 16 + 3 * 4 + 0


def test_an_overhanging_square_is_clipped_to_the_reference_face() -> None:
    # B spans x 5..25 over A's top face (x -10..10): its far corner is clipped back to x = 10
    found = box_box(0.0, 0.0, *SQUARE, 15.0, 19.0, *SQUARE, 0.5)
    assert found == pytest.approx((2, 0.0, 1.0, 5.0, 9.5, -1.0, 28, 10.0, 9.5, -1.0, 29), abs=EXACT)


def test_a_clipped_corner_keeps_its_feature_key() -> None:
    # a thousandth of a px further right, B's right corner overhangs A and is clipped: the key names
    # the end of the edge, not the clipping, so a resting stack's points stay warm from step to step
    flush = box_box(0.0, 0.0, *SQUARE, 0.0, 19.0, *SQUARE, 0.5)
    clipped = box_box(0.0, 0.0, *SQUARE, 0.001, 19.0, *SQUARE, 0.5)
    assert (clipped[6], clipped[10]) == (flush[6], flush[10]) == (28, 29)
    assert clipped[7] == pytest.approx(10.0, abs=EXACT)  # the clipped point sits on A's side


def test_a_corner_poking_into_a_face_makes_the_other_box_the_reference_and_flips_the_key() -> None:
    # A turned 45° below an unturned 40 × 20 box B whose bottom face its top corner enters by 1 px.
    # Separations (px): along A's axes (d·u = D/√2 = 10 + 4.5√2) - 10 - 15√2 ≈ -14.85; along B's y,
    # D - 10 - 10√2 = -1 (the best, by more than the 0.2 px tolerance): B's -y face is the reference,
    # A's face 0 (the first of its two faces most opposed to -y) incident. Of that edge's two ends the
    # top corner is 1 px in; the other lies 13.1 px below B's face, beyond the margin.
    h = math.sqrt(0.5)
    height = 10.0 * math.sqrt(2.0) + 9.0
    found = box_box(0.0, 0.0, h, h, 10.0, 10.0, 0.0, height, 1.0, 0.0, 20.0, 10.0, 0.5)
    key = 1 * 64 + 3 * 16 + 0 * 4 + 1
    point_y = height - 10.0 + 0.5  # halfway between the corner (1 px in) and B's face
    assert found == pytest.approx((1, 0.0, 1.0, 0.0, point_y, -1.0, key, 0.0, 0.0, 0.0, 0), abs=1e-9)


def test_squares_apart_by_more_than_the_margin_have_no_manifold_and_within_it_speculative_points() -> None:
    assert box_box(0.0, 0.0, *SQUARE, 0.0, 25.0, *SQUARE, 4.0)[0] == 0  # a 5 px gap, margin 4
    # a 2 px gap within a 4 px margin: two points that may close but not push (separation +2)
    found = box_box(0.0, 0.0, *SQUARE, 0.0, 22.0, *SQUARE, 4.0)
    assert found == pytest.approx((2, 0.0, 1.0, -10.0, 11.0, 2.0, 28, 10.0, 11.0, 2.0, 29), abs=EXACT)


def test_swapping_the_boxes_reverses_the_normal_and_keeps_the_points() -> None:
    a_on_b = box_box(0.0, 0.0, *SQUARE, 15.0, 19.0, *SQUARE, 0.5)
    b_on_a = box_box(15.0, 19.0, *SQUARE, 0.0, 0.0, *SQUARE, 0.5)
    assert (b_on_a[1], b_on_a[2]) == pytest.approx((-a_on_b[1], -a_on_b[2]))
    # now the upper box is body a and its -y face (y = 9) the reference, the lower box's top edge
    # (y = 10) incident: halfway between is y = 9.5 again, and the clip to x 5..10 the same
    points = sorted([(b_on_a[3], b_on_a[4], b_on_a[5]), (b_on_a[7], b_on_a[8], b_on_a[9])])
    assert [v for point in points for v in point] == pytest.approx(
        [5.0, 9.5, -1.0, 10.0, 9.5, -1.0], abs=EXACT
    )
    assert (b_on_a[6] // 16 % 4, b_on_a[6] // 4 % 4) == (3, 1)  # reference face -y, incident +y


def test_a_square_on_the_floor_touches_with_its_two_bottom_corners() -> None:
    # the floor is the wall y >= 0 (m = (0, 1), offset 0); corners 2 (-x, -y) and 3 (+x, -y) are 1 px
    # under it, and each point sits halfway back to the wall
    found = box_plane(100.0, 9.0, *SQUARE, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0)
    assert found == pytest.approx((2, 90.0, -0.5, -1.0, 2, 110.0, -0.5, -1.0, 3), abs=EXACT)


def test_a_square_against_the_right_wall_touches_with_its_two_right_corners() -> None:
    # the right wall at x = 1280 is -x >= -1280: corners 0 (+x, +y) and 3 (+x, -y) are 1 px past it
    found = box_plane(1271.0, 300.0, *SQUARE, -1.0, 0.0, -1280.0, 1.0, 0.0, 0.0)
    assert found == pytest.approx((2, 1280.5, 310.0, -1.0, 0, 1280.5, 290.0, -1.0, 3), abs=EXACT)


def test_of_a_tilted_box_within_the_margin_the_wall_keeps_the_two_deepest_corners() -> None:
    angle = 0.1
    c, s = math.cos(angle), math.sin(angle)
    # corner = centre ± 10 (c, s) ± 10 (-s, c): the two lower ones are 2 (-, -) and 3 (+, -)
    low_left = (-10.0 * c + 10.0 * s, 10.0 - 10.0 * s - 10.0 * c)
    low_right = (10.0 * c + 10.0 * s, 10.0 + 10.0 * s - 10.0 * c)
    # every corner within the margin, and the box still
    found = box_plane(0.0, 10.0, c, s, 10.0, 10.0, 0.0, 1.0, 0.0, 100.0, 0.0, 0.0)
    expected = (
        2,
        low_left[0],
        low_left[1] / 2,
        low_left[1],
        2,
        low_right[0],
        low_right[1] / 2,
        low_right[1],
        3,
    )
    assert found == pytest.approx(expected, abs=1e-12)


def test_a_tumbling_card_keeps_the_corner_that_swings_into_the_wall() -> None:
    # a 60 x 4 card tilted 0.3 rad rests its low (-x) end on the floor while it turns about that end
    # at 120 rad/s (an explosion's kick): within a 1/240 s step its high end comes 11 px past the
    # floor. The deepest corners now are the resting end's (1 and 2); the swinging end's low corner (3)
    # ends the step deeper than both and replaces the one that ends shallower (1)
    c, s = math.cos(0.3), math.sin(0.3)
    turn = -120.0 / 240.0
    approach = turn * 30.0 * c  # the centre's speed about the resting end, along the floor's normal
    card = (0.0, 30.0 * s + 2.0 * c, c, s, 30.0, 2.0, 0.0, 1.0, 0.0, 100.0)
    resting = box_plane(*card, 0.0, 0.0)
    assert {resting[4], resting[8]} == {1, 2}
    tumbling = box_plane(*card, approach, turn)
    assert {tumbling[4], tumbling[8]} == {2, 3}
    assert max(tumbling[3], tumbling[7]) > 0.0  # reported at today's separation: the swinging end is above


def test_a_card_flying_flat_into_a_wall_keeps_its_long_face_however_it_spins() -> None:
    # a 5 x 90 card upright, 0.5 px from the left wall, flying at it at 950 px/s and turning at
    # 13.7 rad/s (seen in the fuzzer): its top far corner (0) ends the step deeper than its bottom
    # near one (2), but not deeper than both near ones, so the long face (1 and 2) stays; ranked by
    # where they end alone, the short top edge (0 and 1) was kept and the bottom slid through the wall
    dt = 1.0 / 240.0
    card = (3.0, 200.0, 1.0, 0.0, 2.5, 45.0, 1.0, 0.0, 0.0, 100.0)
    found = box_plane(*card, -950.0 * dt, 13.7 * dt)
    assert {found[4], found[8]} == {1, 2}


def test_a_falling_box_ranks_its_corners_by_depth_as_one_at_rest() -> None:
    # falling straight down moves every corner alike: the ranking is the one at rest
    angle = 0.1
    c, s = math.cos(angle), math.sin(angle)
    still = box_plane(0.0, 10.0, c, s, 10.0, 10.0, 0.0, 1.0, 0.0, 100.0, 0.0, 0.0)
    falling = box_plane(0.0, 10.0, c, s, 10.0, 10.0, 0.0, 1.0, 0.0, 100.0, -5.0, 0.0)
    assert falling == still


def test_a_box_further_from_the_wall_than_the_margin_has_no_points() -> None:
    assert box_plane(100.0, 30.0, *SQUARE, 0.0, 1.0, 0.0, 4.0, 0.0, 0.0)[0] == 0  # lowest corners 20 px up
