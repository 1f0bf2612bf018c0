"""Exports byte for byte (issue 16): every format and option of ``judge-app export`` writes
exactly the bytes it wrote before exports were streamed, pinned as hashes on a fixed campaign,
and the bytes a plain reference (written here, from the data itself) gives on generated ones,
on SQLite and on PostgreSQL."""

from __future__ import annotations

import csv
import hashlib
import io
import random
import re
import statistics
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, insert

from judge_app.commands.export import ExportOptions, export
from judge_app.errors import UsageError
from judge_app.io.errors import ExportError
from judge_app.metrics.aggregation import aggregate_codes
from judge_app.option_declarations import flag_of
from judge_app.store import Database, open_database, rows
from judge_app.store.models import Document, Judgment, JudgmentEvent, Query, Rater

RISKY = ("=", "+", "-", "@", "\t", "\r", "'")
HEADER = [
    "query_id", "query_text", "doc_id", "doc_title", "rater", "grade", "skipped", "note",
    "judged_at", "duration_ms",
]  # fmt: skip
METHODS = ("mean", "median", "majority", "max", "min")


@dataclass
class Campaign:
    """What an export reads: queries (id → text), documents (id → title), raters, and
    judgments ``(query, doc, rater, grade or None when skipped, note, judged_at, duration_ms)``."""

    queries: dict[str, str | None] = field(default_factory=dict)
    documents: dict[str, str | None] = field(default_factory=dict)
    raters: list[str] = field(default_factory=list)
    judgments: list[tuple] = field(default_factory=list)


def fill(database: Database, campaign: Campaign) -> None:
    """Replace what ``database`` holds by ``campaign`` (ids given in a shuffled order, so that
    internal ids do not follow the external ones)."""
    shuffled = random.Random(len(campaign.judgments))
    queries, documents = list(campaign.queries), list(campaign.documents)
    shuffled.shuffle(queries)
    shuffled.shuffle(documents)
    at = datetime(2024, 1, 1)
    with database.transaction() as session:
        for model in (JudgmentEvent, Judgment, Query, Document, Rater):
            session.execute(delete(model))
        query_id = {name: index + 1 for index, name in enumerate(queries)}
        doc_id = {name: index + 1 for index, name in enumerate(documents)}
        rater_id = {name: index + 1 for index, name in enumerate(reversed(campaign.raters))}
        session.execute(
            insert(Query),
            [{"id": query_id[q], "external_id": q, "text": campaign.queries[q], "created_at": at}
             for q in queries],
        )  # fmt: skip
        session.execute(
            insert(Document),
            [
                {"id": doc_id[d], "external_id": d, "title": campaign.documents[d]}
                for d in documents
            ],
        )
        session.execute(
            insert(Rater),
            [{"id": rater_id[r], "name": r, "created_at": at} for r in campaign.raters],
        )
        if campaign.judgments:
            session.execute(
                insert(Judgment),
                [
                    {"query_id": query_id[q], "document_id": doc_id[d], "rater_id": rater_id[r],
                     "grade": grade, "skipped": grade is None, "note": note, "judged_at": when,
                     "duration_ms": duration}
                    for q, d, r, grade, note, when, duration in campaign.judgments
                ],
            )  # fmt: skip


# --- the reference: what the files hold, written plainly from the campaign -----------------


def inert(cell: str | None) -> str | None:
    return "'" + cell if cell is not None and cell.startswith(RISKY) else cell


def reference_csv(campaign: Campaign) -> bytes:
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(HEADER)
    for q, d, r, grade, note, when, duration in sorted(campaign.judgments, key=lambda j: j[:3]):
        writer.writerow(
            [inert(q), inert(campaign.queries[q]), inert(d), inert(campaign.documents[d]),
             inert(r), grade, "true" if grade is None else "false", inert(note),
             when.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), duration]
        )  # fmt: skip
    return out.getvalue().encode("utf-8")


