"""``weft.Physics``: Weft's cloth, circles, boxes, creatures and skeletons inside your esper world.

A ``Physics`` attaches to an esper world, the current one or one named: it
adds one entity there (``physics.entity``, holding the settings, the clock,
the stores and the tools' components) and one processor, which steps fixed
1/60 s frames from the time ``esper.process(dt)`` hands it (at most four
frames a call; a longer backlog is dropped). It never switches, clears or
owns the world: each method enters Weft's world for as long as it needs and
puts back whichever was current. Bodies are entities of that world with a
``weft.Body`` component and their kind's own (``Sheet``, ``BallSet``,
``BoxSet``, ``SoftBody``, ``Skinned``).

Example::

    import esper, weft

    esper.switch_world("mygame")
    physics = weft.Physics()
    crate = physics.add(weft.Boxes(layout="list", positions=[[400, 300]], size=[40, 40]))
    esper.process(1 / 60)              # your loop: Weft steps a frame among your processors
    x, y, angle = physics.pose(crate)
"""

from __future__ import annotations

import math
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import esper
import numpy as np
import numpy.typing as npt
from pydantic import BaseModel

from weft.components import (
    FRAME_DT,
    Body,
    BoxSet,
    Clock,
    Pour,
    Ragdoll,
    Sheet,
    Skinned,
    SoftBody,
    Stores,
    WorldSettings,
)
from weft.game.clock import FrameClock
from weft.game.level.build import KINDS, build_body, level_bodies, tool_components, world_settings
from weft.game.level.load import load_level
from weft.game.level.loaded import LoadedLevel
from weft.game.level.plugins import level_schedule, with_params
from weft.game.level.problems import LevelError
from weft.game.level.schema import (
    SPECS,
    Cloth,
    Level,
    Spec,
    ToolsTable,
    World,
    outside_world,
    sheet_extent,
)
from weft.game.level.textures import texture_problems
from weft.game.settings_guard import SettingsGuard
from weft.game.threads import ThreadChoice, numba_threads, threaded
from weft.game.tool_inputs import check_tools
from weft.systems import world as active
from weft.systems.boxes import BoxStepSystem, wake_islands
from weft.systems.cloth_cells import woven_triangles
from weft.systems.edits import rekey_contacts, remove_rows
from weft.systems.frame import default_schedule
from weft.systems.metrics import MetricsSystem, state_hash
from weft.systems.queries import boxes_at, cast_boxes, cast_circles, discs_at, polygon_holds, triangles_at
from weft.systems.schedule import Schedule, System
from weft.systems.skeletons import joint_positions
from weft.systems.softbody import head_line
from weft.systems.warmup import warm_kernels

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

RECENT_FRAMES = 600
"""Frames whose physics time ``frame_ms`` keeps (ten seconds): what a HUD shows."""

_attached: weakref.WeakValueDictionary[str, Physics] = weakref.WeakValueDictionary()
"""The Physics of each esper world, for ``follow`` and for refusing a second one."""


@dataclass(frozen=True)
class RayHit:
    """What ``Physics.raycast`` met first: a body (``entity``, and ``index`` within it), the point
    and outward ``normal`` there, and how far along the segment it is (``fraction``, 0 to 1)."""

    entity: int
    index: int
    point: tuple[float, float]
    normal: tuple[float, float]
    fraction: float


