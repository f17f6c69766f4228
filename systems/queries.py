"""What lies under a point, and what a segment meets first: the questions a game asks of the world.

Each answer is one pass of numpy over a store's rows (a query is a call
from the game, not part of a frame), in store rows; ``weft.Physics`` turns
rows into bodies.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from weft.components import ParticleKind, Stores

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def fixed_particles(stores: Stores) -> npt.NDArray[np.bool_]:
    """Whether each particle never moves: inverse mass 0 and no pin (a pinned one is moved by its
    pin, and has inverse mass 0 while held)."""
    particles = stores.particles
    fixed = particles.inv_mass[: particles.count] == 0.0
    fixed[stores.pins.index[: stores.pins.count]] = False
    return fixed


def in_box_frames(stores: Stores, rows: IntArray, point: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``point`` in the frame of each box of ``rows`` ``(K, 2)``, and each box's (cos, sin) ``(K, 2)``
    to turn a vector of its frame back (``from_box_frames``)."""
    rigid = stores.rigid
    turn = np.column_stack([np.cos(rigid.angle[rows]), np.sin(rigid.angle[rows])])
    d = point - rigid.pos[rows]
    c, s = turn[:, 0], turn[:, 1]
    return np.column_stack([c * d[:, 0] + s * d[:, 1], -s * d[:, 0] + c * d[:, 1]]), turn


def from_box_frames(vectors: FloatArray, turn: FloatArray) -> FloatArray:
    """Vectors ``(K, 2)`` of the box frames ``turn`` (``in_box_frames``) in the world's."""
    c, s = turn[:, 0], turn[:, 1]
    return np.column_stack([c * vectors[:, 0] - s * vectors[:, 1], s * vectors[:, 0] + c * vectors[:, 1]])


def discs_at(stores: Stores, x: float, y: float) -> tuple[IntArray, FloatArray]:
    """The particles with a radius whose disc holds ``(x, y)``, and the point's distance from each
    centre, px."""
    particles = stores.particles
    n = particles.count
    offset = particles.pos[:n] - (x, y)
    distance = np.hypot(offset[:, 0], offset[:, 1])
    rows = np.flatnonzero((particles.radius[:n] > 0.0) & (distance <= particles.radius[:n]))
    return rows, distance[rows]


def boxes_at(stores: Stores, x: float, y: float) -> tuple[IntArray, FloatArray]:
    """The boxes that hold ``(x, y)`` (edges included), and the point's distance from each centre, px."""
    rigid = stores.rigid
    n = rigid.count
    local, _ = in_box_frames(stores, np.arange(n), np.array([x, y]))
    rows = np.flatnonzero((np.abs(local) <= rigid.half[:n]).all(axis=1))
    return rows, np.hypot(x - rigid.pos[rows, 0], y - rigid.pos[rows, 1])


def triangles_at(pos: FloatArray, triangles: IntArray, x: float, y: float) -> IntArray:
    """Which of the ``(t, 3)`` particle triangles hold ``(x, y)`` (either winding, edges included)."""
    a, b, c = pos[triangles[:, 0]], pos[triangles[:, 1]], pos[triangles[:, 2]]

    def side(p: FloatArray, q: FloatArray) -> FloatArray:
        return (q[:, 0] - p[:, 0]) * (y - p[:, 1]) - (q[:, 1] - p[:, 1]) * (x - p[:, 0])

    d1, d2, d3 = side(a, b), side(b, c), side(c, a)
    negative = (d1 < 0) | (d2 < 0) | (d3 < 0)
    positive = (d1 > 0) | (d2 > 0) | (d3 > 0)
    return np.flatnonzero(~(negative & positive))


