"""Imported judgments written once, straight into ``judgment``, a checked chunk at a time.

Each chunk's rows are sorted by their key (query, document, rater: the order of the table's
unique index) and inserted through the driver's cursor; only rows whose query, document and
rater all existed before (ids up to the largest then: a new row's id is larger) are looked
up among the stored judgments, and only when the table held judgments then, to be changed
(with an ``import`` event each, in file order) or left as they are. A key the file repeats
is not written twice: ``clash`` says the import met one, and the import's ``KeyLog`` names
it. Runs inside the caller's transaction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sqlalchemy.orm import Session

from judge_app.store.bulk import SQLITE_TIME_FORMAT, driver_cursor, marks, time_text
from judge_app.store.models import utcnow

KEY = ["query_id", "document_id", "rater_id"]  # the order of the table's unique index
STATE = ["grade", "skipped", "note"]
EVENT = ["rater_id", "query_id", "document_id", "action", "old_grade", "old_skipped", "old_note",
         "new_grade", "new_skipped", "new_note", "at"]  # fmt: skip
LOOKUP_BATCH = 1_000  # queries whose stored judgments a SELECT reads


@dataclass(frozen=True)
class JudgmentCounts:
    """What an import of judgments did."""

    added: int
    changed: int
    unchanged: int


class JudgmentWriter:
    """Writes the checked chunks of one judgments file: added, changed or unchanged."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self._now = time_text(utcnow())
        self._known = _largest_ids(session)  # None: no judgment is stored
        self.added = self.changed = self.unchanged = 0
        self.clash = False  # a key met twice: the file repeats it

    @property
    def counts(self) -> JudgmentCounts:
        return JudgmentCounts(self.added, self.changed, self.unchanged)

    def write(self, frame: pd.DataFrame, keys: dict[str, pd.Series]) -> None:
        """Write one chunk of checked judgments (``frame``, as the reader types it) whose
        ``keys`` are the ids of its queries, documents and raters (none missing)."""
        rows = pd.DataFrame({name: keys[name].to_numpy(dtype=np.int64) for name in KEY})
        rows["grade"] = frame["grade"].astype("Int64").array
        rows["skipped"] = frame["skipped"].to_numpy(dtype=bool)
        rows["note"] = frame["note"].to_numpy(dtype=object, na_value=None)
        if "judged_at" in frame and frame["judged_at"].notna().any():
            times = frame["judged_at"].dt.strftime(SQLITE_TIME_FORMAT)
            rows["judged_at"] = times.astype(object).where(frame["judged_at"].notna()).array
        if "duration_ms" in frame and frame["duration_ms"].notna().any():
            rows["duration_ms"] = frame["duration_ms"].astype("Int64").array
        rows = rows.iloc[np.lexsort([rows[name].to_numpy() for name in reversed(KEY)])]
        if rows.duplicated(KEY).any():
            self.clash = True
            return
        stored = self._candidates(rows)
        if stored.any():
            rows = self._merge(rows, stored)
        self._insert(rows)

    def _candidates(self, rows: pd.DataFrame) -> np.ndarray:
        """Which rows may have a stored judgment: those whose ids all existed before."""
        if self._known is None:
            return np.zeros(len(rows), dtype=bool)
        known = [rows[name].to_numpy() <= largest for name, largest in self._known.items()]
        return np.logical_and.reduce(known)

    def _merge(self, rows: pd.DataFrame, candidates: np.ndarray) -> pd.DataFrame:
        """Change the stored judgments the rows differ from (each with its event, in file
        order), count those they equal; the rows with no stored judgment are returned."""
        queries = np.unique(rows["query_id"].to_numpy()[candidates]).tolist()
        stored = self._read_stored(queries)
        found = rows.reset_index(names="position").merge(stored, on=KEY, suffixes=("", "_old"))
        if not len(found):
            return rows
        same = np.ones(len(found), dtype=bool)
        for name, missing in (("grade", -1), ("skipped", False), ("note", "\x00")):  # no NUL
            # to_numpy, not fillna: pandas 3's fillna writes "\x00" into an object column as ""
            new, old = (
                found[column].to_numpy(dtype=object, na_value=missing)
                for column in (name, f"{name}_old")
            )
            same &= (new == old).astype(bool)
        changed = found[~same].sort_values("position")
        self.unchanged += int(same.sum())
        self.changed += len(changed)
        if len(changed):
            self._change(changed)
        return rows[~rows.index.isin(found["position"])]

    def _read_stored(self, queries: list[int]) -> pd.DataFrame:
        """The stored judgments of these queries: key and state."""
        found: list[tuple] = []
        with driver_cursor(self._session) as cursor:
            for start in range(0, len(queries), LOOKUP_BATCH):
                batch = queries[start : start + LOOKUP_BATCH]
                cursor.execute(
                    f"SELECT {', '.join(KEY)}, grade, skipped, note FROM judgment "
                    f"WHERE query_id IN ({marks(self._session, len(batch))})",
                    batch,
                )
                found += cursor.fetchall()
        old = [f"{name}_old" for name in STATE]
        stored = pd.DataFrame(found, columns=[*KEY, *old])
        for name in KEY:
            stored[name] = stored[name].astype(np.int64)
        stored["grade_old"] = stored["grade_old"].astype("Int64")
        stored["skipped_old"] = stored["skipped_old"].astype(bool)
        return stored

    def _change(self, changed: pd.DataFrame) -> None:
        """Events for the changed rows (in file order), then the rows themselves."""
        keys, new = _records(changed, KEY), _records(changed, STATE)
        old = _records(changed, [f"{name}_old" for name in STATE])
        events = [
            (rater, query, document, "import", *before, *after, self._now)
            for (query, document, rater), before, after in zip(keys, old, new)
        ]
        times, durations = _column(changed, "judged_at"), _column(changed, "duration_ms")
        changes = [
            (*state, when or self._now, duration, *key)
            for state, when, duration, key in zip(new, times, durations, keys)
        ]
        mark = self._marks(1)
        update = (
            f"UPDATE judgment SET grade = {mark}, skipped = {mark}, note = {mark}, "
            f"judged_at = {mark}, duration_ms = {mark} "
            f"WHERE query_id = {mark} AND document_id = {mark} AND rater_id = {mark}"
        )
        with driver_cursor(self._session) as cursor:
            cursor.executemany(
                f"INSERT INTO judgment_event ({', '.join(EVENT)}) VALUES ({self._marks(11)})",
                events,
            )
            cursor.executemany(update, changes)

    def _insert(self, rows: pd.DataFrame) -> None:
        """Insert the rows in their (key) order; a key already written is a clash."""
        if not len(rows):
            return
        bound = [*KEY, "grade", "note"]
        constants = {"judged_at": f"'{self._now}'", "skipped": "FALSE"}
        if rows["skipped"].any():
            bound.append("skipped")
            del constants["skipped"]
        if "judged_at" in rows:
            constants["judged_at"] = f"COALESCE({self._marks(1)}, '{self._now}')"
        if "duration_ms" in rows:
            bound.append("duration_ms")
        names = [*bound, *constants]
        values = [self._marks(len(bound)), *constants.values()]
        sql = (
            f"INSERT INTO judgment ({', '.join(names)}) VALUES ({', '.join(values)}) "
            f"ON CONFLICT ({', '.join(KEY)}) DO NOTHING"
        )
        columns = bound + (["judged_at"] if "judged_at" in rows else [])
        with driver_cursor(self._session) as cursor:
            cursor.executemany(sql, _records(rows, columns))
            written = cursor.rowcount
        self.added += written
        if written != len(rows):
            self.clash = True

    def _marks(self, count: int) -> str:
        return marks(self._session, count)


def _largest_ids(session: Session) -> dict[str, int] | None:
    """The largest id of the queries, documents and raters (by key column), or None when no
    judgment is stored."""
    with driver_cursor(session) as cursor:
        cursor.execute("SELECT 1 FROM judgment LIMIT 1")
        if cursor.fetchone() is None:
            return None
        cursor.execute(
            'SELECT (SELECT max(id) FROM "query"), (SELECT max(id) FROM document), '
            "(SELECT max(id) FROM rater)"
        )
        return dict(zip(KEY, cursor.fetchone()))


def _column(frame: pd.DataFrame, name: str) -> list:
    """A column as Python values, None where missing (all None where the frame lacks it)."""
    if name not in frame:
        return [None] * len(frame)
    column = frame[name]
    if isinstance(column.dtype, np.dtype) and column.dtype.kind in "iub":  # never missing
        return column.tolist()
    return column.to_numpy(dtype=object, na_value=None).tolist()


def _records(frame: pd.DataFrame, names: list[str]) -> list[tuple]:
    """The rows of these columns as tuples of Python values (None where missing)."""
    return list(zip(*(_column(frame, name) for name in names)))
