"""Rigid boxes: the body store, the contact store that carries impulses between steps, and the settings."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from weft.components.growth import grow

CORRECTIONS = ("soft", "baumgarte", "split", "none")
"""How the box solver removes overlap: ``soft`` is the substepped soft step (soft contacts, then a
relax pass without bias); the other three are plain sequential impulses with a Baumgarte bias, a
separate position pass (split impulse), or nothing at all."""

PLANES = 4
"""The walls are four half-planes, body indices ``-1`` (floor) to ``-4``: see ``plane_body``."""


WORLD_ITERATIONS = 0
"""``RigidStore.iterations`` of a box whose set gives no ``iterations``: its contacts take the world's
``[world.rigid] iterations``. A pair takes the larger of its two boxes' counts, so this lies below
every count a set can give (at least 1)."""


LARGE_FROM = 256
"""Boxes from which the broadphase bins the much larger ones in a grid of their own
(``RigidStore.large``): below it, one grid with cells as wide as the largest box costs little however
the sizes spread (256 boxes all in nine cells are 33000 tests a listing)."""
LARGE_RATIO = 4.0
"""A box whose half diagonal is more than this many times the median one is large."""


def plane_body(side: int) -> int:
    """The body index a contact uses for wall ``side`` (0 floor, 1 ceiling, 2 left, 3 right)."""
    return -1 - side


@dataclass
class RigidSettings:
    """The box solver's knobs, as the level's ``[world.rigid]`` table and the panel set them.

    One field per key of that table, made from it (``RigidTable``, whose schema holds each key's
    unit, range, default and meaning). Lengths are px, times seconds. ``iterations`` counts solver
    passes per substep (the soft step adds one relax pass); a box set may ask for its own count
    (``RigidStore.iterations``).
    """

    correction: str
    substeps: int
    iterations: int
    slop: float
    percent: float
    contact_hertz: float
    damping_ratio: float
    push_speed: float
    sleeping: bool
    sleep_speed: float
    sleep_delay: float


class RigidStore:
    """Every box of the world, as structure-of-arrays numpy buffers.

    Rows ``[0, count)`` are in use and never move (a box is never removed);
    arrays grow by doubling, so hold indices, never slices.

    Attributes (``N`` = capacity):
        pos: ``(N, 2)`` float64, centre of mass in px.
        angle: ``(N,)`` float64, radians counter-clockwise.
        vel: ``(N, 2)`` float64, px/s.
        omega: ``(N,)`` float64, rad/s.
        inv_mass, inv_inertia: ``(N,)`` float64, 0 for fixed boxes.
        half: ``(N, 2)`` float64, half width and half height, px.
        friction: ``(N,)`` float64, Coulomb coefficient (a pair uses the geometric mean).
        restitution: ``(N,)`` float64, share of an impact's normal speed kept (a pair uses the larger).
        iterations: ``(N,)`` int64, solver passes for this box's contacts (``WORLD_ITERATIONS``: the world's).
        sleep_time: ``(N,)`` float64, seconds the box has been slow.
        asleep: ``(N,)`` bool.
        island: ``(N,)`` int64, the island a sleeping box went to sleep with (its lowest box index).
        owner: ``(N,)`` int64, the entity of the box set.
    """

    def __init__(self, capacity: int = 64) -> None:
        self.count = 0
        self.pos = np.zeros((capacity, 2))
        self.angle = np.zeros(capacity)
        self.vel = np.zeros((capacity, 2))
        self.omega = np.zeros(capacity)
        self.inv_mass = np.zeros(capacity)
        self.inv_inertia = np.zeros(capacity)
        self.half = np.zeros((capacity, 2))
        self.friction = np.zeros(capacity)
        self.restitution = np.zeros(capacity)
        self.iterations = np.zeros(capacity, dtype=np.int64)
        self.sleep_time = np.zeros(capacity)
        self.asleep = np.zeros(capacity, dtype=np.bool_)
        self.island = np.full(capacity, -1, dtype=np.int64)
        self.owner = np.zeros(capacity, dtype=np.int64)
        self.max_half = 0.0
        """The largest half diagonal of any box."""
        self.ordinary_half = 0.0
        """The largest half diagonal of a box not ``large``: the broadphase's fine cells are sized by
        it, the large boxes' cells by ``max_half``."""
        self.large = np.zeros(0, dtype=np.bool_)
        """Whether each box in use is large (``measure_sizes``), binned in the broadphase's grid of
        large boxes: one grid sized for a platform 500 times wider than the pebbles about it had every
        pebble meet every other (a pile of 5900 boxes of 2 px beside one of 1000 px: 155 ms a frame; 70
        with the platform in a grid of its own, 68 without it; a busy machine)."""
        self.large_count = 0
        self.revision = 0
        """Counts in-place changes to what the boxes rest under (a set's friction or iterations): the
        box step wakes every box when it changes, as when a solver setting does."""

    def add(
        self,
        pos: npt.NDArray[np.float64],
        angle: npt.NDArray[np.float64],
        half: npt.NDArray[np.float64],
        density: float,
        friction: float,
        owner: int,
        fixed: bool = False,
        iterations: int = WORLD_ITERATIONS,
        restitution: float = 0.0,
    ) -> range:
        """Append boxes at ``pos`` ``(n, 2)`` turned by ``angle`` ``(n,)``, of ``half`` extents ``(n, 2)``.

        Mass is ``density`` × area in circle units (a circle of radius 5 px
        weighs 1, so a box and a ball of equal area weigh the same); the
        moment of inertia is a solid rectangle's, ``m (w² + h²) / 12``.
        """
        n = len(pos)
        start = self.count
        end = start + n
        self._reserve(end)
        width, height = 2.0 * half[:, 0], 2.0 * half[:, 1]
        mass = density * width * height / (np.pi * 25.0)
        inertia = mass * (width**2 + height**2) / 12.0
        self.pos[start:end] = pos
        self.angle[start:end] = angle
        self.vel[start:end] = 0.0
        self.omega[start:end] = 0.0
        self.inv_mass[start:end] = 0.0 if fixed else 1.0 / mass
        self.inv_inertia[start:end] = 0.0 if fixed else 1.0 / inertia
        self.half[start:end] = half
        self.friction[start:end] = friction
        self.restitution[start:end] = restitution
        self.iterations[start:end] = iterations
        self.sleep_time[start:end] = 0.0
        self.asleep[start:end] = False
        self.island[start:end] = -1
        self.owner[start:end] = owner
        self.count = end
        self.measure_sizes()
        return range(start, end)

    def measure_sizes(self) -> None:
        """``max_half``, ``ordinary_half`` and ``large`` of the boxes in use (after they were added
        or removed): from ``LARGE_FROM`` boxes, those wider than ``LARGE_RATIO`` times the median half
        diagonal are large."""
        n = self.count
        diagonal = np.hypot(self.half[:n, 0], self.half[:n, 1])
        self.max_half = float(diagonal.max()) if n else 0.0
        self.large = np.zeros(n, dtype=np.bool_)
        if n >= LARGE_FROM:
            self.large = diagonal > LARGE_RATIO * float(np.median(diagonal))
        self.large_count = int(self.large.sum())
        self.ordinary_half = float(diagonal[~self.large].max()) if n else 0.0

    def _reserve(self, needed: int) -> None:
        capacity = len(self.pos)
        if needed <= capacity:
            return
        while capacity < needed:
            capacity *= 2
        for name in ARRAYS:
            setattr(self, name, grow(getattr(self, name), capacity, -1 if name == "island" else 0))


