"""How many threads a frame runs on: one for small scenes; for large ones whichever count the
clock says is faster, found by short trials, and never a change in the result."""

from __future__ import annotations

import itertools

import numba
import pytest

from weft.game.threads import (
    CROWDED_FRAMES,
    FIRST_TRIAL,
    KEPT_FRAMES,
    TRIAL_FRAMES,
    ThreadChoice,
    numba_threads,
)


def run(choice: ThreadChoice, frames: int, ms: dict[int, float]) -> list[int]:
    """Step ``frames`` frames of a large scene whose frame takes ``ms[threads]``; the counts used."""
    used = []
    for _ in range(frames):
        threads = choice.threads(large=True)
        used.append(threads)
        choice.record(True, ms[threads])
    return used


def test_a_small_scene_runs_on_one_thread_and_is_never_timed() -> None:
    choice = ThreadChoice(most=2)
    for _ in range(500):
        assert choice.threads(large=False) == 1
        choice.record(False, 0.05)
    assert choice.current == 1


def test_a_quiet_machine_moves_to_two_threads_after_the_first_trial() -> None:
    choice = ThreadChoice(most=2)
    used = run(choice, FIRST_TRIAL + KEPT_FRAMES + 50, {1: 6.8, 2: 5.3})  # the 5050-box pyramid, quiet
    assert used[0] == 1  # it starts on one
    assert choice.current == 2
    assert used[-1] == 2


def test_a_busy_machine_stays_on_one_thread_and_tries_two_for_one_frame_ever_more_rarely() -> None:
    choice = ThreadChoice(most=2)
    used = run(choice, 4000, {1: 8.0, 2: 210.0})  # measured with the other core busy
    assert choice.current == 1
    tries = [k for k, threads in enumerate(used) if threads == 2]
    assert len(tries) <= 8  # each trial ends after its first frame, and the waits double
    gaps = [b - a for a, b in itertools.pairwise(tries)]
    assert gaps == sorted(gaps)
    slow = len(tries) / len(used)
    assert slow < 0.05  # below the 95th percentile: the p95 frame stays a one-thread frame


def test_two_threads_that_get_crowded_fall_back_to_one_at_once() -> None:
    choice = ThreadChoice(most=2)
    run(choice, 200, {1: 6.8, 2: 5.3})
    assert choice.current == 2
    used = run(choice, CROWDED_FRAMES + TRIAL_FRAMES + 5, {1: 8.0, 2: 210.0})  # another program takes a core
    assert choice.current == 1
    assert used.count(2) <= CROWDED_FRAMES  # two slow frames noticed, then the trial of one thread wins


def test_one_slow_frame_on_two_threads_is_a_hiccup_and_they_stay() -> None:
    choice = ThreadChoice(most=2)
    run(choice, 200, {1: 6.8, 2: 5.3})
    assert choice.current == 2
    for _ in range(5):  # a collection now and then: one frame at a time, never two in a row
        assert run(choice, 1, {1: 6.8, 2: 30.0}) == [2]
        assert run(choice, 9, {1: 6.8, 2: 5.3}) == [2] * 9
    assert choice.current == 2


def test_a_pinned_count_is_kept_and_checked() -> None:
    choice = ThreadChoice(most=2)
    choice.pin(1)
    assert run(choice, 100, {1: 9.0, 2: 1.0}) == [1] * 100
    with pytest.raises(ValueError, match="threads: expected 1 to"):
        choice.pin(numba.config.NUMBA_NUM_THREADS + 1)


def test_the_thread_count_is_put_back_for_the_host_after_a_frame() -> None:
    before = numba.get_num_threads()
    with numba_threads(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before