def combined(grades: list[int], method: str) -> float:
    if method == "majority":
        votes = Counter(grades)
        return float(min(grade for grade in votes if votes[grade] == max(votes.values())))
    if method == "mean":
        return sum(grades) / len(grades)
    return float({"median": statistics.median, "max": max, "min": min}[method](grades))


def grade_text(grade: float) -> str:
    return str(int(grade)) if grade.is_integer() else f"{grade:.6f}".rstrip("0").rstrip(".")


def reference_qrels(campaign: Campaign, method: str, prefer: bool) -> bytes:
    """The qrels bytes, or ExportError with the message the export gives for spaced ids."""
    by_pair: dict[tuple[str, str], dict[str, int]] = {}
    for q, d, r, grade, *_rest in campaign.judgments:
        if grade is not None:
            by_pair.setdefault((q, d), {})[r] = grade
    grades = {}
    for pair, of_raters in by_pair.items():
        if method.startswith("rater:"):
            if method[6:] in of_raters:
                grades[pair] = float(of_raters[method[6:]])
            continue
        if prefer and "adjudicated" in of_raters:
            grades[pair] = float(of_raters["adjudicated"])
            continue
        others = [grade for rater, grade in of_raters.items() if rater != "adjudicated"]
        if others:
            grades[pair] = combined(others, method)
    pairs = sorted(grades)
    for place, name in enumerate(("query_id", "doc_id")):
        spaced = [pair[place] for pair in pairs if re.search(r"\s", pair[place])]
        if spaced:
            raise ExportError(
                f"{len(spaced)} ids in {name} contain spaces (e.g. {spaced[0]!r}), which TREC "
                "qrels cannot hold: export judgments as CSV instead"
            )
    lines = (f"{q} 0 {d} {grade_text(grades[(q, d)])}\n" for q, d in pairs)
    return "".join(lines).encode("utf-8")


# --- a fixed campaign whose files are pinned ------------------------------------------------

QUERIES = {
    "=SUM(A1:A9)": '=HYPERLINK("http://x")', "+q": "\ttab first", "-1": "'quoted text",
    "@q": "plain, with comma\nand a line break", "'q": "''two quotes", "q10": None,
    "q2": "windows\r\nline break", "Q1": "a bare\rcarriage return", "ä": "umlaut",
    "z": " spaces around ", "😀": "astral", "\uff21": "full-width A", 'q,"x"': "comma and quote",
}  # fmt: skip
DOCUMENTS = {
    "=d": "+title", 'd,"quoted"': "-title", "'=d": "'=not restored twice", "d-plain": None,
    "dé中": "title\r\non two lines", "D9": "", "d10": "@mention", "d2": "é", "e\u0301": "decomposed",
}  # fmt: skip
RATERS = ["=alice", "bob", "@carol", "adjudicated", "dan", "Émile"]
NOTES = [
    "=1+1", "+cmd", "-2", "@SUM(1)", "'already quoted", "\tstarts with a tab", "'=both",
    'a note, with "quotes"\nand two\nline breaks', None, "\rcarriage return first",
    "windows\r\nline break", "a bare\rcarriage return", " spaces around ", "", "ünïcödé 中文 😀",
    "trailing quote'", '"', ",", "plain",
]  # fmt: skip


def fixed_campaign() -> Campaign:
    """Every text a spreadsheet would run, several raters (one with skipped judgments only),
    adjudicated grades, missing notes, titles and durations, times with and without
    microseconds; seeded, so its files never change."""
    rng = random.Random(16)
    campaign = Campaign(QUERIES, DOCUMENTS, RATERS)
    start = datetime(2024, 3, 9, 23, 59, 58)
    for q in QUERIES:
        for d in DOCUMENTS:
            for r in RATERS:
                if rng.random() < (0.25 if r == "adjudicated" else 0.6):
                    continue
                grade = None if r == "dan" or rng.random() < 0.08 else rng.randint(0, 5)
                note = rng.choice(NOTES)
                when = start + timedelta(microseconds=rng.choice([0, 1, 999_999, 123_456]) + 7
                                         * rng.randint(0, 10**9) * 1000)  # fmt: skip
                duration = rng.choice([None, 0, 1, 1234, 10**9])
                campaign.judgments.append((q, d, r, grade, note, when, duration))
    return campaign


