"""Rigid boxes: building stacks and pyramids, stepping them, sleeping, and particles meeting them."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from weft.components import CORRECTIONS, BoxGrid, BoxSet, Grab, RigidStore, Stores
from weft.components.growth import grow
from weft.components.tools import NOTHING
from weft.systems import world
from weft.systems.kernels.box_batches import CAPACITY
from weft.systems.kernels.box_contacts import table_size
from weft.systems.kernels.box_frame import ASLEEP, GROW, RELIST, step_box_frame
from weft.systems.kernels.box_grid import box_pairs
from weft.systems.kernels.box_particles import list_near_boxes, push_out_of_boxes, sweep_into_boxes
from weft.systems.kernels.box_sleep import fall_asleep, wake_island, wake_touched
from weft.systems.kernels.box_solver import plan_sizes, work_sizes
from weft.systems.kernels.grid import bin_points
from weft.systems.schedule import Stage, Step, System
from weft.systems.world import by_entity

IntArray = npt.NDArray[np.int64]

SPECULATIVE_SLOPS = 4.0
"""Contacts are found this many slops (at least ``MIN_SPECULATIVE`` px) before the boxes touch,
plus how far they can move in the step: the solver then stops them at touching instead of letting
them sink in first."""

MIN_SPECULATIVE = 0.5

WAKE_SPEED = 60.0
"""px/s: a particle hitting a sleeping box faster than this wakes it; slower ones (a resting pile,
a hanging cloth) treat it as fixed, so a box under a heap of balls can still sleep."""

PAIR_SKIN = 2.0
"""px: while no box sleeps, pairs are listed this much wider and the list is kept until some box
could have crossed that much (a standing pyramid lists its pairs once in many frames)."""

PARTICLE_MARGIN = 2.0
"""px: particles listed near a box are this close or closer (the list is renewed every substep)."""


def stack_centers(
    count: int, size: tuple[float, float], base: tuple[float, float], gap: float, offsets: list[float]
) -> npt.NDArray[np.float64]:
    """Centres of ``count`` boxes stacked up from ``base`` (the bottom box's bottom middle), ``gap`` px
    apart, each shifted sideways by ``offsets`` in turn."""
    height = size[1]
    rows = np.arange(count)
    shift = np.array([offsets[k % len(offsets)] for k in rows]) if offsets else np.zeros(count)
    return np.column_stack([base[0] + shift, base[1] + 0.5 * height + gap + rows * (height + gap)])


def pyramid_centers(
    layers: int, size: tuple[float, float], base: tuple[float, float], gap: float
) -> npt.NDArray[np.float64]:
    """Centres of a pyramid ``layers`` boxes wide at the bottom, one fewer on each layer up, centred on
    ``base`` (the bottom layer's bottom middle); boxes ``gap`` px apart across, layers touching."""
    width, height = size
    pitch = width + gap
    centers = []
    for layer in range(layers):
        across = layers - layer
        first = base[0] - 0.5 * (across - 1) * pitch
        for k in range(across):
            centers.append((first + k * pitch, base[1] + (layer + 0.5) * height))
    return np.array(centers, dtype=np.float64).reshape(-1, 2)


def build_boxes(
    stores: Stores,
    entity: int,
    name: str,
    centers: npt.NDArray[np.float64],
    angles: npt.NDArray[np.float64],
    sizes: npt.NDArray[np.float64],
    density: float,
    friction: float,
    fixed: bool,
    iterations: int,
    colors: tuple[tuple[int, int, int, int], ...],
    restitution: float = 0.0,
    velocities: npt.NDArray[np.float64] | None = None,
    spins: npt.NDArray[np.float64] | None = None,
) -> BoxSet:
    """Add boxes at ``centers`` ``(n, 2)`` turned by ``angles`` ``(n,)`` radians, ``sizes`` ``(n, 2)``
    px, moving at ``velocities`` ``(n, 2)`` px/s and turning at ``spins`` ``(n,)`` rad/s (still when
    not given; fixed boxes never move)."""
    store = stores.rigid
    rows = store.add(centers, angles, 0.5 * sizes, density, friction, entity, fixed, iterations, restitution)
    if not fixed:
        if velocities is not None:
            store.vel[rows.start : rows.stop] = velocities
        if spins is not None:
            store.omega[rows.start : rows.stop] = spins
    return BoxSet(name=name, bodies=rows, colors=colors)


def box_at(store: RigidStore, x: float, y: float) -> int:
    """The movable box (the last added, where several overlap) whose outline holds (x, y), or ``NOTHING``."""
    n = store.count
    if n == 0:
        return NOTHING
    offset = np.array([x, y]) - store.pos[:n]
    c, s = np.cos(store.angle[:n]), np.sin(store.angle[:n])
    local_x = c * offset[:, 0] + s * offset[:, 1]
    local_y = -s * offset[:, 0] + c * offset[:, 1]
    held = (np.abs(local_x) <= store.half[:n, 0]) & (np.abs(local_y) <= store.half[:n, 1])
    inside = np.flatnonzero(held & (store.inv_mass[:n] > 0.0))
    return int(inside[-1]) if len(inside) else NOTHING


def wake(store: RigidStore, body: int) -> None:
    """Wake the island ``body`` fell asleep with."""
    wake_island(body, store.asleep, store.island, store.sleep_time)


def wake_islands(store: RigidStore, bodies: npt.NDArray[np.int64]) -> None:
    """Wake ``bodies`` and every box that fell asleep with any of them (``wake`` for many at once)."""
    n = store.count
    islands = store.island[bodies]
    woken = np.isin(store.island[:n], islands[islands >= 0])
    woken[bodies] = True
    store.asleep[:n][woken] = False
    store.island[:n][woken] = -1
    store.sleep_time[:n][woken] = 0.0


def wake_all(store: RigidStore) -> None:
    """Wake every box (the world changed under them: gravity turned, walls moved)."""
    n = store.count
    store.asleep[:n] = False
    store.island[:n] = -1
    store.sleep_time[:n] = 0.0


def bin_grid(
    grid: BoxGrid, store: RigidStore, bounds: tuple[float, float, float, float], reach: float
) -> None:
    """Counting-sort the box centres into cells ``reach`` px wide over ``bounds``."""
    n = store.count
    left, bottom, right, top = bounds
    cols = max(1, min(4096, math.ceil((right - left) / reach)))
    rows = max(1, min(4096, math.ceil((top - bottom) / reach)))
    cell = max(reach, (right - left) / cols, (top - bottom) / rows)
    if len(grid.cell_start) != cols * rows + 1:
        grid.cell_start = np.zeros(cols * rows + 1, dtype=np.int64)
    if len(grid.order) < n:
        grid.order = np.zeros(len(store.pos), dtype=np.int64)
        grid.cell_of = np.zeros(len(store.pos), dtype=np.int64)
    grid.cell, grid.left, grid.bottom, grid.cols, grid.rows = cell, left, bottom, cols, rows
    every = np.ones(n, dtype=np.bool_)  # every box centre is binned
    bin_points(
        store.pos[:n], every, left, bottom, cell, cols, rows, grid.cell_of, grid.cell_start, grid.order
    )


def list_pairs(grid: BoxGrid, store: RigidStore, moving: np.ndarray, margin: np.ndarray) -> None:
    """List the box pairs that may touch in this step into ``grid.pair_a``/``pair_b``."""
    n = store.count
    grid.pair_count, grid.pair_a, grid.pair_b = fill_pairs(
        lambda a, b: box_pairs(
            store.pos[:n],
            grid.turn[:n],
            store.half[:n],
            moving,
            margin,
            grid.cols,
            grid.rows,
            grid.cell_of,
            grid.cell_start,
            grid.order,
            a,
            b,
        ),
        grid.pair_a,
        grid.pair_b,
    )


def fill_pairs(
    find: Callable[[IntArray, IntArray], int], first: IntArray, second: IntArray
) -> tuple[int, IntArray, IntArray]:
    """Run ``find``, which writes pairs into the two arrays and returns how many there are, with the
    arrays grown to twice that count until they hold them all; the count and the arrays used."""
    while True:
        found = find(first, second)
        if found <= len(first):
            return found, first, second
        first = np.zeros(2 * found, dtype=np.int64)
        second = np.zeros(2 * found, dtype=np.int64)


def wall_planes(walls: tuple[float, float, float, float]) -> npt.NDArray[np.float64]:
    """The four ``walls`` (left, bottom, right, top) as ``(inward normal x, y, offset)`` rows:
    floor, ceiling, left, right."""
    left, bottom, right, top = walls
    return np.array([[0.0, 1.0, bottom], [0.0, -1.0, -top], [1.0, 0.0, left], [-1.0, 0.0, -right]])


def held_box(store: RigidStore) -> tuple[int, np.ndarray]:
    """The box a mouse spring holds (or ``NOTHING``) and the spring's state for the solver."""
    for _, grab in by_entity(Grab):
        if grab.box != NOTHING and grab.held:
            spring = grab.spring
            spring[0:2] = grab.anchor
            spring[2:4] = grab.target
            spring[4] = grab.hertz
            spring[5] = grab.damping_ratio
            spring[6] = grab.max_accel / store.inv_mass[grab.box] if store.inv_mass[grab.box] > 0.0 else 0.0
            return grab.box, spring
    return NOTHING, np.zeros(9)


def list_pairs_with_skin(
    grid: BoxGrid,
    store: RigidStore,
    walls: tuple[float, float, float, float],
    moving: np.ndarray,
    margin: np.ndarray,
) -> None:
    """List the pairs anew: ``PAIR_SKIN`` wider while nothing sleeps (the list is then kept while it
    holds), else exactly, and wake the sleepers an awake box comes to touch."""
    n = store.count
    anyone_asleep = bool(store.asleep[:n].any())
    listed = margin if anyone_asleep else margin + PAIR_SKIN
    bin_grid(grid, store, walls, 2.0 * store.max_half + 2.0 * float(listed.max()))
    list_pairs(grid, store, moving, listed)
    if anyone_asleep:
        grid.listed_pos = np.zeros((0, 2))  # exact margins: nothing to keep
        if wake_touched(
            grid.pair_a[: grid.pair_count],
            grid.pair_b[: grid.pair_count],
            store.inv_mass[:n],
            store.asleep[:n],
            store.island[:n],
            store.sleep_time[:n],
        ):
            moving[:] = (store.inv_mass[:n] > 0.0) & ~store.asleep[:n]
            list_pairs(grid, store, moving, margin)
        return
    grid.listed_pos = store.pos[:n].copy()
    grid.listed_angle = store.angle[:n].copy()
    grid.listed_margin = listed
    grid.listed_moving = moving.copy()


class BoxStepSystem(System):
    """Steps every box once per particle substep: contacts, the solver, then (once a frame) sleeping.

    The solver runs ``ceil(substeps / particle substeps)`` substeps of its
    own per call, so a frame gets about ``[world.rigid] substeps`` of them
    whatever the particles need. Gravity turning, a solver setting or a
    set's friction or iterations changing (``RigidStore.revision``) or the
    walls moving wake every box: the world they settled in changed.
    """

    name = "boxes"
    stage = Stage.SUBSTEP
    after = ("integrate", "pins", "fields")
    before = ("broadphase",)

    def __init__(self) -> None:
        self._rules: tuple[object, ...] | None = None
        """Gravity, the store's revision and the solver settings the boxes last moved under."""
        self._floats = np.zeros(0)
        self._ints = np.zeros(0, dtype=np.int64)
        self._plan_floats = np.zeros(0)
        self._plan_ints = np.zeros(0, dtype=np.int64)
        """The solver's working memory and its batches, kept from frame to frame (``step_boxes``)."""
        self._frame: tuple[object, ...] = ()
        self._planes = np.zeros((4, 3))
        self._solver: tuple[float | int, ...] = ()
        self._reach = self._wall_margin = 0.0
        """The rules, the walls and the step the last call ran under, and what the kernel takes made
        from them: the walls' planes (``wall_planes``), the solver's settings, the contact margins."""
        self._fitted: tuple[int, ...] = ()
        self._fitted_to: Stores | None = None
        """The counts and the stores ``_fit`` last sized the arrays for."""

    def process(self, step: Step) -> None:
        stores = world.stores()
        store = stores.rigid
        n = store.count
        if n == 0:
            return
        settings = world.settings()
        rigid = settings.rigid
        rules = (settings.gravity, store.revision, *vars(rigid).values())
        if rules != self._rules or settings.wall_velocity != (0.0, 0.0):
            if self._rules is not None or not rigid.sleeping:
                # sleepers settled under the old rules (or moving walls): show the new. Only sleeping
                # puts boxes to sleep, so with it off they stay awake until it is on again.
                wake_all(store)
            self._rules = rules
        spring_body, spring = held_box(store)
        if spring_body != NOTHING:
            wake(store, spring_body)
        walls = settings.walls
        frame = (rules, walls, settings.wall_velocity, step.dt, step.substeps)
        if frame != self._frame:
            self._frame = frame
            self._planes = wall_planes(walls)
            self._solver = (
                *settings.gravity,
                *settings.wall_velocity,
                step.dt,
                max(1, math.ceil(rigid.substeps / step.substeps)),
                rigid.iterations,
                CORRECTIONS.index(rigid.correction),
                rigid.slop,
                rigid.percent,
                rigid.contact_hertz,
                rigid.damping_ratio,
                rigid.push_speed,
            )
            self._reach = 0.5 * max(MIN_SPECULATIVE, SPECULATIVE_SLOPS * rigid.slop)
            self._wall_margin = self._reach + math.hypot(*settings.wall_velocity) * step.dt
        grid, contacts = stores.box_grid, stores.contacts
        fresh_pairs = False
        while True:
            self._fit(stores)
            done, found = step_box_frame(
                n,
                (store.pos, store.angle, store.vel, store.omega, store.half, store.inv_mass,
                 store.inv_inertia, store.friction, store.restitution, store.iterations, store.asleep),
                (grid.turn, grid.moving, grid.margin, grid.pair_a, grid.pair_b, grid.listed_pos,
                 grid.listed_angle, grid.listed_margin, grid.listed_moving, grid.manifold),
                grid.pair_count,
                fresh_pairs,
                (contacts.start, contacts.a, contacts.b, contacts.key, contacts.point, contacts.normal,
                 contacts.separation, contacts.gap, contacts.normal_impulse, contacts.tangent_impulse,
                 contacts.last_key, contacts.last_normal, contacts.last_tangent, contacts.last_start,
                 contacts.table),
                contacts.count,
                contacts.groups,
                (self._floats, self._ints, self._plan_floats, self._plan_ints),
                self._planes,
                self._reach,
                self._wall_margin,
                spring,
                spring_body,
                self._solver,
            )  # fmt: skip
            if done == RELIST:
                list_pairs_with_skin(grid, store, walls, grid.moving[:n], grid.margin[:n])
                fresh_pairs = True
            elif done == GROW:
                contacts.reserve(found)
            else:
                break
        if done == ASLEEP:
            # all asleep (or fixed): nothing found or solved; particles, the mouse and tools wake them.
            # The last step's contacts stay as they were (so do the boxes): the metrics and the debug
            # view still see how deep the sleepers rest.
            return
        contacts.count, contacts.groups = found, n + grid.pair_count
        if step.substep == step.substeps - 1 and rigid.sleeping:
            fall_asleep(
                store.vel[:n],
                store.omega[:n],
                store.half[:n],
                store.inv_mass[:n],
                store.sleep_time[:n],
                store.asleep[:n],
                store.island[:n],
                contacts.a[:found],
                contacts.b[:found],
                step.dt * step.substeps,
                rigid.sleep_speed,
                rigid.sleep_delay,
                spring_body,
            )

    def forget_packing(self) -> None:
        """Pack the solver's batches afresh on the next step, as if none were kept (a kept packing
        steps the very same as a fresh one: the tests compare the two)."""
        if len(self._plan_ints):
            self._plan_ints[CAPACITY] = -1  # made for a capacity there is not: it does not hold

    def _fit(self, stores: Stores) -> None:
        """Size what ``step_box_frame`` fills for this many boxes, pairs and contact rows (kept arrays
        that grow only when too small: fresh ones each frame would fault their pages in again)."""
        store, grid, contacts = stores.rigid, stores.box_grid, stores.contacts
        n = store.count
        rows = len(contacts.a)  # as many points at most, so as many manifolds at most
        counts = (n, grid.pair_count, rows)
        if counts == self._fitted and stores is self._fitted_to:
            return
        self._fitted, self._fitted_to = counts, stores
        if len(grid.turn) < n:
            grid.turn = np.zeros((len(store.pos), 2))
            grid.moving = np.zeros(len(store.pos), dtype=np.bool_)
            grid.margin = np.zeros(len(store.pos))
        if len(grid.manifold) < grid.pair_count:
            grid.manifold = np.zeros((2 * grid.pair_count, 11))
        groups = n + grid.pair_count
        if len(contacts.start) < groups + 1:
            contacts.start = np.zeros(2 * (groups + 1), dtype=np.int64)
        if len(contacts.last_start) < len(contacts.start):
            contacts.last_start = grow(contacts.last_start, len(contacts.start))
        size = table_size(rows)  # for the last step's points, which the rows held
        if len(contacts.table) != size:
            contacts.table = np.full((size, 3), -1.0)
        floats, ints = work_sizes(n, rows)
        if len(self._floats) < floats or len(self._ints) < ints:
            self._floats = np.zeros(floats)
            self._ints = np.zeros(ints, dtype=np.int64)
        floats, ints = plan_sizes(rows)
        if len(self._plan_floats) < floats or len(self._plan_ints) < ints:
            self._plan_floats = np.zeros(floats)  # its pages are touched only as batches use them
            self._plan_ints = np.zeros(ints, dtype=np.int64)


class BoxParticleSystem(System):
    """Pushes particles out of boxes and the boxes back each iteration (who is near whom: once a substep)."""

    name = "box_particles"
    stage = Stage.ITERATION
    needs_particles = True
    after = ("distances", "bounds", "collisions")

    def __init__(self) -> None:
        self._grid = BoxGrid()

    def process(self, step: Step) -> None:
        stores = world.stores()
        store, particles = stores.rigid, stores.particles
        n, count = store.count, particles.count
        near = stores.near_boxes
        if n == 0 or count == 0:
            near.count = 0
            return
        if step.iteration == 0:
            self._list(stores)
        if near.count == 0:
            return
        pairs = (
            particles.pos[:count],
            particles.prev[:count],
            particles.inv_mass[:count],
            particles.radius[:count],
            store.pos[:n],
            store.angle[:n],
            store.vel[:n],
            store.omega[:n],
            store.inv_mass[:n],
            store.inv_inertia[:n],
            store.half[:n],
            store.asleep[:n],
            store.island[:n],
            store.sleep_time[:n],
            near.particle[: near.count],
            near.box[: near.count],
            step.dt,
        )
        if step.iteration == 0:
            sweep_into_boxes(*pairs)  # once a substep, before the first push: what moved fast stops
        push_out_of_boxes(*pairs, store.friction[:n], WAKE_SPEED)

    def _list(self, stores: Stores) -> None:
        """List the (particle, box) pairs near enough to touch during this substep."""
        store, particles, grid, near = stores.rigid, stores.particles, self._grid, stores.near_boxes
        n, count = store.count, particles.count
        bin_grid(grid, store, world.settings().walls, store.max_half + particles.max_radius + PARTICLE_MARGIN)
        near.count, near.particle, near.box = fill_pairs(
            lambda out_particle, out_box: list_near_boxes(
                particles.pos[:count],
                particles.prev[:count],
                particles.radius[:count],
                particles.kind[:count],
                store.pos[:n],
                store.angle[:n],
                store.half[:n],
                PARTICLE_MARGIN,
                grid.left,
                grid.bottom,
                grid.cell,
                grid.cols,
                grid.rows,
                grid.cell_start,
                grid.order,
                out_particle,
                out_box,
            ),
            near.particle,
            near.box,
        )
