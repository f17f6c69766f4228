"""Custom systems by name: the ``@register`` decorator, the ``weft.systems`` entry points, and the
parameters a system declares.

A level adds a system by naming it (``[[system]] name = "gravity_wells"``). A name is found
among the systems registered with ``@register`` by code already imported (the Python API), then
among the ``weft.systems`` entry points of installed distributions: installing a plugin is the
user's consent to run it, and only the entry point named is loaded. Names of the form
``"module:attr"`` are imports, guarded by ``weft.systems.imports``.

Built-in systems are listed here too, read-only: every level already runs them, so a level
cannot add them again and a plugin cannot take their names.

Example::

    @register
    class Drift(System):
        '''Moves every free particle right at a constant speed.'''

        name = "drift"
        stage = Stage.SUBSTEP
        after = ("integrate",)

        class Params(SystemParams):
            speed: float = Field(30.0, description="Drift speed, px/s.")

        def process(self, step: Step) -> None:
            particles = world.stores().particles
            free = particles.inv_mass[: particles.count] > 0.0
            particles.pos[: particles.count][free, 0] += self.params.speed * step.dt
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Mapping
from importlib import metadata
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from weft.systems.frame import FRAME_NAMES, default_schedule
from weft.systems.schedule import Stage, System, needs_problem

ENTRY_POINT_GROUP = "weft.systems"
"""Installed distributions offer systems here: ``gravity_wells = "my_pkg.wells:GravityWells"``."""

DRAWING_NAMES = FRAME_NAMES[Stage.DRAW]
"""Names of the drawing systems ``weft.draw.Renderer`` adds (not imported here: they need arcade)."""

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")

S = TypeVar("S", bound=type[System])


class SystemParams(BaseModel):
    """Base of a system's declared parameters: the keys of its ``[[system]] params`` table.

    Strict like the level format: an unknown key is an error, ``"5"`` is not a number, NaN and
    infinity are refused. Give every field a default and a ``description`` that names its unit;
    ``weft systems`` and the error messages show them.
    """

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, validate_default=True)


Vec2 = Annotated[list[float], Field(min_length=2, max_length=2)]
"""A point or vector ``[x, y]`` as TOML writes it (strict models refuse a list for a tuple)."""


class RegistryError(ValueError):
    """A system that cannot be registered, found or loaded; the message says why and what to do."""


_REGISTERED: dict[str, type[System]] = {}


def params_of(cls: type[System]) -> type[SystemParams]:
    """The parameters ``cls`` declares (its nested ``Params`` class), or none."""
    return getattr(cls, "Params", SystemParams)


def make(cls: type[System], params: Mapping[str, Any]) -> System:
    """An instance of ``cls`` whose ``params`` attribute holds ``params`` validated.

    Raises pydantic's ``ValidationError`` for parameters the class does not accept, and
    ``RegistryError`` when the class cannot be made without arguments.
    """
    values = params_of(cls).model_validate(dict(params))
    try:
        system = cls()
    except Exception as error:  # a plugin's constructor failing is a sentence for the user, not a traceback
        raise RegistryError(f"could not make {qualified(cls)}(): {type(error).__name__}: {error}") from error
    system.params = values  # type: ignore[attr-defined]
    return system


def class_problems(cls: object) -> list[str]:
    """What keeps ``cls`` from being a custom system (empty when it is usable)."""
    if not (isinstance(cls, type) and issubclass(cls, System)):
        return [f"expected a subclass of systems.schedule.System, got {cls!r}"]
    problems = []
    name = getattr(cls, "name", None)
    if not (isinstance(name, str) and NAME.match(name)):
        problems.append(f'expected a `name` such as "gravity_wells" (letters, digits, _ . -), got {name!r}')
    if not isinstance(getattr(cls, "stage", None), Stage):
        problems.append(f"expected a `stage` such as Stage.SUBSTEP, got {getattr(cls, 'stage', None)!r}")
    for key in ("after", "before"):
        value = getattr(cls, key)
        if not (isinstance(value, tuple) and all(isinstance(n, str) for n in value)):
            problems.append(f"expected `{key}` to be a tuple of system names, got {value!r}")
    wrong = needs_problem(getattr(cls, "needs", ()), getattr(cls, "needs_particles", False))
    if wrong:
        problems.append(f"`needs`: {wrong}")
    if cls.process is System.process:
        problems.append("expected a `process(self, step)` method")
    params = params_of(cls)
    if not (isinstance(params, type) and issubclass(params, SystemParams)):
        problems.append(f"expected `Params` to subclass systems.registry.SystemParams, got {params!r}")
    else:
        bare = [key for key, field in params.model_fields.items() if not field.description]
        if bare:
            problems.append(
                f"expected a description (with its unit) for every parameter, got none for {bare}"
            )
    return problems


def register(cls: S) -> S:
    """Class decorator: make the system ``cls`` available to levels under its ``name``.

    Registering the same class again (its module imported again) replaces it;
    a built-in's name or one another class holds raises ``RegistryError``.
    """
    problems = class_problems(cls)
    if problems:
        raise RegistryError(f"cannot register {qualified(cls)}: " + "; ".join(problems))
    name = cls.name
    if name in reserved_names():
        raise RegistryError(
            f"cannot register {qualified(cls)}: {name!r} is a built-in system; choose another"
        )
    present = _REGISTERED.get(name)
    if present is not None and qualified(present) != qualified(cls):
        raise RegistryError(
            f"cannot register {qualified(cls)}: {name!r} is already registered by {qualified(present)}"
        )
    _REGISTERED[name] = cls
    return cls


def unregister(name: str) -> None:
    """Forget the system registered as ``name`` (tests use it); nothing if there is none."""
    _REGISTERED.pop(name, None)


def registered() -> dict[str, type[System]]:
    """The systems registered with ``@register`` in this process, by name."""
    return dict(_REGISTERED)


@functools.cache
def builtins() -> dict[str, type[System]]:
    """The built-in physics systems, by name, stage by stage in run order (read-only)."""
    schedule = default_schedule()
    return {name: type(schedule.get(name)) for stage in Stage for name in schedule.names(stage)}


def reserved_names() -> set[str]:
    """Names no custom system may take: the built-in physics and drawing systems'."""
    return {*builtins(), *DRAWING_NAMES}


