"""How deep tables and lists nest in parsed input, found without recursion.

The readers (tomllib, json, pydantic, pytiled_parser, ``copy.deepcopy``)
recurse once per level of nesting, so a file nested 2000 deep ends in a
``RecursionError`` wherever it is read next. Each input is measured here,
iteratively, right after parsing, and refused beyond ``NESTING``; a parser
that already overflows on the text is caught and reported the same way.
"""

from __future__ import annotations

from typing import Any

from weft.budgets import NESTING

TOO_DEEP = f"expected tables and lists nested at most {NESTING} deep, got deeper nesting"
"""The message of every input refused for its nesting."""


def too_deep(data: Any, limit: int = NESTING) -> tuple[str | int, ...] | None:
    """The key path of the first value nested deeper than ``limit`` in ``data`` (dicts and lists),
    or None when all of it is within ``limit``."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            items: Any = value.items()
        elif isinstance(value, list):
            items = enumerate(value)
        else:
            continue
        if len(path) >= limit:
            return path
        stack.extend((item, (*path, key)) for key, item in items)
    return None