ARRAYS = (
    "pos",
    "angle",
    "vel",
    "omega",
    "inv_mass",
    "inv_inertia",
    "half",
    "friction",
    "restitution",
    "iterations",
    "sleep_time",
    "asleep",
    "island",
    "owner",
)


CONTACT_ARRAYS = (
    "a",
    "b",
    "key",
    "point",
    "normal",
    "separation",
    "gap",
    "normal_impulse",
    "tangent_impulse",
    "last_key",
    "last_normal",
    "last_tangent",
)
"""The per-point arrays of a ``ContactStore``, a row each."""


@dataclass
class ContactStore:
    """The contact points of the last step, and the impulses they ended with (for warm starting).

    One row per point; a pair of boxes (or a box and a wall) has up to two.
    ``a`` is a box, ``b`` a box or a wall (``plane_body``); the normal points
    from a to b. ``key`` identifies a point across steps (the two bodies and
    the features that made it): a point whose key was there last step starts
    from the impulses it ended with. The rows are filled by the contact and
    solver kernels; the box step keeps the last step's points (``last_*``)
    for the next warm start; the metrics and the debug view only read.
    """

    count: int = 0
    a: np.ndarray = field(default_factory=lambda: np.zeros(256, dtype=np.int64))
    b: np.ndarray = field(default_factory=lambda: np.zeros(256, dtype=np.int64))
    key: np.ndarray = field(default_factory=lambda: np.zeros(256, dtype=np.int64))
    point: np.ndarray = field(default_factory=lambda: np.zeros((256, 2)))
    """World position of the point when it was found, px (between the two surfaces)."""
    normal: np.ndarray = field(default_factory=lambda: np.zeros((256, 2)))
    separation: np.ndarray = field(default_factory=lambda: np.zeros(256))
    """Gap along the normal when found, px: negative is overlap."""
    gap: np.ndarray = field(default_factory=lambda: np.zeros(256))
    """Gap along the normal at the end of the step, px (what the metrics and the debug view show)."""
    normal_impulse: np.ndarray = field(default_factory=lambda: np.zeros(256))
    tangent_impulse: np.ndarray = field(default_factory=lambda: np.zeros(256))
    start: np.ndarray = field(default_factory=lambda: np.zeros(256, dtype=np.int64))
    """Where each box's wall points, then each listed pair's points, begin in the rows (and where
    the last ends): ``groups + 1`` of them."""
    groups: int = 0
    last_key: np.ndarray = field(default_factory=lambda: np.zeros(256, dtype=np.int64))
    last_normal: np.ndarray = field(default_factory=lambda: np.zeros(256))
    last_tangent: np.ndarray = field(default_factory=lambda: np.zeros(256))
    """The points' keys and impulses kept apart (their first ``count`` rows), for the next step's
    warm start: finding that step's points writes over ``key`` before the warm start reads these."""
    last_start: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """``start`` kept apart likewise (its first ``groups + 1`` rows)."""
    table: np.ndarray = field(default_factory=lambda: np.full((64, 3), -1.0))
    """The previous step's points as a hash table, made when the pairs were listed anew (open
    addressing, each half probed on its own): rows of key (``-1`` is empty), normal impulse and
    tangent impulse. Keys are integers held exactly in float64 (below 2⁵³: millions of boxes)."""

    def reserve(self, points: int) -> None:
        """Make room for ``points`` rows (doubling)."""
        capacity = len(self.a)
        if points <= capacity:
            return
        while capacity < points:
            capacity *= 2
        for name in CONTACT_ARRAYS:
            setattr(self, name, grow(getattr(self, name), capacity))