def installed() -> dict[str, metadata.EntryPoint]:
    """The ``weft.systems`` entry points of installed distributions, by name.

    Read from the distributions' metadata: nothing is imported.
    """
    found: dict[str, metadata.EntryPoint] = {}
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(entry.name, entry)
    return found


def known_names() -> list[str]:
    """Every name a level may use without an import: registered and installed systems."""
    return sorted({*_REGISTERED, *installed()})


def lookup(name: str) -> type[System]:
    """The system called ``name``: registered in this process, else loaded from its entry point."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    entry = installed().get(name)
    if entry is None:
        raise RegistryError(unknown_name(name))
    return load_entry_point(entry)


def load_entry_point(entry: metadata.EntryPoint) -> type[System]:
    """Import the class an entry point names and check it is a system of that name."""
    origin = f"entry point {entry.name} = {entry.value!r}"
    if entry.dist is not None:
        origin += f" of {entry.dist.name}"
    try:
        cls = entry.load()
    except Exception as error:  # a plugin's own failure becomes a sentence, not a traceback
        raise RegistryError(
            f"could not load {origin}: {type(error).__name__}: {error}; reinstall or fix that package"
        ) from error
    problems = class_problems(cls)
    if problems:
        raise RegistryError(f"{origin} is not a usable system: " + "; ".join(problems))
    if cls.name != entry.name:
        raise RegistryError(f"{origin} names a system called {cls.name!r}: the two names must agree")
    if cls.name in reserved_names():
        raise RegistryError(f"{origin} takes the built-in system name {cls.name!r}")
    return cls


def unknown_name(name: str) -> str:
    """``expected a registered system's name (...), got 'gravity_well'; did you mean 'gravity_wells'?``"""
    known = known_names()
    listed = ", ".join(known) if known else "none is registered or installed"
    guess = difflib.get_close_matches(name, [*known, *reserved_names()], n=1, cutoff=0.6)
    hint = ""
    if guess and guess[0] in reserved_names():
        hint = f"; {guess[0]!r} is built in and always scheduled"
    elif guess:
        hint = f"; did you mean {guess[0]!r}?"
    return (
        f"expected a registered system's name ({listed}; `weft systems` lists them, "
        f'"module:attr" imports one), got {name!r}{hint}'
    )


def qualified(cls: object) -> str:
    """``module.Class``: how messages name a class."""
    return f"{getattr(cls, '__module__', '?')}.{getattr(cls, '__qualname__', repr(cls))}"
