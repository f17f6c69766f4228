"""The Python API: load a level into a world, step it, read its arrays and metrics."""

from __future__ import annotations

import itertools
import math
import time
from pathlib import Path
from typing import Any

import esper
import numpy as np
import numpy.typing as npt

from weft.components import BallSet, BoxSet, Sheet, SoftBody, Stores, WorldSettings
from weft.components.skinned import Ragdoll, Skinned
from weft.game.level.build import (
    box_sets,
    build_world,
    cloth_look,
    cloths,
    has_circles,
    pin_layout,
    world_settings,
)
from weft.game.level.fields import rgba
from weft.game.level.load import LoadedLevel, load_level, parse_key
from weft.game.level.plugins import level_schedule
from weft.systems import world
from weft.systems.cloth import layout_pins
from weft.systems.metrics import MetricsSystem, body_count, max_stretch, state_hash
from weft.systems.schedule import Schedule
from weft.systems.skeletons import joint_positions
from weft.systems.warmup import warm_kernels

Body = Sheet | BallSet | SoftBody | BoxSet | Skinned
"""What ``Simulation.bodies`` lists."""

_LOOK_KEYS = {"pattern", "pattern_size", "texture", "colors"}
_UNSEEN_TABLES = {"level", "tools", "panel", "view"}
"""Tables the physics never reads (tools read their strength when used; drawing reads the view)."""


