"""What a game writes into the tools' components, checked before the frame that acts on it.

A game drives the hand, the blade, blasts, fields, the finger, the pour and
the shake through the components of Weft's own entity (docs/plugin.md,
"Tools"), written as plain attributes, so no setter can refuse a NaN. One
that reached the kernels spread to every body it touched (a blast at NaN
made every box and circle NaN in three frames). So each frame starts by
checking what the tools in use hold, and a value that is not a finite
number, or a list entry of the wrong shape, raises ``ValueError`` naming the
component, the field and what it got. The shipped window's tools write only
what they measured, so this never fires there.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

import esper

from weft.components import Blasts, CutStroke, ForceField, Grab, Pour, Press, Shake


def check_tools(entity: int) -> None:
    """Check the tool components of Weft's ``entity`` that will act this frame (held, active, or
    with something pending); raise ``ValueError`` for the first value that is not finite or not of
    its shape."""
    grab = esper.component_for_entity(entity, Grab)
    if grab.held:
        _points(Grab, grab, ("target", "pressed_at", "offset", "anchor"))
        _numbers(Grab, grab, ("reach", "speed", "hertz", "damping_ratio", "max_accel"))
    for k, segment in enumerate(esper.component_for_entity(entity, CutStroke).segments):
        _finite(f"CutStroke.segments[{k}]", segment, 4, "(x0, y0, x1, y1)")
    for k, blast in enumerate(esper.component_for_entity(entity, Blasts).pending):
        _finite(f"Blasts.pending[{k}]", blast, 4, "(x, y, reach, impulse)")
    field = esper.component_for_entity(entity, ForceField)
    if field.active:
        _points(ForceField, field, ("center",))
        _numbers(ForceField, field, ("reach", "force"))
    press = esper.component_for_entity(entity, Press)
    if press.active:
        _points(Press, press, ("center",))
        _numbers(Press, press, ("reach",))
    pour = esper.component_for_entity(entity, Pour)
    if pour.held:
        _points(Pour, pour, ("at", "sizes"))
        _numbers(Pour, pour, ("rate",))
    shake = esper.component_for_entity(entity, Shake)
    if shake.held:
        _numbers(Shake, shake, ("amplitude", "frequency"))


def _points(kind: type, component: Any, names: Iterable[str]) -> None:
    for name in names:
        _finite(f"{kind.__name__}.{name}", getattr(component, name), 2, "(x, y)")


def _numbers(kind: type, component: Any, names: Iterable[str]) -> None:
    for name in names:
        value = getattr(component, name)
        _finite(f"{kind.__name__}.{name}", (value,), 1, "a number", shown=value)


def _finite(where: str, values: Any, size: int, shape: str, shown: Any = None) -> None:
    """``values`` must be ``size`` finite real numbers (``shape`` names them, and ``shown`` is what
    the message says was found, for one number given as a one-tuple)."""
    if not _finite_numbers(values, size):
        got = values if shown is None else shown
        raise ValueError(f"weft.components.{where}: expected {shape}, finite, got {got!r}")


def _finite_numbers(value: Any, size: int) -> bool:
    """Whether ``value`` is ``size`` real numbers (numpy's included, bools not), every one finite."""
    try:
        return len(value) == size and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v) for v in value
        )
    except TypeError:
        return False
