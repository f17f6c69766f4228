"""The headless Python API: a level loaded into a ``weft.Physics`` of its own, stepped, read, measured."""

from __future__ import annotations

import itertools
from array import array
from pathlib import Path
from typing import Any

import esper
import numpy as np
import numpy.typing as npt

from weft.components import BallSet, BoxSet, Sheet, SoftBody, Stores, WorldSettings
from weft.components.skinned import Skinned
from weft.game.level.build import cloth_look, has_circles, pin_layout
from weft.game.level.load import kernel_checks, load_level, parse_key, with_value
from weft.game.level.loaded import LoadedLevel
from weft.game.level.plugins import level_schedule
from weft.game.level.values import rgba
from weft.game.physics import Physics
from weft.systems import world
from weft.systems.box_build import solver_passes
from weft.systems.cloth import layout_pins, points_in_rows
from weft.systems.metrics import MetricsSystem, body_count, cloth_threads, max_stretch
from weft.systems.schedule import Schedule
from weft.systems.skeletons import joint_positions

Body = Sheet | BallSet | SoftBody | BoxSet | Skinned
"""What ``Simulation.bodies`` lists."""

_LOOK_KEYS = {"pattern", "pattern_size", "texture", "colors"}
_UNSEEN_TABLES = {"level", "tools", "panel", "view"}
"""Tables the physics never reads (tools read their strength when used; drawing reads the view)."""


