"""The evaluation's TREC readers: any whitespace layout reads as the same rows, by whichever
path (single-spaced as it is, tidied, or line by line)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge_app.io.errors import ImportFileError
from judge_app.io.trec import read_qrels_file, read_run_file

ids = st.text(alphabet="abcXYZ019-_.:", min_size=1, max_size=6)
gaps = st.sampled_from([" ", "  ", "\t", " \t ", "\t\t"])
rows = st.lists(
    st.tuples(ids, ids, st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False)),
    min_size=1,
    max_size=30,
    unique_by=lambda row: (row[0], row[1]),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=rows,
    gap=gaps,
    pad=st.sampled_from(["", " ", "\t"]),
    noise=st.booleans(),
    crlf=st.booleans(),
)
def test_any_whitespace_layout_reads_as_the_same_run(tmp_path: Path, rows, gap, pad, noise, crlf):
    lines = [
        f"{pad}{query}{gap}Q0{gap}{doc}{gap}{rank}{gap}{score!r}{gap}tag{pad}"
        for rank, (query, doc, score) in enumerate(rows, start=1)
    ]
    if noise:  # comments and blank lines, which trec_eval's files may hold
        lines = ["# a comment", ""] + lines[:1] + ["   ", "\t# another"] + lines[1:] + [""]
    path = tmp_path / "run.txt"
    path.write_bytes(("\r\n" if crlf else "\n").join(lines).encode("utf-8"))
    table, tag = read_run_file(path)
    assert tag == "tag"
    assert table.column_names == ["query_id", "doc_id", "score"]
    assert list(zip(*(table[name].to_pylist() for name in table.column_names))) == rows


def test_qrels_with_tabs_and_real_grades(tmp_path: Path):
    path = tmp_path / "qrels"
    path.write_text("1\t0\tA\t2\n# pooled, not judged:\n1  0  B  -1\n2 0 A 1.5\n", "utf-8")
    table = read_qrels_file(path)
    assert table.to_pydict() == {
        "query_id": ["1", "1", "2"],
        "doc_id": ["A", "B", "A"],
        "grade": [2.0, -1.0, 1.5],
    }


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("1\t0\tA\t2\n1 0 B\n", "line 2"),
        ("1 0 A 2\n\n1 0 B x\n", "line 3"),
        ("1 0 A 2\n1 0 B inf\n", "line 2"),
    ],
)
def test_a_bad_line_is_named_whatever_the_layout(tmp_path: Path, text, reason):
    path = tmp_path / "qrels"
    path.write_text(text, "utf-8")
    with pytest.raises(ImportFileError) as raised:
        read_qrels_file(path)
    assert f"{path} {reason}" in str(raised.value)
