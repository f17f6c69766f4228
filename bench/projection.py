"""How near the distance kernel runs to this machine's limit: ns per thread-projection, and the floor.

A projection (``systems/kernels/distance.py``) loads its thread's two ends,
rest length and alive flag, the two ends' inverse masses and positions,
takes one square root and one division, and stores the two positions.
Two floors bound it on one core, each measured here on the very sheet:

- its loads and stores, made with the same addresses in the same order
  and no arithmetic but additions (``loads_and_stores``): a sheet's rows
  (``distance_rows``) as loops over consecutive points, the other
  threads through their indices;
- its square root and division, on the divider, in the two-lane form the
  kernel uses (``sqrt_and_divide``: numba vectorises that loop; the
  vector forms take about the same time per number at two lanes or four).

The limit is the larger of the two: the core overlaps the memory traffic
with the divider's work, but neither can go faster than it goes alone.
The kernel's own figure is the pass the frame runs (the ``distances``
system's kernel and arguments, on a copy of the positions), on one thread,
over the alive threads.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from weft.components import FRAME_DT
from weft.game.simulation import Simulation
from weft.game.threads import numba_threads
from weft.systems.kernels.distance_rows import ANY, COLUMNS
from weft.systems.schedule import Step

PASSES = 200
"""Passes timed of each: the median is kept."""


def projection_figures(sim: Simulation) -> dict[str, Any]:
    """ns per projection of the pass ``sim``'s frames run, and the two floors and the limit, ns."""
    stores = sim.stores
    distances, particles = stores.distances, stores.particles
    m = distances.count
    substeps = sim.settings.resolved_substeps()
    step = Step(substeps=substeps, iterations=sim.settings.iterations, dt=FRAME_DT / substeps)
    with sim.physics.entered():  # the pass the frames run, as the substep's first iteration finds it
        prepared = sim.schedule.get("distances").prepare(step)
    if prepared is None:
        raise ValueError("projection_figures: the scene has no threads")
    kernel, arguments = prepared
    pos = particles.pos.copy()
    alive = int(distances.alive[:m].sum())
    inv_mass, i, j, rest, live = (
        particles.inv_mass,
        distances.i[:m],
        distances.j[:m],
        distances.rest[:m],
        distances.alive[:m],
    )
    with numba_threads(1):
        projection = _median_ns(kernel, (pos, *arguments[1:])) / alive
    sides = stores.distance_sides
    runs = sides.runs if sides.split else np.array([[0, m, ANY]], dtype=np.int64)
    memory = _median_ns(loads_and_stores, (particles.pos.copy(), inv_mass, i, j, rest, live, runs)) / m
    lengths = np.ones(m)
    divider = _median_ns(sqrt_and_divide, (lengths, rest, np.full(m, 2.0), np.empty(m))) / m
    return {
        "projection_ns": round(projection, 2),
        "limit_ns": round(max(memory, divider), 2),
        "limit": f"one core: max(loads and stores {memory:.2f}, root and division {divider:.2f}) ns a thread",
    }


def _median_ns(kernel: Callable[..., Any], arguments: tuple[Any, ...]) -> float:
    kernel(*arguments)  # compiled, cached, warm
    times = []
    for _ in range(PASSES):
        started = time.perf_counter_ns()
        kernel(*arguments)
        times.append(time.perf_counter_ns() - started)
    return statistics.median(times)


@numba.njit(error_model="numpy")
def loads_and_stores(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
    runs: npt.NDArray[np.int64],
) -> None:
    """A pass's memory traffic alone: each thread's loads and stores, with additions for arithmetic,
    run by run (``runs`` ``(R, 3)``: first, last, shape) as the pass takes them. The rows' loops
    mirror ``distance_rows``' on purpose: the floor is theirs with the projection left out."""
    flat = pos.reshape(-1)
    _traffic_in_turn(pos, flat, flat, inv_mass, i, j, rest, alive, runs)


@numba.njit(error_model="numpy")
def _traffic_in_turn(
    pos: npt.NDArray[np.float64],
    top: npt.NDArray[np.float64],
    bottom: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
    runs: npt.NDArray[np.int64],
) -> None:
    """``distance._relax_runs_in_turn``'s loads and stores: a row with the positions as two
    arguments (``top``, ``bottom``: the vector loop tests once that its runs do not overlap)."""
    one = np.uint64(1)
    for r in range(runs.shape[0]):
        first, last, shape = runs[r, 0], runs[r, 1], runs[r, 2]
        if shape != COLUMNS:
            _indexed_traffic(pos, inv_mass, i[first:last], j[first:last], rest[first:last], alive[first:last])
            continue
        a, b, f = np.uint64(i[first]), np.uint64(j[first]), np.uint64(first)
        for k in range(np.uint64(last - first)):
            ta, tb, t = np.uint64(2) * (a + k), np.uint64(2) * (b + k), f + k
            step = (inv_mass[a + k] + inv_mass[b + k] + rest[t]) * alive[t]
            top[ta] += step
            top[ta + one] += step
            bottom[tb] -= step
            bottom[tb + one] -= step


@numba.njit(error_model="numpy")
def _indexed_traffic(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
) -> None:
    """Threads through their indices, as the pairs kernel loads them."""
    for c in range(i.shape[0]):
        if not alive[c]:
            continue
        a = i[c]
        b = j[c]
        step = inv_mass[a] + inv_mass[b] + rest[c]
        pos[a, 0] += step
        pos[a, 1] += step
        pos[b, 0] -= step
        pos[b, 1] -= step


@numba.njit(error_model="numpy")
def sqrt_and_divide(
    length2: npt.NDArray[np.float64],
    rest: npt.NDArray[np.float64],
    w: npt.NDArray[np.float64],
    s: npt.NDArray[np.float64],
) -> None:
    """A pass's divider work alone: ``s = (rest - |d|) / (w |d|)`` with ``|d| = sqrt(length2)``, on
    independent numbers (numba vectorises it)."""
    for c in range(s.shape[0]):
        length = math.sqrt(length2[c])
        s[c] = (rest[c] - length) / (w[c] * length)
