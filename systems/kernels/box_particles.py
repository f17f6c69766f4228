"""Particles against boxes: circles, cloth points and creature skins pushed out of boxes, and the boxes back.

Particles are positions (Verlet), boxes velocities, so a contact is solved
as a position constraint on both (PBD): the overlap is shared by inverse
mass, the box's share including how far the push turns it, and what the
box is moved it also gains as velocity (``Δx / h``), as a position-based
body would. Friction takes back the relative sliding of the substep, at
most ``μ`` times the overlap.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.box_braces import FREE, HELD, SLIDES, brace_push
from weft.systems.kernels.box_grid import Grid, extent, window_cell
from weft.systems.kernels.box_sleep import wake_island
from weft.systems.kernels.jit import INNER


@numba.njit(cache=True)
def list_near_boxes(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    kind: npt.NDArray[np.uint8],
    box_pos: npt.NDArray[np.float64],
    box_angle: npt.NDArray[np.float64],
    box_half: npt.NDArray[np.float64],
    margin: float,
    large_count: int,
    cells: Grid,
    large_cells: Grid,
    out_particle: npt.NDArray[np.int64],
    out_box: npt.NDArray[np.int64],
) -> int:
    """List (particle, box) pairs whose bounding boxes overlap: the box's, and the particle's path over
    the substep (``prev`` to ``pos``) grown by its radius and ``margin``.

    Particles without a radius that are plain points (creature legs) take
    no part. Each grid (the ordinary boxes', and the ``large_count`` large
    ones', ``RigidStore.large``) holds box centres in cells at least as
    wide as its boxes' reach plus a particle's, so the cells the path spans
    and one more all round hold every box it can touch. Returns the pair
    count (only the count, when it exceeds the ``out_`` rows).
    """
    count = 0
    grids = 2 if large_count else 1
    for k in range(pos.shape[0]):
        if kind[k] == 0 and radius[k] <= 0.0:
            continue
        x0 = min(pos[k, 0], prev[k, 0])
        x1 = max(pos[k, 0], prev[k, 0])
        y0 = min(pos[k, 1], prev[k, 1])
        y1 = max(pos[k, 1], prev[k, 1])
        reach = radius[k] + margin
        # both grids in this loop, not in a helper given the arrays: such a call takes a reference to
        # each (an atomic count), once a particle and grid (24 ms a frame for 50000 particles)
        for g in range(grids):
            grid = large_cells if g else cells
            cols, rows, cell_start, order = grid[7], grid[8], grid[10], grid[11]
            cx0, cy0 = window_cell(x0, y0, grid[:7])
            cx1, cy1 = window_cell(x1, y1, grid[:7])
            for ny in range(max(cy0 - 1, 0), min(cy1 + 2, rows)):
                for nx in range(max(cx0 - 1, 0), min(cx1 + 2, cols)):
                    n = ny * cols + nx
                    for slot in range(cell_start[n], cell_start[n + 1]):
                        j = order[slot]
                        c, s = math.cos(box_angle[j]), math.sin(box_angle[j])
                        ex, ey = extent(c, s, box_half[j, 0], box_half[j, 1])
                        if x0 - box_pos[j, 0] > ex + reach or box_pos[j, 0] - x1 > ex + reach:
                            continue
                        if y0 - box_pos[j, 1] > ey + reach or box_pos[j, 1] - y1 > ey + reach:
                            continue
                        if count < out_particle.shape[0]:
                            out_particle[count] = k
                            out_box[count] = j
                        count += 1
    return count


@numba.njit(cache=True)
def sweep_into_boxes(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    box_pos: npt.NDArray[np.float64],
    box_angle: npt.NDArray[np.float64],
    box_vel: npt.NDArray[np.float64],
    box_omega: npt.NDArray[np.float64],
    box_inv_mass: npt.NDArray[np.float64],
    box_inv_inertia: npt.NDArray[np.float64],
    box_half: npt.NDArray[np.float64],
    asleep: npt.NDArray[np.bool_],
    island: npt.NDArray[np.int64],
    sleep_time: npt.NDArray[np.float64],
    pair_particle: npt.NDArray[np.int64],
    pair_box: npt.NDArray[np.int64],
    h: float,
) -> int:
    """Stop each particle that would pass a listed box within the substep where it first touches it;
    return how many.

    The push-out (``push_out_of_boxes``) sees only where a particle ends:
    one that moved past a box's middle in a substep is pushed out of the
    far side, and a fast one is not even listed inside it (a radius-5
    circle at 10 000 px/s went through an 8 px plank). So a particle that
    moved, relative to the box, more than half its radius plus the box's
    thinner half extent is swept: its path, in the box's frame, against
    the box grown by its radius (slabs; the corners are square, so a
    grazing circle may stop a little early). At the first touch it stops,
    and the closing speed along the face it hit is shared between the two
    as an inelastic touch (the box's share turns it too); its slide along
    the face is kept. Verlet velocities are ``pos - prev``, so they are
    written through ``prev``. A sleeping box is woken: anything this fast
    is faster than ``WAKE_SPEED``.
    """
    stopped = 0
    for p in range(pair_particle.shape[0]):
        k = pair_particle[p]
        j = pair_box[p]
        if inv_mass[k] == 0.0:
            continue
        r = radius[k]
        hx = box_half[j, 0] + r
        hy = box_half[j, 1] + r
        # the particle's move relative to the box, and where it began, in the box's frame
        dx = (pos[k, 0] - prev[k, 0]) - h * box_vel[j, 0]
        dy = (pos[k, 1] - prev[k, 1]) - h * box_vel[j, 1]
        thin = 0.5 * (r + min(box_half[j, 0], box_half[j, 1]))
        if dx * dx + dy * dy <= thin * thin:
            continue
        c = math.cos(box_angle[j])
        s = math.sin(box_angle[j])
        ox = (pos[k, 0] - dx) - box_pos[j, 0]
        oy = (pos[k, 1] - dy) - box_pos[j, 1]
        lx = c * ox + s * oy
        ly = -s * ox + c * oy
        if abs(lx) < hx and abs(ly) < hy:
            continue  # already touching when the substep began: the push-out's
        ldx = c * dx + s * dy
        ldy = -s * dx + c * dy
        # slabs: the latest entry over the two axes, the earliest exit
        enter = 0.0
        leave = 1.0
        face_x = 0.0
        face_y = 0.0
        for axis in range(2):
            start = lx if axis == 0 else ly
            move = ldx if axis == 0 else ldy
            half = hx if axis == 0 else hy
            if abs(move) < 1e-12:
                if abs(start) >= half:
                    leave = -1.0  # alongside, never inside
                continue
            t0 = (-half - start) / move
            t1 = (half - start) / move
            if t0 > t1:
                t0, t1 = t1, t0
            if t0 > enter:
                enter = t0
                face_x = (-1.0 if move > 0.0 else 1.0) if axis == 0 else 0.0
                face_y = 0.0 if axis == 0 else (-1.0 if move > 0.0 else 1.0)
            leave = min(leave, t1)
        if enter > leave or leave < 0.0 or (face_x == 0.0 and face_y == 0.0):
            continue
        # the touch: where the particle is then, the face's normal (out of the box) in the world
        nx = c * face_x - s * face_y
        ny = s * face_x + c * face_y
        tx = pos[k, 0] - dx + enter * dx + h * box_vel[j, 0]
        ty = pos[k, 1] - dy + enter * dy + h * box_vel[j, 1]
        closing = dx * nx + dy * ny  # < 0: into the face
        if asleep[j]:
            wake_island(j, asleep, island, sleep_time)
        wp = inv_mass[k]
        rx = tx - r * nx - box_pos[j, 0]
        ry = ty - r * ny - box_pos[j, 1]
        turn = rx * ny - ry * nx
        wb = box_inv_mass[j] + box_inv_inertia[j] * turn * turn
        share = closing / (wp + wb)
        move_x = pos[k, 0] - prev[k, 0] - wp * share * nx
        move_y = pos[k, 1] - prev[k, 1] - wp * share * ny
        pos[k, 0] = tx
        pos[k, 1] = ty
        prev[k, 0] = tx - move_x
        prev[k, 1] = ty - move_y
        if wb > 0.0:
            box_vel[j, 0] += box_inv_mass[j] * share * nx / h
            box_vel[j, 1] += box_inv_mass[j] * share * ny / h
            box_omega[j] += box_inv_inertia[j] * share * turn / h
        stopped += 1
    return stopped


@numba.njit(cache=True)
def push_out_of_boxes(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    box_pos: npt.NDArray[np.float64],
    box_angle: npt.NDArray[np.float64],
    box_vel: npt.NDArray[np.float64],
    box_omega: npt.NDArray[np.float64],
    box_inv_mass: npt.NDArray[np.float64],
    box_inv_inertia: npt.NDArray[np.float64],
    box_half: npt.NDArray[np.float64],
    asleep: npt.NDArray[np.bool_],
    island: npt.NDArray[np.int64],
    sleep_time: npt.NDArray[np.float64],
    pair_particle: npt.NDArray[np.int64],
    pair_box: npt.NDArray[np.int64],
    h: float,
    box_friction: npt.NDArray[np.float64],
    wake_speed: float,
    braced: npt.NDArray[np.int64],
) -> None:
    """One pass over the listed pairs: push each overlapping particle out of its box, and the box back.
    (The arguments up to ``h`` are ``sweep_into_boxes``'s.)

    A sleeping box holds still like a fixed one, unless the particle comes
    at it faster than ``wake_speed`` px/s: then its island wakes. A box
    ``braced`` against the push (``box_braces``) slides along its brace, or
    holds as a fixed one, and then the particle alone is pushed out, a
    pinned one (a held point) as if it were free.
    """
    for p in range(pair_particle.shape[0]):
        k = pair_particle[p]
        j = pair_box[p]
        c = math.cos(box_angle[j])
        s = math.sin(box_angle[j])
        dx = pos[k, 0] - box_pos[j, 0]
        dy = pos[k, 1] - box_pos[j, 1]
        lx = c * dx + s * dy  # the particle in the box's frame
        ly = -s * dx + c * dy
        hx = box_half[j, 0]
        hy = box_half[j, 1]
        r = radius[k]
        if abs(lx) < hx and abs(ly) < hy:
            # inside: out through the nearest face
            gap_x = hx - abs(lx)
            gap_y = hy - abs(ly)
            if gap_x < gap_y:
                nlx = 1.0 if lx >= 0.0 else -1.0
                nly = 0.0
                qx = nlx * hx
                qy = ly
                depth = r + gap_x
            else:
                nlx = 0.0
                nly = 1.0 if ly >= 0.0 else -1.0
                qx = lx
                qy = nly * hy
                depth = r + gap_y
        else:
            qx = min(max(lx, -hx), hx)
            qy = min(max(ly, -hy), hy)
            ox = lx - qx
            oy = ly - qy
            dist = math.hypot(ox, oy)
            if dist >= r or dist < 1e-12:
                continue
            nlx = ox / dist
            nly = oy / dist
            depth = r - dist
        # to the world: the normal points from the box to the particle, q is on the box's surface
        nx = c * nlx - s * nly
        ny = s * nlx + c * nly
        rx = c * qx - s * qy
        ry = s * qx + c * qy
        wp = inv_mass[k]
        if asleep[j]:
            approach = -((pos[k, 0] - prev[k, 0]) * nx + (pos[k, 1] - prev[k, 1]) * ny) / h
            if approach > wake_speed:
                wake_island(j, asleep, island, sleep_time)
        moves = not asleep[j] and box_inv_mass[j] > 0.0
        hold, ux, uy = FREE, 0.0, 0.0
        if moves and braced[j]:
            hold, ux, uy = brace_push(braced[j], nx, ny, box_friction[j])
        if hold != FREE:
            # braced (box_braces): the box slides along its brace without turning, or holds, and a
            # pinned particle is then pushed out as if free
            moves = False
            if hold == HELD:
                wp = wp if wp > 0.0 else 1.0
        turn = rx * ny - ry * nx
        wb = box_inv_mass[j] + box_inv_inertia[j] * turn * turn if moves else 0.0
        un = ux * nx + uy * ny
        if hold == SLIDES:
            wb = box_inv_mass[j] * un * un
        if wp + wb == 0.0:
            continue
        share = depth / (wp + wb)
        pos[k, 0] += wp * share * nx
        pos[k, 1] += wp * share * ny
        if hold == SLIDES:
            slide_box(j, -box_inv_mass[j] * share * un, ux, uy, box_pos, box_vel, h)
        elif moves:
            shift_box(
                j,
                -share * nx,
                -share * ny,
                rx,
                ry,
                box_pos,
                box_angle,
                box_vel,
                box_omega,
                box_inv_mass,
                box_inv_inertia,
                h,
            )
        # friction: the particle's slide over the box's surface this substep, at most mu · depth of it
        vx = (pos[k, 0] - prev[k, 0]) - h * (box_vel[j, 0] - box_omega[j] * ry)
        vy = (pos[k, 1] - prev[k, 1]) - h * (box_vel[j, 1] + box_omega[j] * rx)
        along = vx * nx + vy * ny
        tx = vx - along * nx
        ty = vy - along * ny
        slide = math.hypot(tx, ty)
        if slide < 1e-12:
            continue
        limit = box_friction[j] * depth
        keep = 1.0 if slide <= limit else limit / slide
        turn_t = (rx * ty - ry * tx) / slide
        wbt = box_inv_mass[j] + box_inv_inertia[j] * turn_t * turn_t if moves else 0.0
        if wp + wbt == 0.0:  # a pinned particle sliding a braced box: neither gives
            continue
        undo = keep / (wp + wbt)
        pos[k, 0] -= wp * undo * tx
        pos[k, 1] -= wp * undo * ty
        if moves:
            shift_box(
                j,
                undo * tx,
                undo * ty,
                rx,
                ry,
                box_pos,
                box_angle,
                box_vel,
                box_omega,
                box_inv_mass,
                box_inv_inertia,
                h,
            )


@numba.njit(cache=True, inline="always", **INNER)
def slide_box(
    j: int,
    distance: float,
    ux: float,
    uy: float,
    box_pos: npt.NDArray[np.float64],
    box_vel: npt.NDArray[np.float64],
    h: float,
) -> None:
    """Move box j ``distance`` px along the unit ``(ux, uy)`` without turning it; the move becomes
    velocity too."""
    box_pos[j, 0] += distance * ux
    box_pos[j, 1] += distance * uy
    box_vel[j, 0] += distance * ux / h
    box_vel[j, 1] += distance * uy / h


@numba.njit(cache=True, **INNER)
def shift_box(
    j: int,
    px: float,
    py: float,
    rx: float,
    ry: float,
    box_pos: npt.NDArray[np.float64],
    box_angle: npt.NDArray[np.float64],
    box_vel: npt.NDArray[np.float64],
    box_omega: npt.NDArray[np.float64],
    box_inv_mass: npt.NDArray[np.float64],
    box_inv_inertia: npt.NDArray[np.float64],
    h: float,
) -> None:
    """Move box j by a positional impulse ``P`` at ``r`` from its centre; the move becomes velocity too."""
    dx = box_inv_mass[j] * px
    dy = box_inv_mass[j] * py
    dtheta = box_inv_inertia[j] * (rx * py - ry * px)
    box_pos[j, 0] += dx
    box_pos[j, 1] += dy
    box_angle[j] += dtheta
    box_vel[j, 0] += dx / h
    box_vel[j, 1] += dy / h
    box_omega[j] += dtheta / h
