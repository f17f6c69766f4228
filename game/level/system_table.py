"""The ``[[system]]`` table: a custom system the level adds to the schedule, with its parameters.

Only the shape is checked here. Whether the name is known, and the parameters against the ones
the system declares, is ``weft.game.level.plugins``'s job: that needs the registry, and for some
names code that only ``run`` and ``play`` may import.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from weft.game.level.values import Table


class SystemTable(Table):
    """A custom system added to the schedule (see docs/extending.md)."""

    name: str = Field(
        description="A registered system's name (`weft systems` lists them), or "
        '"module:attr" to import one: refused unless the command line says --allow-import MODULE.'
    )
    params: dict[str, Any] = Field(
        {}, description="Its parameters, as the system declares them (each with its unit and default)."
    )
    after: list[str] | None = Field(
        None,
        description="Systems of its stage it must run after, instead of those it declares (unset: its own).",
    )
    before: list[str] | None = Field(
        None,
        description="Systems of its stage it must run before, instead of those it declares (unset: its own).",
    )
