"""Rater packets (``judge-app packet``): one rater's work as a file to judge offline, and
merging it back into the database that issued it (``store.packets``), said in words."""

from __future__ import annotations

from pathlib import Path

from judge_app.store import open_database
from judge_app.store.judgments import JudgmentState
from judge_app.store.packets import export_packet, merge_packet


def export(db: str, rater: str, out: Path) -> str:
    """Write ``rater``'s packet of the database ``db`` to ``out``; what it holds."""
    with open_database(db, create=False) as database:
        made = export_packet(database, rater, out)
    return (
        f"{made.path}: packet of {made.rater} with {made.queries:,} queries, "
        f"{made.documents:,} documents, {made.results:,} results and "
        f"{made.judgments:,} of their judgments"
    )


def merge(db: str, packet: Path) -> str:
    """Merge the packet file ``packet`` into the database ``db``; what changed."""
    with open_database(db, create=False) as database:
        merged = merge_packet(database, packet)
    lines = [
        f"merged {packet} ({merged.rater}), judgments: {merged.added:,} added, "
        f"{merged.updated:,} changed, {merged.cleared:,} cleared, {merged.unchanged:,} already "
        f"equal; history events: {merged.events:,}"
    ]
    if merged.conflicts:
        lines.append(
            f"{len(merged.conflicts)} changed both here and in the packet; the packet's kept:"
        )
        lines += [
            f"  {conflict.query_id} {conflict.doc_id}: here {_said(conflict.database)}, "
            f"packet {_said(conflict.packet)}"
            for conflict in merged.conflicts
        ]
    return "\n".join(lines)


def _said(state: JudgmentState | None) -> str:
    """A judgment state in words: ``3``, ``skipped``, ``none``."""
    if state is None:
        return "none"
    return "skipped" if state.skipped else str(state.grade)