class Simulation:
    """A level's world, stepped at a fixed 1/60 s: a ``weft.Physics`` in an esper world of its own.

    Its methods enter that world and leave the current one as it was, so
    several simulations (and a game's own world) live side by side. The
    window and ``weft run`` are built on it; a game of your own uses
    ``weft.Physics`` in its world instead.

    Example::

        sim = Simulation.load("levels/cloth.toml", overrides=["world.iterations=40"])
        sim.step(120)
        sheet = sim.positions("sheet")          # (N, 2) copy, px
        print(sim.metrics()["max_stretch"])
    """

    _names = itertools.count()

    def __init__(self, level: LoadedLevel) -> None:
        kernel_checks(level)  # a level opened on a first start was loaded without them
        self.level = level
        self.physics, self.entities = self._built()
        self.step_ms = array("d")
        """Wall-clock physics time of each frame, ms (measurement only, never fed back): 8 bytes a
        frame, not a list's 32 (a window left open all day keeps every frame's)."""
        self.clamped: list[str] = []
        """What the last ``set(..., clamp=True)`` brought into the schema's range, one note each."""

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

    def _built(self) -> tuple[Physics, dict[str, int]]:
        """A Physics of the level in a new esper world, and each body's entity by name; on any
        problem that world is deleted again and the error raised."""
        name = f"weft-{next(self._names)}"
        physics = Physics(world=name)
        try:
            entities = physics.load(self.level)
        except BaseException:
            physics.close()
            _delete_world(name)
            raise
        physics.allow_pour("pour" in self.level.model.tools.available)
        # a custom system's settings are held to this level's budgets (its tools' sizes among them)
        physics.guard.frame_level = lambda world: self.level.model.model_copy(update={"world": world})
        return physics, entities

    def _build(self) -> None:
        """Rebuild from the level; on any problem the old world stays as it was."""
        physics, entities = self._built()
        self.close()
        self.physics, self.entities = physics, entities
        self.step_ms = array("d")

    @property
    def world_name(self) -> str:
        """The esper world the simulation's entities live in."""
        return self.physics.world

    @property
    def cursor(self) -> int:
        """The entity holding the tools' ``Grab``, ``CutStroke``, ``ForceField``...: Weft's own."""
        return self.physics.entity

    @property
    def schedule(self) -> Schedule:
        """The systems each frame runs."""
        return self.physics.schedule

    @property
    def _metrics(self) -> MetricsSystem:
        return self.schedule.get("metrics")  # type: ignore[return-value]

    @property
    def frame(self) -> int:
        """Frames stepped since the level was (re)built."""
        return self.physics.frame

    def activate(self) -> None:
        """Make this simulation's esper world the current one (for esper calls of your own; the
        simulation's methods do not need it)."""
        esper.switch_world(self.world_name)

    def close(self) -> None:
        """Delete the esper world; the simulation cannot be used afterwards."""
        self.physics.close()
        _delete_world(self.world_name)

    # -- stepping ---------------------------------------------------------

    def step(self, frames: int = 1) -> None:
        """Advance ``frames`` fixed frames of 1/60 s."""
        physics = self.physics
        for _ in range(frames):
            physics.step()
            self.step_ms.append(physics.frame_ms[-1])

    def reset(self) -> None:
        """Rebuild the world from the level as it is now (with every ``set`` applied)."""
        self._build()

    def set(self, key: str | tuple[str | int, ...], value: Any, clamp: bool = False) -> bool:
        """Change one level key (``"world.iterations"``, ``"cloth.0.tear_ratio"``...) while running.

        Settings, tear ratio, compliance, pins and looks change in place;
        anything else (a sheet's size, shear, bend...) rebuilds the world.
        Returns True when it rebuilt. Raises ``LevelError`` for an invalid
        value, leaving the simulation as it was. With ``clamp`` a number
        outside the schema's range is brought to its nearest bound instead
        (what tools and sliders do); ``clamped`` then says what was changed.
        """
        path = parse_key(key) if isinstance(key, str) else tuple(key)
        level, self.clamped = with_value(self.level, path, value, clamp)
        if path[0] == "system":
            level_schedule(level)  # a refused import or bad params raise here, before anything changes
        self.level = level
        physics = self.physics
        if path[0] in _UNSEEN_TABLES:
            physics.allow_pour(has_circles(self.level.model))  # the pour tool may have come or gone
            return False
        if path[0] == "world":
            physics.configure(self.level.model.world)
            return False
        if path[0] == "cloth" and len(path) >= 3 and isinstance(path[1], int):
            entity = self.entities[self.level.model.cloth[path[1]].name]
            if self._tune_cloth(entity, path[1], str(path[2])):
                return False
        boxes_key = path[0] == "boxes" and len(path) >= 3 and isinstance(path[1], int)
        if boxes_key and self._tune_boxes(int(path[1]), str(path[2])):
            return False
        self._build()
        return True

    def _tune_boxes(self, index: int, key: str) -> bool:
        """Apply a box set's friction, iterations or colours in place; False when only a rebuild can."""
        table = self.level.model.boxes[index]
        boxes = self._component(self.entities[table.name], BoxSet)
        rows = slice(boxes.bodies.start, boxes.bodies.stop)
        store = self.stores.rigid
        if key == "friction":
            store.friction[rows] = table.friction
            store.revision += 1
        elif key == "iterations":
            store.iterations[rows] = solver_passes(table.iterations)
            store.revision += 1
        elif key == "colors":
            boxes.colors = tuple(rgba(c) for c in table.colors)
        else:
            return False
        return True

    def _tune_cloth(self, entity: int, index: int, key: str) -> bool:
        """Apply a cloth key in place; False when only a rebuild can apply it."""
        table = self.level.model.cloth[index]
        cloth = self._component(entity, Sheet)
        distances = self.stores.distances
        structural = slice(cloth.structural.start, cloth.structural.stop)
        threads = slice(cloth.threads.start, cloth.threads.stop)
        if key in ("tear_ratio", "tearable"):
            distances.tear_ratio[structural] = table.structural_tear_ratio
        elif key == "compliance":
            distances.compliance[threads] = table.compliance
        elif key == "pins":
            cloth.pins = pin_layout(table)
            layout_pins(self.stores, entity, cloth)
        elif key in _LOOK_KEYS:
            cloth.look = cloth_look(table, self.level.directory)
        else:
            return False
        return True

    def _component(self, entity: int, kind: type) -> Any:
        with self.physics.entered():
            return esper.component_for_entity(entity, kind)

    # -- reading ----------------------------------------------------------

    @property
    def stores(self) -> Stores:
        """The particle and constraint buffers (live arrays: copy before keeping)."""
        return self.physics.stores

    @property
    def settings(self) -> WorldSettings:
        """The world settings systems read each frame."""
        return self.physics.settings

    @property
    def name(self) -> str:
        """The level's title."""
        return self.level.model.level.name

    def bodies(self) -> list[tuple[int, Body]]:
        """Every named body (sheets, ball sets, creatures, box sets, skeletons), each in creation order."""
        with self.physics.entered():
            kinds = (Sheet, BallSet, SoftBody, BoxSet, Skinned)
            return [pair for kind in kinds for pair in world.by_entity(kind)]

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
        return self.physics.rows(self.body(name)[0])[1]

    def positions(self, name: str | None = None) -> npt.NDArray[np.float64]:
        """A copy of the positions ``(n, 2)`` of one body's particles (a sheet's row by row from its
        top-left point, box centres for boxes, joints in level order for a skeleton), or of every
        particle."""
        particles = self.stores.particles
        if name is None:
            return particles.pos[: particles.count].copy()
        body = self.body(name)[1]
        if isinstance(body, BoxSet):
            return self.stores.rigid.pos[self.indices(name)]
        if isinstance(body, Skinned):
            return joint_positions(body)
        if isinstance(body, Sheet):
            return particles.pos[points_in_rows(body)]
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
        threads, torn = self.thread_counts()
        steps = np.array(self.step_ms, dtype=np.float64) if self.step_ms else np.zeros(1)
        return {
            "frames": self.frame,
            "counts": {
                "particles": stores.particles.count,
                "circles": stores.particles.circles,
                "constraints": distances.count,
                "constraints_alive": alive,
                "threads": threads,
                "torn": torn,
                "bodies": self._count_bodies(),
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
            "state_hash": self.physics.state_hash(),
        }

    def thread_counts(self) -> tuple[int, int]:
        """The cloth's structural threads and how many are torn or cut (what the HUD shows)."""
        with self.physics.entered():
            return cloth_threads()

    def _count_bodies(self) -> int:
        with self.physics.entered():
            return body_count()

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
                in_rows = points_in_rows(body)
                bodies[body.name] = {"kind": "cloth", "positions": particles.pos[in_rows].tolist()}
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
        """sha256 of every particle position, box pose and bone frame: equal for bit-identical runs."""
        return self.physics.state_hash()


def _delete_world(name: str) -> None:
    """Delete an esper world (never the current one: esper refuses that; go to "default" first)."""
    if esper.current_world == name:
        esper.switch_world("default")
    if name in esper.list_worlds():
        esper.delete_world(name)
