"""Tool forces: radial force fields (attract, repel) and blasts (explode)."""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.box_sleep import wake_island


@numba.njit(cache=True)
def push_radially(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    cx: float,
    cy: float,
    reach: float,
    force: float,
    dt: float,
) -> None:
    """Accelerate every free particle within ``reach`` px of (cx, cy) away from it (``force`` < 0: towards).

    The force falls off linearly to nothing at ``reach``; the acceleration is
    force × inverse mass, so light circles move further. Added to the
    position as ``a dt²``: Verlet turns it into velocity.
    """
    for k in range(pos.shape[0]):
        w = inv_mass[k]
        if w == 0.0:
            continue
        dx = pos[k, 0] - cx
        dy = pos[k, 1] - cy
        dist = math.sqrt(dx * dx + dy * dy)
        if dist >= reach or dist < 1e-9:
            continue
        scale = force * w * (1.0 - dist / reach) * dt * dt / dist
        pos[k, 0] += dx * scale
        pos[k, 1] += dy * scale


@numba.njit(cache=True)
def blast(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    cx: float,
    cy: float,
    reach: float,
    impulse: float,
    dt: float,
) -> None:
    """Give every free particle within ``reach`` px of (cx, cy) a kick straight away from it.

    The velocity change is impulse × inverse mass (px/s), falling off
    linearly to nothing at ``reach``; it is written into ``prev``, the
    Verlet velocity's other end, so positions do not jump.
    """
    for k in range(pos.shape[0]):
        w = inv_mass[k]
        if w == 0.0:
            continue
        dx = pos[k, 0] - cx
        dy = pos[k, 1] - cy
        dist = math.sqrt(dx * dx + dy * dy)
        if dist >= reach or dist < 1e-9:
            continue
        kick = impulse * w * (1.0 - dist / reach) * dt / dist
        prev[k, 0] -= dx * kick
        prev[k, 1] -= dy * kick


@numba.njit(cache=True)
def kick_boxes(
    pos: npt.NDArray[np.float64],
    angle: npt.NDArray[np.float64],
    half: npt.NDArray[np.float64],
    vel: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    asleep: npt.NDArray[np.bool_],
    island: npt.NDArray[np.int64],
    sleep_time: npt.NDArray[np.float64],
    cx: float,
    cy: float,
    reach: float,
    impulse: float,
    caught: float,
) -> None:
    """Change the velocity of every movable box whose centre is within ``reach`` px of (cx, cy),
    straight away from it (``impulse`` < 0 pulls), and wake a sleeping one with its island first.

    A box catches the push across its width, as a row of circles side by side would: the change
    is ``impulse`` × inverse mass × its width across the push over ``caught`` (the width a
    particle's ``impulse`` is for), falling off linearly to nothing at ``reach``. Given the
    particles' kick per body instead, a 36 px box (16.5 circles' mass) took a sixteenth of a
    circle's speed and barely left the floor. The width of a box at ``angle`` with half extents
    ``(hx, hy)`` across the unit direction ``u`` is ``2 (hx |n · x̂| + hy |n · ŷ|)``, ``n`` the
    normal of ``u`` and ``x̂``, ``ŷ`` the box's axes.

    A blast is one kick; a force field is a kick of ``force · dt`` every substep.
    """
    for k in range(pos.shape[0]):
        w = inv_mass[k]
        if w == 0.0:
            continue
        dx = pos[k, 0] - cx
        dy = pos[k, 1] - cy
        dist = math.sqrt(dx * dx + dy * dy)
        if dist >= reach or dist < 1e-9:
            continue
        if asleep[k]:
            wake_island(k, asleep, island, sleep_time)
        c = math.cos(angle[k])
        s = math.sin(angle[k])
        nx = -dy / dist  # the push's normal
        ny = dx / dist
        width = 2.0 * (half[k, 0] * abs(nx * c + ny * s) + half[k, 1] * abs(ny * c - nx * s))
        kick = impulse * w * (width / caught) * (1.0 - dist / reach) / dist
        vel[k, 0] += dx * kick
        vel[k, 1] += dy * kick