@dataclass
class BoxSet:
    """A set of rigid boxes: one entity per ``[[boxes]]`` entry; its rows in the ``RigidStore``."""

    name: str
    bodies: range
    colors: tuple[tuple[int, int, int, int], ...] = ((214, 162, 92, 255),)
    """Fill colours, given to the boxes in turn."""


@dataclass
class NearBoxes:
    """The (particle, box) pairs near enough to touch, listed once a substep by the particle-box
    contacts (rows ``[0, count)``); the contact events read the last substep's."""

    particle: np.ndarray = field(default_factory=lambda: np.zeros(1024, dtype=np.int64))
    box: np.ndarray = field(default_factory=lambda: np.zeros(1024, dtype=np.int64))
    count: int = 0


@dataclass
class Cells:
    """A grid of box centres, counting-sorted by cell: a window of ``cols`` × ``rows`` cells, from
    cell (``first_col``, ``first_row``) on, of a lattice of ``lattice_cols`` × ``lattice_rows`` cells
    ``cell`` px wide from ``(left, bottom)`` over the level (``grid.lattice_window``: the cells from
    the lowest to the highest that holds a box); ``cell_of`` each box's cell in the window (-1 when
    not in this grid), ``cell_start`` the prefix sums, ``order`` the boxes cell by cell."""

    cell: float = 1.0
    left: float = 0.0
    bottom: float = 0.0
    lattice_cols: int = 1
    lattice_rows: int = 1
    first_col: int = 0
    first_row: int = 0
    cols: int = 1
    rows: int = 1
    cell_of: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    cell_start: np.ndarray = field(default_factory=lambda: np.zeros(2, dtype=np.int64))
    order: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def for_kernels(
        self,
    ) -> tuple[float, float, float, int, int, int, int, int, int, np.ndarray, np.ndarray, np.ndarray]:
        """``(left, bottom, cell, lattice_cols, lattice_rows, first_col, first_row, cols, rows,
        cell_of, cell_start, order)``, as the kernels take a grid (``box_grid.Grid``)."""
        lattice = (self.left, self.bottom, self.cell, self.lattice_cols, self.lattice_rows)
        window = (self.first_col, self.first_row, self.cols, self.rows)
        return (*lattice, *window, self.cell_of, self.cell_start, self.order)


@dataclass
class BoxGrid:
    """The boxes' broadphase: two grids of centres (the ordinary boxes' and the large ones',
    ``RigidStore.large``), the pairs listed from them and when they were listed, and what the box step
    knows of each box before it looks for contacts (the particle-box contacts use only the grids)."""

    cells: Cells = field(default_factory=Cells)
    """The boxes not large, in cells as wide as their largest reach."""
    large_cells: Cells = field(default_factory=Cells)
    """The large boxes, in cells as wide as theirs (empty when there are none)."""
    pair_a: np.ndarray = field(default_factory=lambda: np.zeros(256, dtype=np.int64))
    pair_b: np.ndarray = field(default_factory=lambda: np.zeros(256, dtype=np.int64))
    pair_count: int = 0
    listed_pos: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    """Where the boxes were when the pairs were last listed (empty: the list cannot be kept)."""
    listed_angle: np.ndarray = field(default_factory=lambda: np.zeros(0))
    listed_margin: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Each box's margin the pairs were listed with, px (its margin then plus the skin)."""
    listed_moving: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))
    turn: np.ndarray = field(default_factory=lambda: np.zeros((64, 2)))
    """Each box's cosine and sine this step, for the pair and contact tests."""
    moving: np.ndarray = field(default_factory=lambda: np.zeros(64, dtype=np.bool_))
    """Whether each box moves this step (movable and awake)."""
    margin: np.ndarray = field(default_factory=lambda: np.zeros(64))
    """How far from each box, px, contacts are looked for this step (``box_motion``)."""
    manifold: np.ndarray = field(default_factory=lambda: np.zeros((256, 11)))
    """Scratch for each listed pair's manifold while contacts are found (kept: fresh each frame, its
    pages would fault in again)."""