class Simulation:
    """A level's world, stepped at a fixed 1/60 s.

    Each simulation owns an esper world of its own (esper worlds are global
    and named); every method switches to it first, so several simulations
    can live side by side.

    Example::

        sim = Simulation.load("levels/cloth.toml", overrides=["world.iterations=40"])
        sim.step(120)
        sheet = sim.positions("sheet")          # (N, 2) copy, px
        print(sim.metrics()["max_stretch"])
    """

    _names = itertools.count()

    def __init__(self, level: LoadedLevel) -> None:
        self.level = level
        self.world_name = f"weft-{next(self._names)}"
        self.generation = 0
        """Counts rebuilds, so drawing caches keyed by entity know when entities were replaced."""
        warm_kernels()  # so the first frame's step time is physics, not numba loading
        self._build()

    @classmethod
    def load(
        cls,
        path: str | Path,
        overrides: list[str] | tuple[str, ...] = (),
        allow_import: list[str] | tuple[str, ...] = (),
    ) -> Simulation:
        """Read a level file (with ``--set`` style ``KEY=VALUE`` overrides) and build its world.

        ``allow_import``: module patterns its ``module:attr`` systems may be imported from (as
        ``--allow-import``). Raises ``weft.game.level.LevelError`` listing every problem of the file.
        """
        return cls(load_level(path, overrides, allow_import))

    def _build(self) -> None:
        schedule = level_schedule(
            self.level
        )  # first: its LevelError (a [[system]] entry) leaves all as it was
        self.activate()
        esper.clear_database()
        self.cursor = build_world(self.level)
        """The entity holding the tools' ``Grab`` and ``CutStroke``."""
        self.schedule: Schedule = schedule
        self._metrics: MetricsSystem = self.schedule.get("metrics")  # type: ignore[assignment]
        self._metrics.begin(self.stores)
        self.step_ms: list[float] = []
        """Wall-clock physics time of each frame, ms (measurement only, never fed back)."""
        self.frame = 0
        self.generation += 1

    def activate(self) -> None:
        """Make this simulation's esper world the current one."""
        esper.switch_world(self.world_name)

    def close(self) -> None:
        """Delete the esper world; the simulation cannot be used afterwards."""
        esper.switch_world("default")
        if self.world_name in esper.list_worlds():
            esper.delete_world(self.world_name)

    # -- stepping ---------------------------------------------------------

    def step(self, frames: int = 1) -> None:
        """Advance ``frames`` fixed frames of 1/60 s."""
        self.activate()
        clock = world.clock()
        for _ in range(frames):
            started = time.perf_counter()
            self.schedule.step_frame(clock.frame)
            clock.frame += 1
            self.step_ms.append((time.perf_counter() - started) * 1e3)
        self.frame = clock.frame

    def reset(self) -> None:
        """Rebuild the world from the level as it is now (with every ``set`` applied)."""
        self._build()

    def set(self, key: str | tuple[str | int, ...], value: Any) -> bool:
        """Change one level key (``"world.iterations"``, ``"cloth.0.tear_ratio"``...) while running.

        Settings, tear ratio, compliance, pins and looks change in place;
        anything else (a sheet's size, shear, bend...) rebuilds the world.
        Returns True when it rebuilt. Raises ``LevelError`` for an invalid
        value, leaving the simulation as it was.
        """
        path = parse_key(key) if isinstance(key, str) else tuple(key)
        level = self.level.with_value(path, value)
        if path[0] == "system":
            level_schedule(level)  # a refused import or bad params raise here, before anything changes
        self.level = level
        self.activate()
        if path[0] in _UNSEEN_TABLES:
            self.settings.circles = has_circles(self.level.model)  # the pour tool may have come or gone
            return False
        if path[0] == "world":
            settings = self.settings
            fresh = world_settings(self.level.model)
            fresh.wall_offset, fresh.wall_velocity = settings.wall_offset, settings.wall_velocity
            vars(settings).update(vars(fresh))
            return False
        if path[0] == "cloth" and len(path) >= 3 and isinstance(path[1], int):
            entity, cloth = cloths()[path[1]]
            if self._tune_cloth(entity, cloth, path[1], str(path[2])):
                return False
        boxes_key = path[0] == "boxes" and len(path) >= 3 and isinstance(path[1], int)
        if boxes_key and self._tune_boxes(int(path[1]), str(path[2])):
            return False
        self._build()
        return True

    def _tune_boxes(self, index: int, key: str) -> bool:
        """Apply a box set's friction, iterations or colours in place; False when only a rebuild can."""
        table = self.level.model.boxes[index]
        _, boxes = box_sets()[index]
        rows = slice(boxes.bodies.start, boxes.bodies.stop)
        store = self.stores.rigid
        if key == "friction":
            store.friction[rows] = table.friction
            store.revision += 1
        elif key == "iterations":
            store.iterations[rows] = table.iterations or 0
            store.revision += 1
        elif key == "colors":
            boxes.colors = tuple(rgba(c) for c in table.colors)
        else:
            return False
        return True

    def _tune_cloth(self, entity: int, cloth: Sheet, index: int, key: str) -> bool:
        """Apply a cloth key in place; False when only a rebuild can apply it."""
        table = self.level.model.cloth[index]
        distances = self.stores.distances
        structural = slice(cloth.structural.start, cloth.structural.stop)
        threads = slice(cloth.threads.start, cloth.threads.stop)
        if key in ("tear_ratio", "tearable"):
            distances.tear_ratio[structural] = table.tear_ratio if table.tearable else math.inf
        elif key == "compliance":
            distances.compliance[threads] = table.compliance
        elif key == "pins":
            cloth.pins = pin_layout(table)
            layout_pins(self.stores, entity, cloth)
        elif key in _LOOK_KEYS:
            cloth.look = cloth_look(table, self.level)
        else:
            return False
        return True

    # -- reading ----------------------------------------------------------

    @property
    def stores(self) -> Stores:
        """The particle and constraint buffers (live arrays: copy before keeping)."""
        self.activate()
        return world.stores()

    @property
    def settings(self) -> WorldSettings:
        """The world settings systems read each frame."""
        self.activate()
        return world.settings()

    @property
    def name(self) -> str:
        """The level's title."""
        return self.level.model.level.name

    def bodies(self) -> list[tuple[int, Body]]:
        """Every named body (sheets, ball sets, creatures, box sets, skeletons), each in creation order."""
        self.activate()
        return [
            *cloths(),
            *world.by_entity(BallSet),
            *world.by_entity(SoftBody),
            *box_sets(),
            *world.by_entity(Skinned),
        ]

    def body(self, name: str) -> tuple[int, Body]:
        """The entity and component of the body called ``name``."""
        for entity, body in self.bodies():
            if body.name == name:
                return entity, body
        known = [body.name for _, body in self.bodies()]
        raise KeyError(f"no body named {name!r}; the level has {known}")

    def indices(self, name: str) -> npt.NDArray[np.int64]:
        """The particle indices of the body called ``name``, ascending (boxes: rows of ``stores.rigid``;
        a keyframed skeleton has none)."""
        entity, body = self.body(name)
        if isinstance(body, Skinned):
            if esper.has_component(entity, Ragdoll):
                joints = esper.component_for_entity(entity, Ragdoll).particles
                return np.arange(joints.start, joints.stop)
            return np.zeros(0, dtype=np.int64)
        if isinstance(body, BoxSet):
            return np.arange(body.bodies.start, body.bodies.stop)
        if isinstance(body, Sheet):
            return np.arange(body.particles.start, body.particles.stop)
        if isinstance(body, SoftBody):
            return body.particles
        particles = self.stores.particles
        return np.flatnonzero(particles.owner[: particles.count] == entity)

    def positions(self, name: str | None = None) -> npt.NDArray[np.float64]:
        """A copy of the positions ``(n, 2)`` of one body's particles (box centres for boxes, joints
        in level order for a skeleton), or of every particle."""
        particles = self.stores.particles
        if name is None:
            return particles.pos[: particles.count].copy()
        body = self.body(name)[1]
        if isinstance(body, BoxSet):
            return self.stores.rigid.pos[self.indices(name)]
        if isinstance(body, Skinned):
            return joint_positions(body)
        return particles.pos[self.indices(name)]

    def poses(self, name: str) -> npt.NDArray[np.float64]:
        """A copy of the poses ``(n, 3)`` of a box set: centre x, y (px) and angle (radians)."""
        rows = self.indices(name)
        boxes = self.stores.rigid
        return np.column_stack([boxes.pos[rows], boxes.angle[rows]])

    def metrics(self) -> dict[str, Any]:
        """The metrics of the run so far, as ARCHITECTURE.md's metrics contract describes."""
        stores = self.stores
        distances = stores.distances
        alive = int(distances.alive[: distances.count].sum())
        steps = np.array(self.step_ms) if self.step_ms else np.zeros(1)
        return {
            "frames": self.frame,
            "counts": {
                "particles": stores.particles.count,
                "circles": stores.particles.circles,
                "constraints": distances.count,
                "constraints_alive": alive,
                "torn": distances.count - alive,
                "bodies": body_count(),
                "rigid_bodies": stores.rigid.count,
                "sleeping": int(stores.rigid.asleep[: stores.rigid.count].sum()),
            },
            "step_ms": {
                "median": round(float(np.median(steps)), 4),
                "p95": round(float(np.percentile(steps, 95)), 4),
            },
            "max_penetration": self._metrics.max_penetration(),
            "max_stretch": max_stretch(stores),
            "settled_frame": self._metrics.settled_frame(),
            "state_hash": state_hash(stores),
        }

    def state(self) -> dict[str, Any]:
        """Every named body with its particles' positions, px (radii for circles; centres and angles
        for boxes)."""
        particles = self.stores.particles
        bodies: dict[str, Any] = {}
        for _, body in self.bodies():
            index = self.indices(body.name)
            if isinstance(body, BoxSet):
                poses = self.poses(body.name)
                bodies[body.name] = {
                    "kind": "boxes",
                    "positions": poses[:, :2].tolist(),
                    "angles": poses[:, 2].tolist(),
                }
            elif isinstance(body, Sheet):
                bodies[body.name] = {"kind": "cloth", "positions": particles.pos[index].tolist()}
            elif isinstance(body, Skinned):
                bodies[body.name] = {"kind": "skeleton", "positions": joint_positions(body).tolist()}
            elif isinstance(body, SoftBody):
                bodies[body.name] = {
                    "kind": "creature",
                    "positions": particles.pos[index].tolist(),
                    "pressed": body.pressed,
                }
            else:
                bodies[body.name] = {
                    "kind": "balls",
                    "positions": particles.pos[index].tolist(),
                    "radii": particles.radius[index].tolist(),
                }
        return {"level": self.name, "frame": self.frame, "bodies": bodies}

    def state_hash(self) -> str:
        """sha256 of every particle position and box pose: equal for bit-identical runs."""
        return state_hash(self.stores)
