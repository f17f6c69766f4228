"""Aligned text tables for the bench's figures."""

from __future__ import annotations


def align(header: list[str], rows: list[list[str]], text_columns: int) -> list[str]:
    """``header`` and ``rows`` as lines of aligned columns: the first ``text_columns`` flush left,
    the numbers after them flush right."""
    widths = [max(len(row[k]) for row in [header, *rows]) for k in range(len(header))]
    return [
        "  ".join(
            cell.ljust(width) if k < text_columns else cell.rjust(width)
            for k, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in [header, *rows]
    ]