# sha256 of the files the export wrote before it was streamed (commit c702f34)
PINNED = {
    "judgments": "09ff2b7b8d92e5be5dcf93c0686badf9d555be02ee04a4021d9515284edcf4ae",
    "mean prefer": "8018032822ba9fc84ee7d9a04de1b9df549fc39daeab11d56c5f59e24244a96f",
    "median prefer": "c0a1ad3257d656793240235fec7c735a201004cfc14652a24915d4e04811f7c6",
    "majority prefer": "9084ae7457d7ddb74fadd09d1115662228f7d7c9ea3929474d51819be20c802a",
    "max prefer": "01b9a0e87ee47eea5ed21de6ee8c915f858baaae8762c793c7a8fddc18378a62",
    "min prefer": "9084ae7457d7ddb74fadd09d1115662228f7d7c9ea3929474d51819be20c802a",
    "mean ignore": "e280b25c55a49bd02d05d88b7b8927de2de8afdf912059429b2c64d1aefdb48c",
    "median ignore": "979e8a8aaca2770ceacadc63109a79057d80f715f7ae8fd8dce3270bb2d9ed89",
    "majority ignore": "dd71a045fc2e8a45b79c7a49ea68068411c9375bf433aad8060417534b67d9fe",
    "max ignore": "335d31e15c2897e063c0c98c33ff4178ab16abd8a4bb3fb56ede9f9f59641f25",
    "min ignore": "24b8bd84dd4bf0c3e16307478d5b52709aae89c9cf6b6227200442a92c87db2c",
    "rater:bob prefer": "c555e4abcaf8b20fd9e50fa49c9de37b0aaaf5a27308b2d10dadf8d3e55e72d0",
    "rater:adjudicated prefer": "418009278f6520facd8f2e95955de1425b73ea7c2667804dd15556888fc65cf0",
}


def _options(name: str, path: Path) -> ExportOptions:
    if name == "judgments":
        return ExportOptions("judgments", path)
    method, adjudicated = name.split()
    return ExportOptions("qrels", path, aggregate=method, adjudicated=adjudicated == "prefer")


def _exported(db: str, name: str, folder: Path) -> tuple[bytes, str]:
    path = folder / name.replace(":", "-").replace(" ", "-")
    message = str(export(db, _options(name, path)))
    return path.read_bytes(), message


def _reference(campaign: Campaign, name: str) -> bytes:
    if name == "judgments":
        return reference_csv(campaign)
    method, adjudicated = name.split()
    return reference_qrels(campaign, method, adjudicated == "prefer")


def _check_fixed(database: Database, db: str, folder: Path) -> None:
    campaign = fixed_campaign()
    fill(database, campaign)
    for name, digest in PINNED.items():
        data, message = _exported(db, name, folder)
        assert data == _reference(campaign, name), name
        assert hashlib.sha256(data).hexdigest() == digest, name
        lines = data.count(b"\n")
        said = (
            f": {len(campaign.judgments):,} judgments"
            if name == "judgments"
            else f": {lines:,} graded pairs ({name.split()[0]})"
        )
        assert message.endswith(said), message


def test_every_export_of_a_fixed_campaign_is_as_pinned(db: Database, db_path: Path, tmp_path):
    _check_fixed(db, str(db_path), tmp_path)


