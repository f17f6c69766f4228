"""The check of a level's boxes that needs their places: how many pairs overlap at the start
(``BOX_OVERLAPS``), counted where the boxes will be built, before any store is."""

from __future__ import annotations

import numpy as np

from weft.budgets import BOX_OVERLAPS
from weft.game.level.build import box_layout
from weft.game.level.problems import KeyPath, Problem, find_line, origin_of
from weft.game.level.schema import Level, box_count
from weft.systems.kernels.box_overlaps import count_box_overlaps


def box_overlaps(model: Level) -> tuple[int, list[int]]:
    """The pairs of ``model``'s boxes that overlap at the start, and how many of them each
    ``[[boxes]]`` table closes (pairs whose later box is one of its boxes)."""
    layouts = [box_layout(table) for table in model.boxes]
    if not layouts:
        return 0, []
    center = np.concatenate([centers for centers, _, _ in layouts])
    angle = np.concatenate([angles for _, angles, _ in layouts])
    half = 0.5 * np.concatenate([sizes for _, _, sizes in layouts])
    counts = [len(centers) for centers, _, _ in layouts]  # at least one box a table
    fixed = np.repeat([table.fixed for table in model.boxes], counts)
    later = np.zeros(len(center), dtype=np.int64)
    total = count_box_overlaps(center, angle, half, fixed, later)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return int(total), [int(pairs) for pairs in np.add.reduceat(later, starts)]


def box_problems(
    model: Level, label: str, text: str | None = None, overridden: dict[KeyPath, str] | None = None
) -> list[Problem]:
    """A problem at the ``[[boxes]]`` table where the pairs overlapping at the start, counted up to
    it, pass ``BOX_OVERLAPS``. Too few boxes to make that many pairs are not counted: the count's
    kernel is then never compiled, a second of every box level's first start."""
    boxes = sum(box_count(table) for table in model.boxes)
    if boxes * (boxes - 1) // 2 <= BOX_OVERLAPS:
        return []
    total, closed = box_overlaps(model)
    if total <= BOX_OVERLAPS:
        return []
    running = 0
    for k, pairs in enumerate(closed):
        running += pairs
        if running > BOX_OVERLAPS:
            path: KeyPath = ("boxes", k)
            note = origin_of(path, overridden)
            line = None if note or text is None else find_line(text, path)
            message = (
                f"expected at most {BOX_OVERLAPS} overlapping box pairs at the start, got {running} "
                "(counting up to this table): boxes placed inside each other"
            )
            return [Problem(label, path, message, line, note)]
    return []