def polygon_holds(points: FloatArray, x: float, y: float) -> bool:
    """Whether the closed polygon ``(n, 2)`` holds ``(x, y)`` (even-odd rule: a ray to +x crosses
    its edges an odd number of times)."""
    p, q = points, np.roll(points, -1, axis=0)
    straddles = (p[:, 1] > y) != (q[:, 1] > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        cross_x = p[:, 0] + (y - p[:, 1]) * (q[:, 0] - p[:, 0]) / (q[:, 1] - p[:, 1])
    return bool(np.count_nonzero(straddles & (x < cross_x)) % 2)


def fixed_normals_at(stores: Stores, point: FloatArray, grow: float) -> FloatArray:
    """The outward normals ``(K, 2)`` at ``point`` of the fixed boxes and fixed circles within
    ``grow`` px of it (or holding it): from a box's nearest point to it (the face it is least deep
    behind, when in the box), a circle's radius through it (none for a circle whose centre it is)."""
    rigid = stores.rigid
    rows = np.flatnonzero(rigid.inv_mass[: rigid.count] == 0.0)
    local, turn = in_box_frames(stores, rows, point)
    half = rigid.half[rows]
    away = local - np.clip(local, -half, half)  # from the box's nearest point: zero inside it
    gap = np.hypot(away[:, 0], away[:, 1])
    inside = gap == 0.0
    depth = half - np.abs(local)
    axis = np.argmin(depth, axis=1)  # the face a point in the box is least deep behind
    face = np.zeros_like(local)
    face[np.arange(len(rows)), axis] = np.where(local[np.arange(len(rows)), axis] >= 0.0, 1.0, -1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        local_normal = np.where(inside[:, None], face, away / gap[:, None])
    held = inside | (gap <= grow)
    box_normals = from_box_frames(local_normal[held], turn[held])
    particles = stores.particles
    circle = particles.kind[: particles.count] == ParticleKind.CIRCLE
    circles = np.flatnonzero(fixed_particles(stores) & circle)
    offset = point - particles.pos[circles]
    distance = np.hypot(offset[:, 0], offset[:, 1])
    near = (distance <= particles.radius[circles] + grow) & (distance > 0.0)
    circle_normals = offset[near] / distance[near, None]
    return np.concatenate([box_normals, circle_normals])


def cast_circles(
    stores: Stores, start: FloatArray, end: FloatArray, *, grow: float = 0.0, fixed: bool = False
) -> tuple[int, float, FloatArray]:
    """The first circle the segment ``start -> end`` enters: its row, the fraction of the segment at
    the hit and the surface normal there; row -1 when none. Circles holding ``start`` are passed by.
    ``grow``: px added to every radius (a disc of that radius cast, not a point); ``fixed``: only the
    circles that never move (inverse mass 0 and no pin).

    The hit solves ``|s + t d - c|² = r²`` for the smaller root ``t = (-b - sqrt(b² - 4ac)) / 2a``,
    with ``a = d·d``, ``b = 2 (s - c)·d`` and ``c' = |s - c|² - r²`` (> 0: the start is outside).
    """
    particles = stores.particles
    n = particles.count
    taken = particles.kind[:n] == ParticleKind.CIRCLE
    if fixed:
        taken &= fixed_particles(stores)
    rows = np.flatnonzero(taken)
    d = end - start
    a = float(d @ d)
    if len(rows) == 0 or a == 0.0:
        return -1, 1.0, np.zeros(2)
    f = start - particles.pos[rows]
    r = particles.radius[rows] + grow
    b = 2.0 * (f @ d)
    c = np.einsum("ij,ij->i", f, f) - r * r
    disc = b * b - 4.0 * a * c
    with np.errstate(invalid="ignore"):
        t = (-b - np.sqrt(disc)) / (2.0 * a)
    hit = (c > 0.0) & (disc >= 0.0) & (t >= 0.0) & (t <= 1.0)
    if not hit.any():
        return -1, 1.0, np.zeros(2)
    k = int(np.flatnonzero(hit)[np.argmin(t[hit])])
    point = start + t[k] * d
    normal = (point - particles.pos[rows[k]]) / r[k]
    return int(rows[k]), float(t[k]), normal


def cast_boxes(
    stores: Stores, start: FloatArray, end: FloatArray, *, grow: float = 0.0, fixed: bool = False
) -> tuple[int, float, FloatArray]:
    """The first box the segment ``start -> end`` enters: its row, the fraction at the hit and the
    outward normal there; row -1 when none. Boxes holding ``start`` are passed by. ``grow``: px
    all round each box, its corners rounded (where a disc of that radius cast would touch it);
    ``fixed``: only the boxes that never move (inverse mass 0).

    Slabs (Kay and Kajiya): in each box's frame the segment is inside both pairs of faces for
    ``t`` in ``[max(t_near), min(t_far)]``; it enters where the later of the two near faces is. A
    grown box is the union of the box grown along x, the box grown along y and a circle of radius
    ``grow`` on each corner: the segment enters it where it first enters one of them.
    """
    rigid = stores.rigid
    n = rigid.count
    rows = np.flatnonzero(rigid.inv_mass[:n] == 0.0) if fixed else np.arange(n)
    d = end - start
    if len(rows) == 0 or not d.any():
        return -1, 1.0, np.zeros(2)
    origin, turn = in_box_frames(stores, rows, start)
    c, s = turn[:, 0], turn[:, 1]
    direction = np.column_stack([c * d[0] + s * d[1], -s * d[0] + c * d[1]])
    half = rigid.half[rows]
    slabs = [half + np.array([grow, 0.0]), half + np.array([0.0, grow])] if grow > 0.0 else [half]
    enters, holds, normals = [], [], []
    for extent in slabs:
        enter, held, normal = _slab_entry(origin, direction, extent)
        enters.append(enter)
        holds.append(held)
        normals.append(normal)
    if grow > 0.0:
        for corner in ((1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)):
            enter, held, normal = _disc_entry(origin - half * corner, direction, grow)
            enters.append(enter)
            holds.append(held)
            normals.append(normal)
    enter = np.column_stack(enters)
    held = np.column_stack(holds).any(axis=1)
    enter[held] = np.inf  # a box holding the start is passed by
    first = enter.min(axis=1)
    hit = first <= 1.0
    if not hit.any():
        return -1, 1.0, np.zeros(2)
    k = int(np.flatnonzero(hit)[np.argmin(first[hit])])
    local = normals[int(np.argmin(enter[k]))][k : k + 1]
    return int(rows[k]), float(first[k]), from_box_frames(local, turn[k : k + 1])[0]


def _slab_entry(
    origin: FloatArray, direction: FloatArray, half: FloatArray
) -> tuple[FloatArray, npt.NDArray[np.bool_], FloatArray]:
    """Where segments from ``origin`` along ``direction`` (box frames, ``(N, 2)`` each) enter boxes
    of ``half`` extents (inf: never within the segment), whether each box holds its start (edges
    included), and the entered face's outward normal (box frames)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        low = (-half - origin) / direction
        high = (half - origin) / direction
    near, far = np.minimum(low, high), np.maximum(low, high)
    parallel = direction == 0.0  # never crosses those faces: inside the slab for all t, or never
    inside_slab = np.abs(origin) <= half
    near = np.where(parallel, np.where(inside_slab, -np.inf, np.inf), near)
    far = np.where(parallel, np.where(inside_slab, np.inf, -np.inf), far)
    enter, leave = near.max(axis=1), far.min(axis=1)
    held = inside_slab.all(axis=1)
    entered = (enter <= leave) & (enter > 0.0) & ~held
    axis = np.argmax(near, axis=1)
    normal = np.zeros_like(origin)
    rows = np.arange(len(origin))
    normal[rows, axis] = -np.sign(direction[rows, axis])  # the face met first faces back along the ray
    return np.where(entered, enter, np.inf), held, normal


def _disc_entry(
    origin: FloatArray, direction: FloatArray, radius: float
) -> tuple[FloatArray, npt.NDArray[np.bool_], FloatArray]:
    """``_slab_entry`` for discs of ``radius`` centred at 0, the segments' starts at ``origin``:
    the smaller root of ``|o + t d|² = r²`` (``cast_circles``)."""
    a = np.einsum("ij,ij->i", direction, direction)
    b = 2.0 * np.einsum("ij,ij->i", origin, direction)
    c = np.einsum("ij,ij->i", origin, origin) - radius * radius
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (-b - np.sqrt(b * b - 4.0 * a * c)) / (2.0 * a)
        normal = (origin + t[:, None] * direction) / radius
    entered = (c > 0.0) & (t > 0.0)  # a nan root (a miss) fails the test
    return np.where(entered, t, np.inf), c <= 0.0, normal