@pytest.mark.parametrize(("chunk", "ids"), [(7, 2), (60, 2), (60, 500)])
def test_the_chunks_of_a_stream_change_no_byte(db: Database, db_path: Path, tmp_path, monkeypatch,
                                              chunk: int, ids: int) -> None:  # fmt: skip
    """Queries of more judgments than a chunk are read a run of documents at a time; runs of
    smaller ones together, at most ``ids`` in one statement."""
    monkeypatch.setattr(rows, "CHUNK", chunk)
    monkeypatch.setattr(rows, "IDS_PER_STATEMENT", ids)
    fill(db, fixed_campaign())
    for name in ("judgments", "mean prefer", "majority ignore"):
        data, _message = _exported(str(db_path), name, tmp_path)
        assert hashlib.sha256(data).hexdigest() == PINNED[name], name


@pytest.mark.postgres
def test_every_export_is_the_same_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    database = open_database(pg_url)
    try:
        _check_fixed(database, pg_url, tmp_path)
    finally:
        database.close()


def test_a_rater_without_grades_is_a_usage_error(db: Database, db_path: Path, tmp_path) -> None:
    fill(db, fixed_campaign())
    for name in ("rater:dan", "rater:nobody"):
        with pytest.raises(UsageError) as info:
            export(str(db_path), ExportOptions("qrels", tmp_path / "out", aggregate=name))
        assert info.value.worded(flag_of) == (
            f"--aggregate: {db_path} has no rater '{name[6:]}' (raters it has: =alice, @carol, "
            "adjudicated, bob, Émile)"
        )
    assert [path for path in tmp_path.iterdir() if not path.name.startswith(db_path.name)] == []


def test_an_empty_database_exports_a_header_and_an_empty_qrels(db_path: Path, tmp_path) -> None:
    open_database(db_path).close()
    assert _exported(str(db_path), "judgments", tmp_path) == (
        (",".join(HEADER) + "\r\n").encode(),
        f"{tmp_path / 'judgments'}: 0 judgments",
    )
    assert _exported(str(db_path), "mean prefer", tmp_path) == (
        b"",
        f"{tmp_path / 'mean-prefer'}: 0 graded pairs (mean)",
    )


# --- generated campaigns against the reference ----------------------------------------------

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
IDS = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs", "Z", "Cc")), min_size=1, max_size=6),
    st.text(st.sampled_from("=+-@'\t\r\n ,\"aZé😀"), min_size=1, max_size=4),
)
TIMES = st.datetimes(datetime(1970, 1, 1), datetime(2100, 1, 1))


@st.composite
def campaigns(draw: st.DrawFn) -> Campaign:
    queries = draw(st.dictionaries(IDS, st.none() | TEXT, min_size=1, max_size=4))
    documents = draw(st.dictionaries(IDS, st.none() | TEXT, min_size=1, max_size=4))
    raters = draw(st.lists(IDS | st.just("adjudicated"), min_size=1, max_size=4, unique=True))
    keys = st.tuples(*(st.sampled_from(sorted(names)) for names in (queries, documents, raters)))
    judged = draw(st.lists(keys, max_size=25, unique=True))
    campaign = Campaign(queries, documents, raters)
    for key in judged:
        grade = draw(st.none() | st.integers(0, 5))
        extra = draw(st.tuples(st.none() | TEXT, TIMES, st.none() | st.integers(0, 2**31 - 1)))
        campaign.judgments.append((*key, grade, *extra))
    return campaign


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "out").mkdir()
    yield tmp_path / "out"


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(campaign=campaigns(), method=st.sampled_from(METHODS + ("rater:adjudicated",)))
def test_exports_of_generated_campaigns_match_the_reference(
    db: Database, db_path: Path, folder: Path, campaign: Campaign, method: str
) -> None:
    fill(db, campaign)
    data, _message = _exported(str(db_path), "judgments", folder)
    assert data == reference_csv(campaign)
    for prefer in (True, False):
        name = f"{method} {'prefer' if prefer else 'ignore'}"
        try:
            expected = reference_qrels(campaign, method, prefer)
        except ExportError as error:
            with pytest.raises(ExportError) as info:
                _exported(str(db_path), name, folder)
            assert str(info.value) == str(error)
            continue
        if method.startswith("rater:") and not any(
            j[2] == method[6:] and j[3] is not None for j in campaign.judgments
        ):
            with pytest.raises(UsageError):
                _exported(str(db_path), name, folder)
            continue
        assert _exported(str(db_path), name, folder)[0] == expected