class Physics:
    """Weft in an esper world: bodies added and removed between any two frames, read, pushed,
    queried, and their contacts and tears sent as esper events.

    ``world``: the esper world to attach to (default: the current one; made if it does not exist).
    ``settings``: the ``[world]`` table (a ``weft.World``), default its defaults. ``priority``:
    of the one processor added, among the world's (esper runs higher first).
    """

    def __init__(self, world: str | None = None, settings: World | None = None, *, priority: int = 0) -> None:
        if world is not None and not isinstance(world, str):
            raise TypeError(f"weft.Physics: world: expected the name of an esper world, got {world!r}")
        if settings is not None and not isinstance(settings, World):
            raise TypeError(
                f"weft.Physics: settings: expected a weft.World (the [world] table), got {settings!r}"
            )
        if not isinstance(priority, int) or isinstance(priority, bool):
            raise TypeError(f"weft.Physics: priority: expected an integer (esper's), got {priority!r}")
        self._closed = False
        self.world = esper.current_world if world is None else world
        if _physics_in(self.world) is not None:
            raise ValueError(
                f"esper world {self.world!r} already has a weft.Physics: one per world (use another "
                "world, or the one there)"
            )
        warm_kernels()  # so the first frame's time is physics, not numba loading
        self.spec = settings if settings is not None else World()
        """The ``[world]`` table the settings come from (``configure`` changes it)."""
        self.pour = False
        """Whether circles may be poured in (the shipped pour tool): settings as for a world of circles."""
        self._schedule: Schedule = default_schedule()
        """The systems each frame runs (``schedule``)."""
        self.guard = SettingsGuard(self.bodies_level)
        """Brings back into range the settings a custom system leaves out of it, and within the frame
        budgets of the bodies there are (``take_notes`` says what)."""
        self._schedule.after_custom = self.guard
        self.clock = FrameClock()
        self.frame_ms: deque[float] = deque(maxlen=RECENT_FRAMES)
        """Wall time of each recent frame's physics, ms (never fed back into the simulation; it picks
        only how many threads run it, ``threads``)."""
        self.threads = ThreadChoice()
        """How many threads each frame runs on: one, unless two are measurably faster here and now."""
        self.revision = 0
        """Counts the bodies added and removed: drawing caches kept per entity start again when it changes."""
        self._followers: list[tuple[weakref.ref[Any], int, int | str]] = []
        self._stepping = False
        self._pending: list[Callable[[], None]] = []
        self._bodies: dict[int, Spec | None] = {}
        """Every body's entity and its spec (None for the circles the pour tool made)."""
        self._rows: dict[int, tuple[int, IntArray]] = {}
        """Rows of ball sets (found by their owner column), kept while no body comes or goes."""
        self._level_systems: dict[str, System] = {}
        """The custom systems that levels brought (``load``), by name: a level loaded again replaces
        its own, and a cleared world drops them."""
        with self.entered():
            self.entity = self._own_entity()
            """Weft's own entity in the world: settings, clock, stores and the tools' components."""
            esper.add_processor(_Frames(self), priority=priority)
            self.guard.accept(self.settings)
        _attached[self.world] = self

    # -- the world ------------------------------------------------------------

    @contextmanager
    def entered(self) -> Iterator[None]:
        """Make Weft's esper world the current one inside the ``with``, and put back the one that was."""
        if self._closed:
            raise RuntimeError("this weft.Physics was closed (physics.close()): make a new one")
        previous = esper.current_world
        if previous == self.world:
            yield
            return
        esper.switch_world(self.world)
        try:
            yield
        finally:
            esper.switch_world(previous)

    @property
    def schedule(self) -> Schedule:
        """The systems each frame runs, stage by stage. Read after the user cleared the world
        (``esper.clear_database``), it no longer holds the systems the levels loaded before brought,
        as the next step would find it."""
        with self.entered():
            self._check_attached()
        return self._schedule

    @property
    def settings(self) -> WorldSettings:
        """The settings every system reads each frame (live: gravity, wind, iterations...)."""
        return self._own(WorldSettings)

    @property
    def stores(self) -> Stores:
        """The particle, constraint and box buffers (live arrays: copy what you keep)."""
        return self._own(Stores)

    @property
    def frame(self) -> int:
        """Frames stepped so far."""
        return self._own(Clock).frame

    def component(self, kind: type) -> Any:
        """A component of Weft's own entity (``Grab``, ``Pour``...: what the tools act through)."""
        return self._own(kind)

    def _own_entity(self) -> int:
        """Make Weft's own entity in the current world, with empty stores, and measure from it."""
        stores = Stores()
        entity = esper.create_entity(world_settings(self.spec, (), self.pour), Clock(), stores)
        for component in tool_components(ToolsTable()):
            esper.add_component(entity, component)
        self._metrics.begin(stores)
        return entity

    def _own(self, kind: type) -> Any:
        with self.entered():
            self._check_attached()
            return esper.component_for_entity(self.entity, kind)

    @property
    def _metrics(self) -> MetricsSystem:
        return self._schedule.get("metrics")  # type: ignore[return-value]

    def state_hash(self) -> str:
        """sha256 of every particle position, box pose and bone frame: equal for bit-identical runs."""
        with self.entered():
            return state_hash(self.stores)

    def configure(self, settings: World) -> None:
        """Change the settings ``settings`` gives (``weft.World(gravity=(0, 500))`` changes gravity
        alone), keys of its inner tables (``wind``, ``rigid``) one by one too; every other setting,
        and the walls' shake, stays as it is."""
        if not isinstance(settings, World):
            raise TypeError(f"physics.configure: expected a weft.World, got {settings!r}")
        merged = _updated(self.spec, settings)
        self._take(World(**merged.model_dump(exclude_unset=True)))  # the rules between keys checked

    def _take(self, settings: World) -> None:
        """Make ``settings`` the whole ``[world]`` table (``load``: a level's, its defaults included)."""
        self.spec = settings
        with self.entered():
            current = self.settings
            fresh = world_settings(settings, self._specs(), self.pour)
            fresh.wall_offset, fresh.wall_velocity = current.wall_offset, current.wall_velocity
            vars(current).update(vars(fresh))
            self.guard.accept(current)

    def bodies_level(self, world: World) -> Level:
        """The level the bodies in the world make with ``world`` as its ``[world]`` table (and the
        pour tool if ``pour``): the frame whose budgets hold what a custom system sets."""
        tables: dict[str, list[Spec]] = {kind: [] for kind in KINDS.values()}
        for spec in self._specs():
            tables[KINDS[type(spec)]].append(spec)
        tools = ToolsTable.model_construct(available=["pour"] if self.pour else [])
        return Level.model_construct(world=world, tools=tools, **tables)

    def add_system(self, system: System) -> None:
        """Put a custom system (a ``weft.System``) into this world's schedule, at its stage and place.

        A system without ``params`` gets its ``Params``' defaults; to choose them, set
        ``system.params = MySystem.Params(strength=...)`` (or a dict of its values) first. Raises
        ``weft.LevelError`` for parameters that do not fit, as a level's ``params`` table would,
        and ``weft.systems.schedule.ScheduleError`` for a place no order can give; ``TypeError`` for
        anything but an instance of a ``weft.System`` (a class: make one, ``MySystem()``)."""
        if not isinstance(system, System):
            given = repr(system)
            if isinstance(system, type):
                given = f"the class {system.__qualname__} (make one: {system.__qualname__}())"
            raise TypeError(f"physics.add_system: expected an instance of a weft.System, got {given}")
        self._schedule.add(with_params(system))
        self._schedule.after_custom = self.guard

    def close(self) -> None:
        """Take Weft out of the world: its processor, its entity and every body's entity. Closed, it
        answers nothing more (``RuntimeError``); closing again does nothing."""
        if self._closed:
            return
        with self.entered():
            esper.remove_processor(_Frames)
            for entity in [*self._bodies, self.entity]:
                if esper.entity_exists(entity):
                    esper.delete_entity(entity, immediate=True)
        self._bodies.clear()
        _attached.pop(self.world, None)
        self._closed = True

    # -- bodies -----------------------------------------------------------------

    def load(
        self,
        level: str | Path | LoadedLevel,
        overrides: list[str] | tuple[str, ...] = (),
        allow_import: list[str] | tuple[str, ...] = (),
    ) -> dict[str, int]:
        """Add a level's bodies, its ``[world]`` settings, its custom systems and its tools' seed (a
        system of the same name that a level brought before is replaced: the same level may be loaded
        again).

        ``level``: a level file (TOML or a Tiled map), read as ``weft validate`` reads it, with
        ``--set`` style ``overrides``; ``allow_import``: module patterns its ``module:attr``
        systems may be imported from. Returns each body's entity by name. Raises
        ``weft.LevelError`` listing every problem, adding nothing.
        """
        if not isinstance(level, LoadedLevel):
            level = load_level(level, overrides, allow_import)
        with self.entered():
            self._check_attached()  # a cleared world has dropped the systems levels brought
        before = {system.name: system for system in self._schedule.systems()}
        # the same systems, and the level's; one a level brought before under the same name is replaced
        self._schedule = level_schedule(level, base=self._schedule, replacing=self._levels_own())
        for name in self._schedule.custom():
            if before.get(name) is not (system := self._schedule.get(name)):
                self._level_systems[name] = system
        tools = level.model.tools
        self._take(level.model.world)  # the level's whole table: not merged into the last one's
        with self.entered():
            esper.component_for_entity(self.entity, Pour).rng = np.random.default_rng(tools.seed)
        return {spec.name: self.add(spec, directory=level.directory) for spec in level_bodies(level.model)}

    def add(self, spec: Spec, *, directory: str | Path | None = None) -> int:
        """Add the body ``spec`` describes (a ``weft.Cloth``, ``weft.Balls``, ``weft.Boxes``,
        ``weft.Creature`` or ``weft.Skeleton``) and return its entity.

        Nothing else moves. Texture files are found relative to ``directory`` (default: the
        working directory). Called while a frame runs (from a custom system or an event
        handler), the body comes in when the frame ends. Raises ``ValueError`` for a creature
        or circles that do not start inside the world's bounds (a wall would fling the one and
        pile the others along it), as a level file's would be refused; a sheet partly outside is
        brought in by the walls, without tearing.
        """
        if not isinstance(spec, SPECS):
            names = ", ".join(f"weft.{kind.__name__}" for kind in SPECS)
            raise TypeError(f"expected a body spec ({names}), got {type(spec).__name__}")
        folder = Path.cwd() if directory is None else Path(directory)
        with self.entered():
            self._check_attached()
            # a sheet through a wall is let in: the walls bring it in whole (tests/test_walls.py)
            bounds = self.settings.bounds
            if not isinstance(spec, Cloth) and (outside := outside_world(spec, bounds)):
                raise ValueError(f"{spec.name}.{outside[0]}: {outside[1]}")
            if isinstance(spec, Cloth) and not _overlap(sheet_extent(spec), bounds):
                raise ValueError(
                    f"{spec.name}.origin: expected a sheet with some of it inside the world's "
                    f"bounds {list(bounds)}, got one wholly outside, at {list(sheet_extent(spec))}"
                )
            _check_textures(spec, folder)
            entity = esper.create_entity()
            self._bodies[entity] = spec
            if self._stepping:
                self._pending.append(lambda: self._build(entity, spec, folder))
            else:
                self._build(entity, spec, folder)
        return entity

    def _build(self, entity: int, spec: Spec, directory: Path) -> None:
        stores = self.stores
        boxes = stores.rigid.count
        for component in build_body(stores, entity, spec, directory):
            esper.add_component(entity, component)
        if stores.rigid.count != boxes:
            rekey_contacts(stores, boxes)  # the contacts' keys count the boxes
        self._edited()

    def remove(self, entity: int) -> None:
        """Take a body out: its rows are freed and every other body is left exactly as it was.

        A body's entity deleted with ``esper.delete_entity`` is taken out the same way, when the
        next frame starts. Called while a frame runs, the body goes when the frame ends.
        """
        with self.entered():
            if entity not in self._bodies:
                raise self._stranger(entity)
            if self._stepping:
                self._pending.append(lambda: self._free(entity))
            else:
                self._free(entity)

    def _free(self, entity: int) -> None:
        if self._bodies.pop(entity, _GONE) is _GONE:
            return  # removed twice in one frame
        remove_rows(self.stores, entity)
        if esper.entity_exists(entity):
            esper.delete_entity(entity, immediate=True)
        else:
            _strip(entity)
        self._followers = [f for f in self._followers if f[1] != entity]
        self._edited()

    def allow_pour(self, pour: bool = True) -> None:
        """Say whether circles may be poured in later (the pour tool): the world is then stepped as
        one of circles from the start (six substeps, circle iterations)."""
        if not isinstance(pour, bool):
            raise TypeError(f"physics.allow_pour: expected True or False, got {pour!r}")
        self.pour = pour
        self._derive()

    def _derive(self) -> None:
        """The settings that follow from the bodies there are: substeps, iterations (unless the
        ``[world]`` table sets them), whether circles or ragdolls are about."""
        settings, fresh = self.settings, world_settings(self.spec, self._specs(), self.pour)
        settings.min_spacing, settings.circles = fresh.min_spacing, fresh.circles
        settings.ragdolls = fresh.ragdolls
        if "iterations" not in self.spec.model_fields_set:
            settings.iterations = fresh.iterations
        self.guard.accept(settings)

    def _edited(self) -> None:
        """After bodies came or went: the settings they imply, and the steps' memory of the old rows."""
        self._derive()
        self._rows.clear()
        box_step = self._schedule.get("boxes")
        if isinstance(box_step, BoxStepSystem):
            box_step.forget_packing()
        if self.frame == 0:
            self._metrics.begin(self.stores)  # what is there before the first frame is where it starts
        self.revision += 1

    def _specs(self) -> list[Spec]:
        return [spec for spec in self._bodies.values() if spec is not None]

    def _reap(self) -> None:
        """Free the bodies whose entities the user deleted."""
        for entity in [e for e in self._bodies if not esper.entity_exists(e)]:
            self._free(entity)

    def _reap_unless_stepping(self) -> None:
        """Free the bodies the user deleted before a query looks, unless a frame runs: then they stay
        until it ends, as the ones ``remove`` takes out then do."""
        if not self._stepping:
            self._check_attached()
            self._reap()

    def _adopt(self) -> None:
        """Take in the bodies systems made (the pour tool's set of circles)."""
        for entity, _ in esper.get_component(Body):
            if entity not in self._bodies:
                self._bodies[entity] = None
                self.revision += 1

    # -- stepping ---------------------------------------------------------------

    def step(self, frames: int = 1) -> None:
        """Run ``frames`` frames of 1/60 s now (what the processor does from ``esper.process``)."""
        if not isinstance(frames, int) or isinstance(frames, bool) or frames < 0:
            raise ValueError(f"physics.step: frames: expected a whole number >= 0, got {frames!r}")
        if self._closed:
            raise RuntimeError("this weft.Physics was closed (physics.close()): make a new one")
        previous = esper.current_world  # ``entered``, written out: a frame feels a generator's calls
        if previous != self.world:
            esper.switch_world(self.world)
        try:
            self._check_attached()
            clock = esper.component_for_entity(self.entity, Clock)
            for _ in range(frames):
                self._step_frame(clock)
        finally:
            if previous != self.world:
                esper.switch_world(previous)

    def _step_frame(self, clock: Clock) -> None:
        self._reap()
        self.guard.check(esper.component_for_entity(self.entity, WorldSettings), "physics.settings")
        check_tools(self.entity)
        large = threaded(esper.component_for_entity(self.entity, Stores))  # a rebuild may replace it
        started = time.perf_counter()
        self._stepping = True
        try:
            if large:
                with numba_threads(self.threads.threads(large)):
                    self._schedule.step_frame(clock.frame)
            else:  # its kernels are the one-thread twins: numba's thread count is no matter
                self._schedule.step_frame(clock.frame)
        finally:
            self._stepping = False
        clock.frame += 1
        ms = (time.perf_counter() - started) * 1e3
        self.frame_ms.append(ms)
        self.threads.record(large, ms)
        self._adopt()
        while self._pending:
            self._pending.pop(0)()
        if self._followers:
            self._move_followers()

    def _levels_own(self) -> set[str]:
        """The names of the systems levels brought that are still scheduled (not taken out since)."""
        scheduled = {system.name: system for system in self._schedule.systems()}
        return {name for name, system in self._level_systems.items() if scheduled.get(name) is system}

    def _check_attached(self) -> None:
        """Weft's entity is gone when the user cleared the world: start again, empty, as they asked."""
        if esper.entity_exists(self.entity):
            return
        self._bodies.clear()
        self._followers.clear()
        self._rows.clear()
        for name in self._levels_own():
            self._schedule.remove(name)
        self._level_systems.clear()
        self.entity = self._own_entity()
        self.revision += 1

    # -- reading ------------------------------------------------------------------

    def bodies(self) -> list[int]:
        """Every body's entity, oldest first."""
        with self.entered():
            return sorted(entity for entity in self._bodies if esper.entity_exists(entity))

    def body(self, entity: int) -> Body:
        """The ``weft.Body`` of ``entity``: its kind, name and spec."""
        with self.entered():
            return esper.component_for_entity(self._known(entity), Body)

    def find(self, name: str) -> int:
        """The entity of the body called ``name``; ``KeyError`` when none is, or more than one (bodies
        added without a ``name`` are called by their kind: ``"balls"``...)."""
        with self.entered():
            bodies = active.by_entity(Body)
        called = [entity for entity, body in bodies if body.name == name]
        if len(called) == 1:
            return called[0]
        if called:
            raise KeyError(f"{len(called)} bodies are called {name!r} (entities {called}): name them apart")
        raise KeyError(f"no body named {name!r}; there are {[body.name for _, body in bodies]}")

    def _known(self, entity: int) -> int:
        if entity not in self._bodies or not esper.entity_exists(entity):
            raise self._stranger(entity)
        return entity

    def _stranger(self, entity: int) -> KeyError:
        return KeyError(f"entity {entity} is not a body of this weft.Physics (its bodies: {self.bodies()})")

    def rows(self, entity: int) -> tuple[str, IntArray]:
        """Where a body lives in the stores: ``("particles", rows)`` or ``("boxes", rows)`` of the
        ``RigidStore`` (a keyframed skeleton has no rows: ``("particles", [])``), in body order."""
        with self.entered():
            return self._rows_of(self._known(entity))

    def _rows_of(self, entity: int) -> tuple[str, IntArray]:
        """``rows``, for a body known to be there (or deleted while a frame runs: its rows stay
        until the frame ends)."""
        with self.entered():
            if esper.has_component(entity, BoxSet):
                boxes = esper.component_for_entity(entity, BoxSet).bodies
                return "boxes", np.arange(boxes.start, boxes.stop)
            if esper.has_component(entity, Sheet):
                sheet = esper.component_for_entity(entity, Sheet).particles
                return "particles", np.arange(sheet.start, sheet.stop)
            if esper.has_component(entity, SoftBody):
                return "particles", esper.component_for_entity(entity, SoftBody).particles
            if esper.has_component(entity, Ragdoll):
                joints = esper.component_for_entity(entity, Ragdoll).particles
                return "particles", np.arange(joints.start, joints.stop)
            if esper.has_component(entity, Skinned):
                return "particles", np.zeros(0, dtype=np.int64)
            particles = self.stores.particles
            kept = self._rows.get(entity)  # bodies coming or going clear these; pouring adds rows
            if kept is None or kept[0] != particles.count:
                rows = np.flatnonzero(particles.owner[: particles.count] == entity)
                rows.flags.writeable = False  # kept: a caller must not change it
                kept = self._rows[entity] = (particles.count, rows)
            return "particles", kept[1]

    def positions(self, entity: int) -> FloatArray:
        """A copy of a body's positions ``(n, 2)``, px: its particles, its boxes' centres, or a
        skeleton's joints (in the level's order)."""
        with self.entered():
            if esper.has_component(self._known(entity), Skinned):
                return joint_positions(esper.component_for_entity(entity, Skinned))
            kind, rows = self.rows(entity)
            stores = self.stores
            return (stores.rigid.pos if kind == "boxes" else stores.particles.pos)[rows]

    def velocities(self, entity: int) -> FloatArray:
        """A copy of a body's velocities ``(n, 2)``, px/s (boxes: their centres'; particles: over the
        last substep)."""
        kind, rows = self.rows(entity)
        stores = self.stores
        if kind == "boxes":
            return stores.rigid.vel[rows]
        particles = stores.particles
        return (particles.pos[rows] - particles.prev[rows]) / self._substep()

    def poses(self, entity: int) -> FloatArray:
        """A copy of the poses ``(n, 3)`` of a body's parts: ``x, y`` px and angle (radians,
        counter-clockwise): its boxes, its particles (angle 0), or a skeleton's bones."""
        with self.entered():
            if esper.has_component(self._known(entity), Skinned):
                pose = esper.component_for_entity(entity, Skinned).skeleton.pose
                return np.column_stack([pose[:, :, 2], np.arctan2(pose[:, 1, 0], pose[:, 0, 0])])
            kind, rows = self.rows(entity)
            if kind == "boxes":
                rigid = self.stores.rigid
                return np.column_stack([rigid.pos[rows], rigid.angle[rows]])
            return np.column_stack([self.stores.particles.pos[rows], np.zeros(len(rows))])

    def pose(self, entity: int, index: int | str = 0) -> tuple[float, float, float]:
        """``(x, y, angle)`` of one part of a body: box ``index`` of a set, circle or point ``index``,
        a skeleton's bone (``index`` or its name), or a creature's centre and tilt (radians,
        counter-clockwise; 0 when upright)."""
        with self.entered():
            if esper.has_component(self._known(entity), SoftBody):
                body = esper.component_for_entity(entity, SoftBody)
                pos = self.stores.particles.pos
                center = pos[body.ring].mean(axis=0)
                ux, uy = head_line(pos, body)
                return (float(center[0]), float(center[1]), math.atan2(uy, ux))
            if esper.has_component(entity, Skinned):
                frames = esper.component_for_entity(entity, Skinned).skeleton.pose
                bone = self._bone(entity, index) if isinstance(index, str) else index
                frame = frames[_part(entity, bone, len(frames))]
                return (float(frame[0, 2]), float(frame[1, 2]), math.atan2(frame[1, 0], frame[0, 0]))
            kind, rows = self._chosen(entity, index)
            row = int(rows[0])
            if kind == "boxes":
                rigid = self.stores.rigid
                return (float(rigid.pos[row, 0]), float(rigid.pos[row, 1]), float(rigid.angle[row]))
            x, y = self.stores.particles.pos[row]
            return (float(x), float(y), 0.0)

    def _bone(self, entity: int, name: str) -> int:
        skinned = esper.try_component(entity, Skinned)
        names = list(skinned.skeleton.names) if skinned is not None else []
        if name not in names:
            raise KeyError(f"no bone named {name!r} in entity {entity}; its bones: {names}")
        return names.index(name)

    # -- pushing ----------------------------------------------------------------

    def apply_impulse(
        self,
        entity: int,
        impulse: tuple[float, float],
        index: int | None = None,
        at: tuple[float, float] | None = None,
    ) -> None:
        """Give each of a body's parts (or part ``index``) an impulse, mass × px/s: a velocity change
        of ``impulse`` / mass. ``at``: a world point where a box is struck (it turns too)."""
        jx, jy = _finite_pair(impulse, "impulse")
        kind, rows = self._chosen(entity, index)
        stores = self.stores
        if kind == "boxes":
            rigid = stores.rigid
            rigid.vel[rows] += np.array([jx, jy]) * rigid.inv_mass[rows, None]
            if at is not None:
                ax, ay = _finite_pair(at, "at")
                rx, ry = ax - rigid.pos[rows, 0], ay - rigid.pos[rows, 1]
                rigid.omega[rows] += rigid.inv_inertia[rows] * (rx * jy - ry * jx)
            self._wake(rows)
        else:
            particles = stores.particles
            change = np.array([jx, jy]) * particles.inv_mass[rows, None]
            particles.prev[rows] -= change * self._substep()  # Verlet keeps velocity as pos - prev

    def set_velocity(
        self, entity: int, velocity: tuple[float, float], index: int | None = None, spin: float | None = None
    ) -> None:
        """Set the velocity of each of a body's movable parts (or part ``index``), px/s; ``spin``
        sets boxes turning too, radians/s counter-clockwise. Fixed parts stay put."""
        vx, vy = _finite_pair(velocity, "velocity")
        kind, rows = self._chosen(entity, index)
        stores = self.stores
        if kind == "boxes":
            rigid = stores.rigid
            rows = rows[rigid.inv_mass[rows] > 0.0]
            rigid.vel[rows] = (vx, vy)
            if spin is not None:
                rigid.omega[rows] = _finite(spin, "spin")
            self._wake(rows)
        else:
            particles = stores.particles
            rows = rows[particles.inv_mass[rows] > 0.0]
            particles.prev[rows] = particles.pos[rows] - np.array([vx, vy]) * self._substep()

    def _chosen(self, entity: int, index: int | str | None) -> tuple[str, IntArray]:
        """A body's rows, or the one of part ``index``."""
        kind, rows = self.rows(entity)
        if index is None:
            return kind, rows
        if isinstance(index, str):
            raise KeyError(f"entity {entity} has no named parts (bones are a skeleton's); got {index!r}")
        return kind, rows[[_part(entity, index, len(rows))]]

    def _wake(self, rows: IntArray) -> None:
        wake_islands(self.stores.rigid, rows)

    def _substep(self) -> float:
        return FRAME_DT / self.settings.resolved_substeps()

    # -- queries ------------------------------------------------------------------

    def query_point(self, point: tuple[float, float]) -> list[tuple[int, int]]:
        """The bodies under ``point``: ``[(entity, index), ...]``, nearest first (by distance from
        the part's centre). Circles and other particles with a radius (``index``: the particle),
        boxes (the box), cloth (the nearest point of the triangle there) and creatures (the
        nearest point of the ring around it)."""
        x, y = _finite_pair(point, "point")
        with self.entered():
            self._reap_unless_stepping()
            stores = self.stores
            pos = stores.particles.pos
            found: dict[tuple[int, int], float] = {}

            def note(entity: int, row: int, distance: float) -> None:
                if entity not in self._bodies:
                    return  # a row of a body coming in at the end of this frame
                key = (entity, self._index(entity, row))
                found[key] = min(found.get(key, math.inf), distance)

            rows, distances = discs_at(stores, x, y)
            for row, distance in zip(rows.tolist(), distances.tolist(), strict=True):
                note(int(stores.particles.owner[row]), row, distance)
            rows, distances = boxes_at(stores, x, y)
            for row, distance in zip(rows.tolist(), distances.tolist(), strict=True):
                note(int(stores.rigid.owner[row]), row, distance)
            alive = stores.distances.alive
            for entity, sheet in active.by_entity(Sheet):
                triangles, _ = woven_triangles(pos, sheet.cells, sheet.cell_threads, alive)  # the cloth drawn
                for triangle in triangles_at(pos, triangles, x, y).tolist():
                    corners = triangles[triangle]
                    gaps = np.hypot(*(pos[corners] - (x, y)).T)
                    note(entity, int(corners[np.argmin(gaps)]), float(gaps.min()))
            for entity, creature in active.by_entity(SoftBody):
                if polygon_holds(pos[creature.ring], x, y):
                    gaps = np.hypot(*(pos[creature.ring] - (x, y)).T)
                    note(entity, int(creature.ring[np.argmin(gaps)]), float(gaps.min()))
        return sorted(found, key=lambda key: (found[key], key))

    def _index(self, entity: int, row: int) -> int:
        """The index within its body (as ``positions`` lists them) of store row ``row``."""
        return int(np.flatnonzero(self._rows_of(entity)[1] == row)[0])

    def raycast(self, start: tuple[float, float], end: tuple[float, float]) -> RayHit | None:
        """The first circle or box the segment from ``start`` to ``end`` enters, or None. A circle
        or box ``start`` lies inside is passed by (so a ray cast from inside the player's own
        body sees what is beyond it)."""
        s = np.array(_finite_pair(start, "start"))
        e = np.array(_finite_pair(end, "end"))
        with self.entered():
            self._reap_unless_stepping()
            stores = self.stores
            circle, circle_t, circle_normal = cast_circles(stores, s, e)
            box, box_t, box_normal = cast_boxes(stores, s, e)
            if circle < 0 and box < 0:
                return None
            if box < 0 or (circle >= 0 and circle_t <= box_t):
                entity, row, t, normal = int(stores.particles.owner[circle]), circle, circle_t, circle_normal
            else:
                entity, row, t, normal = int(stores.rigid.owner[box]), box, box_t, box_normal
            index = self._index(entity, row)
        point = s + t * (e - s)
        return RayHit(
            entity, index, (float(point[0]), float(point[1])), (float(normal[0]), float(normal[1])), t
        )

    # -- sprites ----------------------------------------------------------------

    def follow(self, sprite: Any, entity: int, index: int | str = 0) -> None:
        """Keep ``sprite`` on a body after every frame (see ``weft.draw.follow``)."""
        self.pose(entity, index)  # the body and part exist: say so now, not after the next frame
        self._followers = [f for f in self._followers if f[0]() is not sprite]
        self._followers.append((weakref.ref(sprite), entity, index))
        self._move_followers()

    def unfollow(self, sprite: Any) -> None:
        """Stop moving ``sprite``."""
        self._followers = [f for f in self._followers if f[0]() is not sprite]

    def _move_followers(self) -> None:
        kept = []
        for ref, entity, index in self._followers:
            sprite = ref()
            if sprite is None or entity not in self._bodies:
                continue
            x, y, angle = self.pose(entity, index)
            sprite.position = (x, y)
            sprite.angle = -math.degrees(angle)  # Arcade turns sprites clockwise, in degrees
            kept.append((ref, entity, index))
        self._followers = kept


