"""Sleeping boxes: islands of touching boxes that have all been slow for a while stop being simulated."""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.box_grid import farthest_move
from weft.systems.kernels.jit import INNER


@numba.njit(cache=True, **INNER)
def _root(parent: npt.NDArray[np.int64], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@numba.njit(cache=True)
def fall_asleep(
    vel: npt.NDArray[np.float64],
    omega: npt.NDArray[np.float64],
    half: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    sleep_time: npt.NDArray[np.float64],
    asleep: npt.NDArray[np.bool_],
    island: npt.NDArray[np.int64],
    c_a: npt.NDArray[np.int64],
    c_b: npt.NDArray[np.int64],
    dt: float,
    sleep_speed: float,
    sleep_delay: float,
    held: int,
) -> int:
    """Advance the sleep timers by ``dt``; put to sleep each island whose boxes all waited long enough.

    A box is slow while its fastest point (centre speed plus spin times half
    diagonal) stays under ``sleep_speed``; the box ``held`` (by the mouse,
    or -1) never is. Islands join awake boxes through the contact rows
    (walls and fixed boxes join nothing). A sleeping island's boxes stop,
    and remember the island (its lowest box index) so that a touch wakes
    all of it. Returns how many boxes fell asleep.
    """
    n = vel.shape[0]
    parent = np.arange(n)
    for i in range(n):
        if asleep[i] or inv_mass[i] == 0.0:
            continue
        speed = farthest_move(vel[i, 0], vel[i, 1], omega[i], half[i, 0], half[i, 1])
        if speed > sleep_speed or i == held:
            sleep_time[i] = 0.0
        else:
            sleep_time[i] += dt
    for k in range(c_a.shape[0]):
        a = c_a[k]
        b = c_b[k]
        if b < 0 or inv_mass[a] == 0.0 or inv_mass[b] == 0.0 or asleep[a] or asleep[b]:
            continue
        ra = _root(parent, a)
        rb = _root(parent, b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    # an island may sleep when its least rested box may
    least = np.full(n, math.inf)
    for i in range(n):
        if asleep[i] or inv_mass[i] == 0.0:
            continue
        r = _root(parent, i)
        least[r] = min(least[r], sleep_time[i])
    slept = 0
    for i in range(n):
        if asleep[i] or inv_mass[i] == 0.0:
            continue
        r = _root(parent, i)
        if least[r] >= sleep_delay:
            asleep[i] = True
            island[i] = r
            vel[i, 0] = 0.0
            vel[i, 1] = 0.0
            omega[i] = 0.0
            slept += 1
    return slept


@numba.njit(cache=True)
def wake_island(
    body: int,
    asleep: npt.NDArray[np.bool_],
    island: npt.NDArray[np.int64],
    sleep_time: npt.NDArray[np.float64],
) -> None:
    """Wake every box that fell asleep with ``body`` (nothing if it is awake)."""
    if not asleep[body]:
        return
    which = island[body]
    for i in range(asleep.shape[0]):
        if asleep[i] and island[i] == which:
            asleep[i] = False
            island[i] = -1
            sleep_time[i] = 0.0


@numba.njit(cache=True)
def wake_touched(
    pair_a: npt.NDArray[np.int64],
    pair_b: npt.NDArray[np.int64],
    inv_mass: npt.NDArray[np.float64],
    asleep: npt.NDArray[np.bool_],
    island: npt.NDArray[np.int64],
    sleep_time: npt.NDArray[np.float64],
) -> int:
    """Wake the island of every sleeping box an awake box may touch (the broadphase listed them);
    return how many islands woke (their own pairs must then be listed again)."""
    woke = 0
    for p in range(pair_a.shape[0]):
        a = pair_a[p]
        b = pair_b[p]
        a_moves = inv_mass[a] > 0.0 and not asleep[a]
        b_moves = inv_mass[b] > 0.0 and not asleep[b]
        if a_moves and asleep[b]:
            wake_island(b, asleep, island, sleep_time)
            woke += 1
        elif b_moves and asleep[a]:
            wake_island(a, asleep, island, sleep_time)
            woke += 1
    return woke
