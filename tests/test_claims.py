"""Items claimed by whichever thread comes first, and counts waited for (``claims``): every phase
sees the whole of the phase before it, on two threads as on one, and nothing waits for a thread that
never comes."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from weft.game.threads import numba_threads
from weft.systems.kernels.claims import LINE, claim, count_one, new_counters, wait_until

PHASES = 4000
WIDTH = 2
"""Items a phase: each writes its own slot of the next row from the whole of the row before."""
DONE = 0
"""The count of items finished; the items' claims start a cache line after it."""


@numba.njit(parallel=True)
def chained_phases(rows: np.ndarray, taken_by: np.ndarray) -> None:
    """Row ``p + 1``'s slot ``s`` from every slot of row ``p``: an item that read before the phase
    before it was done would read a row still being written (zeros, or half of it)."""
    counters = new_counters(LINE + PHASES * WIDTH)
    for _ in numba.prange(2):
        for item in range(PHASES * WIDTH):
            if not claim(counters, LINE + item):
                continue
            phase, slot = item // WIDTH, item % WIDTH
            wait_until(counters, DONE, phase * WIDTH)
            mixed = 0.0
            for k in range(WIDTH):
                mixed += rows[phase, k] * (1.0 + 0.25 * k)
            for _turn in range(50):  # work enough that the two threads overlap in a phase
                mixed = 0.5 * mixed + 0.5 * np.sqrt(mixed + slot + 1.0)
            rows[phase + 1, slot] = mixed
            taken_by[item] = numba.get_thread_id()
            count_one(counters, DONE)


def run(threads: int) -> tuple[np.ndarray, np.ndarray]:
    rows = np.zeros((PHASES + 1, WIDTH))
    rows[0] = 1.0
    taken_by = np.full(PHASES * WIDTH, -1)
    with numba_threads(threads):
        chained_phases(rows, taken_by)
    return rows, taken_by


def test_each_phase_reads_the_whole_phase_before_on_two_threads_as_on_one() -> None:
    expected, alone = run(1)
    assert (alone == 0).all()  # one thread took every item, and never waited on itself
    for _ in range(5):
        got, taken_by = run(min(2, numba.config.NUMBA_NUM_THREADS))
        np.testing.assert_array_equal(got, expected)
        assert (taken_by >= 0).all()  # every item was taken once


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="one thread only")
def test_both_threads_take_items() -> None:
    # over a few runs the worker wakes in time for some of the 8000 items
    taken = np.concatenate([run(2)[1] for _ in range(5)])
    assert set(np.unique(taken)) == {0, 1}
