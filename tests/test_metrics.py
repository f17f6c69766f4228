"""The metrics contract: ``settled_frame`` is the first frame after which nothing moves more than 0.01 px a
frame, and a frame with no still frames after it to show it is not settled."""

from __future__ import annotations

from support.worlds import simulate

from weft.systems.metrics import SETTLE_DISTANCE, SETTLE_FRAMES, MetricsSystem

BALL = """
[world]
restitution = 0.0
[[balls]]
name = "ball"
radius = [10, 10]
positions = [[640, 60]]
"""


def metrics_with(moves: list[float]) -> MetricsSystem:
    metrics = MetricsSystem()
    for move in moves:
        metrics.record_move(move)
    return metrics


def test_a_frame_is_settled_only_with_half_a_second_of_still_frames_after_it() -> None:
    still = 0.1 * SETTLE_DISTANCE
    assert metrics_with([1.0] * 10 + [still] * SETTLE_FRAMES).settled_frame() == 10
    # only the last frame still: the old definition reported frame 10 of 11
    assert metrics_with([1.0] * 10 + [still]).settled_frame() is None
    assert metrics_with([1.0] * 10 + [still] * (SETTLE_FRAMES - 1)).settled_frame() is None
    assert metrics_with([still] * SETTLE_FRAMES).settled_frame() == 0  # nothing ever moved
    assert metrics_with([]).settled_frame() is None  # no frame run: nothing seen
    assert metrics_with([1.0] * 50).settled_frame() is None


def test_a_dropped_ball_settles_at_the_frame_it_stops_and_not_before_that_is_seen() -> None:
    sim = simulate(BALL)
    sim.step(120)
    settled = sim.metrics()["settled_frame"]
    assert settled is not None and 10 < settled < 90  # it falls 50 px, lands dead and lies still
    again = simulate(BALL)
    again.step(settled + 1)  # one still frame after it: not yet settled
    assert again.metrics()["settled_frame"] is None
    again.step(SETTLE_FRAMES - 1)
    assert again.metrics()["settled_frame"] == settled
