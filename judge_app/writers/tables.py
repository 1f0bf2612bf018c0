"""Tables and counted words for people: the small pieces every writer lays text out with."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def text_table(rows: Sequence[Mapping[str, object]]) -> str:
    """Rows of cells as pandas' ``DataFrame(rows).to_string(index=False)`` lays out text
    and whole numbers: each column as wide as its header or widest cell, everything
    right-justified, columns one space apart."""
    columns = list(rows[0])
    lines = [columns, *([str(row[column]) for column in columns] for row in rows)]
    widths = [max(len(line[index]) for line in lines) for index in range(len(columns))]
    return "\n".join(
        " ".join(cell.rjust(width) for cell, width in zip(line, widths)) for line in lines
    )


def listed(items: list[str], conjunction: str) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) == 1:
        return items[0]
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"
