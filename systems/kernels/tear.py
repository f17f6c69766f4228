"""Breaking threads: by overload, by a cut stroke, and with the threads they lean on."""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.jit import INNER


@numba.njit(cache=True, **INNER)
def tear_overstretched(
    pos: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    tear_ratio: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
) -> int:
    """Kill every alive thread longer than ``tear_ratio * rest``; return how many broke.

    Run after relaxation: a thread still that long carries a load the
    solver could not spread, and once it goes its load falls on the
    neighbours, so tears run along the line of stress. A thread that never
    tears (ratio infinite) needs no test of its own: nothing is longer than
    infinity. The positions are read as one flat array, whose indices are
    shifts where ``pos[k, 0]`` multiplies by the row's stride (11 -> 8.6 µs
    for the 80 × 50 sheet's 7870 threads).
    """
    flat = pos.reshape(-1)  # x at 2k, y at 2k + 1
    torn = 0
    for c in range(i.shape[0]):
        a = np.uint64(2) * np.uint64(i[c])
        b = np.uint64(2) * np.uint64(j[c])
        dx = flat[a] - flat[b]
        dy = flat[a + np.uint64(1)] - flat[b + np.uint64(1)]
        limit = tear_ratio[c] * rest[c]
        if alive[c] and dx * dx + dy * dy > limit * limit:
            alive[c] = False
            torn += 1
    return torn


@numba.njit(cache=True)
def break_overstretched(
    pos: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
    tear_ratio: npt.NDArray[np.float64],
    parents: npt.NDArray[np.int64],
) -> int:
    """``tear_overstretched``, then, if any thread broke, ``kill_orphans``: the tear system's
    step. Returns how many threads broke by overload."""
    torn = tear_overstretched(pos, i, j, rest, tear_ratio, alive)
    if torn:
        kill_orphans(alive, parents)
    return torn


@numba.njit(cache=True)
def kill_orphans(alive: npt.NDArray[np.bool_], parents: npt.NDArray[np.int64]) -> int:
    """Kill every alive thread that leans on a dead one (``parents`` ``(M, 4)``, -1 unused).

    Shear and bend threads never tear on their own; without this a torn
    sheet would stay joined by its invisible diagonals.
    """
    killed = 0
    for c in range(alive.shape[0]):
        if not alive[c]:
            continue
        for slot in range(parents.shape[1]):
            p = parents[c, slot]
            if p >= 0 and not alive[p]:
                alive[c] = False
                killed += 1
                break
    return killed


@numba.njit(cache=True, **INNER)
def _cross(ax: float, ay: float, bx: float, by: float) -> float:
    return ax * by - ay * bx


@numba.njit(cache=True, **INNER)
def _blade_on_thread(
    u: float,
    ex: float,
    ey: float,
    vex: float,
    vey: float,
    rx: float,
    ry: float,
    vrx: float,
    vry: float,
) -> bool:
    """Whether at ``u`` the blade ``a + r(u)`` lies between the thread's ends ``a`` and ``a + e(u)``."""
    if u < 0.0 or u > 1.0:
        return False
    ex += vex * u
    ey += vey * u
    rx += vrx * u
    ry += vry * u
    length2 = ex * ex + ey * ey
    if length2 < 1e-24:
        return rx * rx + ry * ry < 1e-12
    along = (rx * ex + ry * ey) / length2
    return -1e-9 <= along <= 1.0 + 1e-9


@numba.njit(cache=True)
def sweep_cut(
    then: npt.NDArray[np.float64],
    now: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    alive: npt.NDArray[np.bool_],
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    t0: float,
    t1: float,
) -> int:
    """Kill every alive thread the blade's tip crosses on its way from (x0, y0) to (x1, y1); return how many.

    The blade moves along the segment while the cloth moves from where it
    was (``then``, when the stroke's last event came) to where it is
    (``now``): over this segment the time runs from ``t0`` to ``t1`` (shares
    of that interval), and both are taken to move in straight lines, as
    continuous collision does. With ``u`` in [0, 1] along the segment, the
    tip is ``c(u) = p0 + u (p1 - p0)`` and a thread's ends ``a(u)``, ``b(u)``
    move linearly too, so the tip is on the thread's line where

        (b - a)(u) × (c - a)(u) = 0,

    a quadratic in ``u`` (linear when the cloth is still, which is the
    crossing of two segments). A thread is cut at a root where the tip lies
    between its ends (a touch at an end counts). So the cut of a stroke
    whose events come frames apart starts where the last one ended in the
    cloth, however it moved meanwhile: the cut line has no gaps.
    Shapes: ``then``, ``now`` ``(N, 2)``; the thread arrays ``(M,)``.
    """
    dx = x1 - x0
    dy = y1 - y0
    span = t1 - t0
    box_x0 = min(x0, x1)
    box_x1 = max(x0, x1)
    box_y0 = min(y0, y1)
    box_y1 = max(y0, y1)
    cut = 0
    for c in range(i.shape[0]):
        if not alive[c]:
            continue
        a = i[c]
        b = j[c]
        # the ends at the segment's start, and how far they move over it
        ax = then[a, 0] + (now[a, 0] - then[a, 0]) * t0
        ay = then[a, 1] + (now[a, 1] - then[a, 1]) * t0
        bx = then[b, 0] + (now[b, 0] - then[b, 0]) * t0
        by = then[b, 1] + (now[b, 1] - then[b, 1]) * t0
        vax = (now[a, 0] - then[a, 0]) * span
        vay = (now[a, 1] - then[a, 1]) * span
        vbx = (now[b, 0] - then[b, 0]) * span
        vby = (now[b, 1] - then[b, 1]) * span
        if max(ax, ax + vax, bx, bx + vbx) < box_x0 or min(ax, ax + vax, bx, bx + vbx) > box_x1:
            continue
        if max(ay, ay + vay, by, by + vby) < box_y0 or min(ay, ay + vay, by, by + vby) > box_y1:
            continue
        ex = bx - ax
        ey = by - ay
        vex = vbx - vax
        vey = vby - vay
        rx = x0 - ax
        ry = y0 - ay
        vrx = dx - vax
        vry = dy - vay
        # f(u) = k0 + k1 u + k2 u²
        k0 = _cross(ex, ey, rx, ry)
        k1 = _cross(ex, ey, vrx, vry) + _cross(vex, vey, rx, ry)
        k2 = _cross(vex, vey, vrx, vry)
        crossed = False
        if k0 == 0.0:
            crossed = _blade_on_thread(0.0, ex, ey, vex, vey, rx, ry, vrx, vry)
        if not crossed and k0 + k1 + k2 == 0.0:
            crossed = _blade_on_thread(1.0, ex, ey, vex, vey, rx, ry, vrx, vry)
        if not crossed:
            scale = abs(k0) + abs(k1) + abs(k2)
            if abs(k2) > 1e-12 * scale:
                disc = k1 * k1 - 4.0 * k2 * k0
                if disc >= 0.0:
                    root = math.sqrt(disc)
                    # the stable pair of roots (no cancellation between k1 and the root)
                    q = -0.5 * (k1 + math.copysign(root, k1))
                    crossed = _blade_on_thread(q / k2, ex, ey, vex, vey, rx, ry, vrx, vry)
                    if not crossed and q != 0.0:
                        crossed = _blade_on_thread(k0 / q, ex, ey, vex, vey, rx, ry, vrx, vry)
            elif k1 != 0.0:
                crossed = _blade_on_thread(-k0 / k1, ex, ey, vex, vey, rx, ry, vrx, vry)
        if crossed:
            alive[c] = False
            cut += 1
    return cut
