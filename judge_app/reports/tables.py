"""The report's tables: cells as people read them (already rounded by the writers), laid out
as HTML, and split by columns where a table would not fit a page's width (each part repeats
the columns that name a row). Cells never wrap; headers wrap between words."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

PAGE_CHARACTERS = 92
"""How many characters of table text fit an A4 page's width (174 mm of 8.5 pt DejaVu Sans,
with each column's padding counted as ``PADDING`` characters)."""
PADDING = 2


@dataclass(frozen=True)
class Cell:
    """A cell with a look: ``tone`` "better" or "worse" (a significant difference, coloured as
    the window colours it), ``swatch`` a run's chart colour shown beside its name."""

    text: str
    tone: str = ""
    swatch: str = ""
    heading: bool = False


Content = str | Cell


@dataclass(frozen=True)
class Table:
    """A table for people: a caption (what it shows), a header, rows, how many leading
    columns name a row (``keys``: repeated when the table is split, left-aligned) and a note
    printed under it."""

    caption: str
    header: list[str]
    rows: list[list[Content]]
    keys: int = 1
    note: str = ""
    numeric: bool = True  # cells after the keys are numbers: right-aligned

    @classmethod
    def of(
        cls, caption: str, rows: Sequence[Mapping[str, Content]], keys: int = 1, note: str = ""
    ) -> Table:
        """A table of rows given as {header: cell} (the writers' rows for people)."""
        header = list(rows[0]) if rows else []
        return cls(caption, header, [[row[name] for name in header] for row in rows], keys, note)

    def texts(self) -> list[list[str]]:
        """The header and every row as the text a reader sees."""
        return [self.header, *([text_of(cell) for cell in row] for row in self.rows)]


def text_of(cell: Content) -> str:
    return cell.text if isinstance(cell, Cell) else cell


TRANSPOSED_ROWS = 3
"""A table too wide for a page with this many rows or fewer is turned: a column per row."""


def split(table: Table, width: int = PAGE_CHARACTERS) -> list[Table]:
    """``table`` as parts no wider than ``width`` characters: the table itself when it fits,
    else turned (a column per row) when it has few rows and then fits, else split by columns,
    each part with its key columns."""
    if _fits(table, width):
        return [table]
    if 0 < len(table.rows) <= TRANSPOSED_ROWS and _fits(turned := transposed(table), width):
        return [turned]
    widths = [_width(column) for column in zip(*table.texts())]
    keys = sum(widths[: table.keys])
    groups: list[list[int]] = []
    for index in range(table.keys, len(widths)):
        if groups and keys + sum(widths[i] for i in groups[-1]) + widths[index] <= width:
            groups[-1].append(index)
        else:
            groups.append([index])
    if len(groups) <= 1:
        return [table]
    parts = []
    for number, group in enumerate(groups, start=1):
        columns = list(range(table.keys)) + group
        parts.append(
            replace(
                table,
                caption=f"{table.caption} ({number} of {len(groups)})",
                header=[table.header[i] for i in columns],
                rows=[[row[i] for i in columns] for row in table.rows],
                note=table.note if number == len(groups) else "",
            )
        )
    return parts


def transposed(table: Table) -> Table:
    """``table`` turned: a row per column after the keys, a column per row, named by the
    row's key cells (``bm25 vs neural``)."""
    names = [" vs ".join(text_of(cell) for cell in row[: table.keys]) for row in table.rows]
    rows: list[list[Content]] = [
        [Cell(table.header[index], heading=True), *(row[index] for row in table.rows)]
        for index in range(table.keys, len(table.header))
    ]
    return replace(table, header=["", *names], rows=rows, keys=1)


def _fits(table: Table, width: int) -> bool:
    return sum(_width(column) for column in zip(*table.texts())) <= width


def _width(column: tuple[str, ...]) -> int:
    """A column's width in characters: its widest cell, or its header's longest word."""
    header, *cells = column
    longest_word = max((len(word) for word in header.split()), default=0)
    return max([longest_word, *map(len, cells)]) + PADDING


def table_html(table: Table) -> str:
    """``table`` as a figure: its caption, the table in a box that scrolls sideways on a
    narrow screen, its note."""
    head = "".join(
        f"<th class='{'key' if index < table.keys else 'n'}'>{_e(name)}</th>"
        for index, name in enumerate(table.header)
    )
    body = "".join(
        "<tr>" + "".join(_cell(cell, index, table) for index, cell in enumerate(row)) + "</tr>"
        for row in table.rows
    )
    note = f"<p class='note'>{_e(table.note)}</p>" if table.note else ""
    caption = f"<p class='caption'>{_e(table.caption)}</p>" if table.caption else ""
    return (
        f"<div class='table'>{caption}<div class='wide'><table><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table></div>{note}</div>"
    )


def _cell(cell: Content, index: int, table: Table) -> str:
    kind = "key" if index < table.keys or not table.numeric else "n"
    if not isinstance(cell, Cell):
        return f"<td class='{kind}'>{_e(cell)}</td>"
    tag = "th" if cell.heading else "td"
    classes = " ".join(filter(None, [kind, cell.tone]))
    swatch = f"<span class='swatch' style='background:{cell.swatch}'></span>" if cell.swatch else ""
    return f"<{tag} class='{classes}'>{swatch}{_e(cell.text)}</{tag}>"


def _e(text: str) -> str:
    return html.escape(text, quote=True)