_GONE = object()


def _strip(entity: int) -> None:
    """Take the components off an entity the game deleted not at once (``esper.delete_entity``):
    esper keeps them until its next ``process``, and a body's (a ``SoftBody``...) outliving its
    rows had its systems act on the rows of the next body added (circles thrown 550 px). The
    entity itself is left for esper to finish."""
    try:
        components = esper.components_for_entity(entity)
    except KeyError:  # deleted at once: nothing is left of it
        return
    for component in components:
        esper.remove_component(entity, type(component))


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two rectangles ``(left, bottom, right, top)`` share any point."""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def _check_textures(spec: Spec, folder: Path) -> None:
    """Raise the ``LevelError`` a level file would give for a texture ``spec`` names that is not an
    image file in ``folder`` (the drawing's rule), naming the key."""
    table = KINDS[type(spec)]
    problems = texture_problems(
        Level.model_construct(**{table: [spec]}), folder, f"weft.{type(spec).__name__}"
    )
    if problems:
        raise LevelError([replace(problem, path=problem.path[2:]) for problem in problems])


def _updated(table: BaseModel, given: BaseModel) -> BaseModel:
    """``table`` with the keys ``given`` sets (``model_fields_set``) taken from it, tables within
    tables key by key."""
    changes = {}
    for key in given.model_fields_set:
        old, new = getattr(table, key), getattr(given, key)
        both_tables = isinstance(old, BaseModel) and type(old) is type(new)
        changes[key] = _updated(old, new) if both_tables else new
    return table.model_copy(update=changes)


def _physics_in(world: str) -> Physics | None:
    """The Physics attached to esper world ``world``, if it still is (the world may have been
    deleted since, or its entities cleared and Weft's with them)."""
    physics = _attached.get(world)
    if physics is None or world not in esper.list_worlds():
        return None
    with physics.entered():
        return physics if esper.get_processor(_Frames) is not None else None


def physics_of_current_world() -> Physics:
    """The ``Physics`` attached to the current esper world."""
    physics = _physics_in(esper.current_world)
    if physics is None:
        raise LookupError(
            f"the current esper world {esper.current_world!r} has no weft.Physics: make one there first, "
            "or pass physics= explicitly"
        )
    return physics


def _part(entity: int, index: int, parts: int) -> int:
    """``index`` as an index of one of ``parts`` (negative ones from the end); an IndexError otherwise."""
    if not -parts <= index < parts:
        raise IndexError(f"entity {entity} has {parts} parts; got index {index}")
    return index


def _finite(value: Any, name: str) -> float:
    """``value`` as a finite float; a ValueError naming ``name`` otherwise."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"expected {name} as a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"expected {name} as a finite number, got {value!r}")
    return number


def _finite_pair(value: Any, name: str) -> tuple[float, float]:
    """``value`` as two finite floats; a ValueError naming ``name`` otherwise."""
    try:
        x, y = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"expected {name} as two numbers (x, y), got {value!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ValueError(f"expected {name} as two finite numbers, got {value!r}")
    return (x, y)


class _Frames(esper.Processor):
    """The one processor Weft adds: ``esper.process(dt)`` steps the frames ``dt`` seconds are worth
    (``esper.process()`` without a time: one frame)."""

    def __init__(self, physics: Physics) -> None:
        self.physics = physics
        """Kept alive by its processor: a Physics lives as long as it is attached."""

    def process(self, *args: Any, **kwargs: Any) -> None:
        dt = args[0] if args else kwargs.get("dt")
        frames = 1 if dt is None else self.physics.clock.frames_for(float(dt))
        if frames:
            self.physics.step(frames)