@settings(max_examples=200, deadline=None)
@given(
    judged=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 4), st.integers(0, 5)),
        max_size=40,
        unique_by=lambda row: row[:3],
    ),
    method=st.sampled_from(METHODS),
    prefer=st.booleans(),
)
def test_codes_combine_as_the_evaluation_combines_grades(
    judged: list[tuple[int, int, int, int]], method: str, prefer: bool
) -> None:
    """``aggregate_codes`` (the export's and the evaluation's) combines grades as pandas'
    groupby does (``_pandas_aggregate``, written here as the oracle)."""
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame(judged, columns=["query", "doc", "rater", "grade"], dtype=np.int64)
    named = pd.DataFrame(
        {
            "query_id": "q" + frame["query"].astype(str),
            "doc_id": "d" + frame["doc"].astype(str),
            "rater": frame["rater"].map(lambda code: "adjudicated" if code == 4 else f"r{code}"),
            "grade": frame["grade"].astype(float),
            "skipped": False,
        }
    )
    expected = _pandas_aggregate(named, method, prefer)
    pairs, grades = aggregate_codes(
        (frame["query"] * 4 + frame["doc"]).to_numpy(), frame["rater"].to_numpy(),
        frame["grade"].to_numpy(), method, 4, prefer,
    )  # fmt: skip
    got = [(f"q{pair // 4}", f"d{pair % 4}", grade) for pair, grade in zip(pairs, grades)]
    assert got == list(expected.itertuples(index=False, name=None))


def _pandas_aggregate(judgments, method: str, prefer: bool):
    """One grade per (query, document) by pandas: ``method`` over the raters but the
    adjudicator (majority: most votes, ties to the lower grade), the adjudicated grade in its
    place where there is one and ``prefer``."""
    import pandas as pd

    keys = ["query_id", "doc_id"]
    decided = judgments["rater"] == "adjudicated"
    raters = judgments[~decided]
    if method == "majority":
        votes = raters.groupby(keys + ["grade"]).size().rename("votes").reset_index()
        votes = votes.sort_values(keys + ["votes", "grade"], ascending=[True, True, False, True])
        combined = votes.drop_duplicates(keys)[keys + ["grade"]]
    else:
        combined = raters.groupby(keys, as_index=False)["grade"].agg(method)
    if prefer and decided.any():
        chosen = judgments.loc[decided, keys + ["grade"]]
        known = pd.MultiIndex.from_frame(chosen[keys])
        kept = ~pd.MultiIndex.from_frame(combined[keys]).isin(known)
        combined = pd.concat([combined[kept], chosen])
    combined = combined.sort_values(keys).reset_index(drop=True)
    return combined.assign(grade=combined["grade"].astype(float))


def test_ids_too_large_to_pack_are_read_one_by_one(db: Database) -> None:
    """Graded keys are read as one number a row unless the ids are too large for it."""
    campaign = Campaign({"q": None}, {"d": None}, ["r", "s"])
    campaign.judgments = [("q", "d", "r", 2, None, datetime(2024, 1, 1), None)]
    fill(db, campaign)
    big = 2**40
    with db.transaction() as session:
        at = datetime(2024, 1, 1)
        session.execute(insert(Query), [{"id": big, "external_id": "q-big", "created_at": at}])
        session.execute(insert(Document), [{"id": big, "external_id": "big-d"}])
        session.execute(
            insert(Judgment),
            [{"query_id": big, "document_id": big, "rater_id": 1, "grade": 5, "skipped": False,
              "judged_at": datetime(2024, 1, 2)}],
        )  # fmt: skip
    with db.reading() as session:
        keys = [key.tolist() for key in rows.graded_keys(session)]
    assert sorted(zip(*keys)) == [(1, 1, 2, 2), (big, big, 1, 5)]
