"""Importing a system a level names as ``"module:attr"``, only from modules the user allowed.

A level file is data that may come from anyone; naming ``"module:attr"`` in it would run that
module's code. So the import happens only when the module matches a pattern the user gave on
the command line (``--allow-import PATTERN``, fnmatch style: ``my_plugin``, ``my_plugin.*``),
and the object found is checked again by its own ``__module__``: a class an allowed module
merely re-exports from elsewhere is refused. Allowing a module trusts what importing it runs:
its package's ``__init__`` and whatever it imports in turn (the second check refuses to use a
foreign class; it cannot undo an import that already ran). Nothing in a level file can add a
pattern.

The module is looked up on ``sys.path`` without the current folder and without the level's
folder: a downloaded level's folder may hold a ``gravity_wells.py`` of its own, and running
``weft`` from there must not import it. A folder is searched only when the user names it in
the pattern, ``FOLDER:PATTERN`` (``--allow-import ./plugins:gravity_wells``).
"""

from __future__ import annotations

import fnmatch
import importlib
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from weft.systems.registry import RegistryError, class_problems, reserved_names
from weft.systems.schedule import System

SPEC = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
"""``package.module:Class`` (or ``:Outer.Inner``)."""


class ImportRefused(RegistryError):
    """The user did not allow the module a ``module:attr`` name would import."""


def is_import(name: str) -> bool:
    """Whether a level's system name asks for an import (``module:attr``) rather than a registered name."""
    return ":" in name


def spec_problem(name: str) -> str | None:
    """Why ``name`` is not a well-formed ``module:attr``, or None."""
    if SPEC.match(name):
        return None
    return f'expected "module:attr" such as "my_plugin.wells:GravityWells", got {name!r}'


def split_pattern(pattern: str) -> tuple[Path | None, str]:
    """``"./plugins:gravity_*"`` -> (the folder ``./plugins``, ``"gravity_*"``); a bare module pattern
    has no folder. The folder is relative to the current one, as on any command line."""
    folder, sep, module = pattern.rpartition(":")
    return (Path(folder) if sep and folder else None), module


def allowed(module: str, patterns: Sequence[str]) -> bool:
    """Whether ``module`` matches one of the ``--allow-import`` patterns."""
    return any(fnmatch.fnmatchcase(module, split_pattern(pattern)[1]) for pattern in patterns)


def search_path(patterns: Sequence[str], untrusted: Sequence[Path] = ()) -> list[str]:
    """``sys.path`` as an allowed import sees it: the folders the patterns name first, then every
    entry but the current folder (``""``, ``"."``...) and the ``untrusted`` ones (the level's)."""
    refused = {Path.cwd().resolve(), *(folder.resolve() for folder in untrusted)}
    named = [folder for pattern in patterns if (folder := split_pattern(pattern)[0]) is not None]
    kept = [entry for entry in sys.path if Path(entry or ".").resolve() not in refused]
    return [*(str(folder.resolve()) for folder in named), *kept]


def import_system(name: str, patterns: Sequence[str], untrusted: Sequence[Path] = ()) -> type[System]:
    """Import the system ``"module:attr"`` names, if its module matches ``patterns``.

    The module named is checked before anything is imported, the object found after, by the
    module it was defined in. Raises ``ImportRefused`` (with the flag that would allow it) or
    ``RegistryError`` (a malformed name, a failing import, not a system).
    """
    problem = spec_problem(name)
    if problem:
        raise RegistryError(problem)
    module_name, attr = name.split(":")
    if not allowed(module_name, patterns):
        raise ImportRefused(
            f"refused to import {name!r}: a level file cannot run code on its own; if you trust module "
            f"{module_name!r}, run with --allow-import {module_name} (or --allow-import FOLDER:{module_name} "
            "for one in FOLDER)"
            + (f" (or a pattern such as {module_name.split('.')[0]}.*)" if "." in module_name else "")
        )
    saved = sys.path[:]
    sys.path[:] = search_path(patterns, untrusted)
    try:
        target: object = importlib.import_module(module_name)
    except Exception as error:  # the user's module failing is their error to read, not a traceback
        raise RegistryError(
            f"could not import {module_name!r} for {name!r}: {type(error).__name__}: {error}"
        ) from error
    finally:
        sys.path[:] = saved
    for part in attr.split("."):
        if not hasattr(target, part):
            raise RegistryError(f"expected module {module_name!r} to define {attr!r}, got no such attribute")
        target = getattr(target, part)
    home = getattr(target, "__module__", None)
    if not isinstance(home, str):
        raise ImportRefused(
            f"refused {name!r}: it is not a class defined in a module (it has no __module__), so "
            "--allow-import cannot vouch for it"
        )
    if not allowed(home, patterns):
        raise ImportRefused(
            f"refused {name!r}: it is defined in module {home!r}, not in {module_name!r}, and --allow-import "
            f"is checked against where an object is defined; if you trust {home!r}, add --allow-import {home}"
        )
    problems = class_problems(target)
    if problems:
        raise RegistryError(f"{name!r} is not a usable system: " + "; ".join(problems))
    cls = cast(type[System], target)  # class_problems found it a System subclass
    if cls.name in reserved_names():
        raise RegistryError(f"{name!r} takes the built-in system name {cls.name!r}; choose another")
    return cls
