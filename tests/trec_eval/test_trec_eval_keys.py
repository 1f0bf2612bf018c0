"""The hashes, key meetings and file reading that ``rank`` builds on: equal ids meet, repeats
are seen, and a results file read straight from disk keeps its last run id."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from judge_app.arrow_columns import codes_in, same_keys, sorted_ids, string_hashes
from judge_app.trec_eval import Settings, rank, read_qrels, read_results


def test_string_hashes_equal_for_equal_ids_in_any_chunking() -> None:
    ids = ["", "a", "ab", "abcdefgh", "abcdefghi", "é" * 9, "abcdefgh"]
    whole = string_hashes(pa.array(ids, pa.string()))
    chunked = string_hashes(pa.chunked_array([ids[:3], pa.array(ids)[3:]]))  # a slice, too
    assert (whole == chunked).all()
    assert (string_hashes(pa.array(ids, pa.large_string())) == whole).all()
    assert whole[3] == whole[6]
    assert len(set(whole[:6].tolist())) == 6
    assert (string_hashes(pa.array(ids), seed=1) != whole).any()


def test_same_keys_finds_matches_and_repeats() -> None:
    known = np.array([10, 20, 30], dtype=np.uint64)
    found, known_twice, keys_twice = same_keys(known, np.array([31, 5, 11], dtype=np.uint64))
    assert found.tolist() == [2, -1, 0]  # the lowest bit is left out
    assert not known_twice and not keys_twice
    _, known_twice, keys_twice = same_keys(known, np.array([7, 7], dtype=np.uint64))
    assert keys_twice and not known_twice


def test_dictionary_columns_code_as_strings() -> None:
    plain = pa.chunked_array([["q2", "q1"], ["q3", "q1"]])
    coded = pa.chunked_array([pa.array(chunk).dictionary_encode() for chunk in plain.chunks])
    assert sorted_ids(coded).to_pylist() == sorted_ids(plain).to_pylist() == ["q1", "q2", "q3"]
    ids = pa.array(["q1", "q3"])
    assert codes_in(coded, ids).tolist() == codes_in(plain, ids).tolist() == [-1, 0, 1, 0]


def test_files_read_from_disk_rank_as_before(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n")
    run = tmp_path / "run"
    runid = "r" * 10_000  # the last line longer than the block read from the file's end
    run.write_text(f"1 Q0 d2 1 2.0 x\n1 Q0 d1 2 2.0 x\n2 Q0 d3 1 1.0 {runid}\n")
    ranked = rank(read_qrels(qrels), read_results(run), Settings())
    assert read_results(run).runid == runid
    assert ranked.queries == ["1", "2"]
    assert ranked.rel.tolist() == [0, 1, 2]  # a tie: document id descending
    assert not ranked.repeats


def test_a_document_twice_is_found(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n1 0 d1 0\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 d2 1 2.0 x\n1 Q0 d2 2 1.0 x\n")
    ranked = rank(read_qrels(qrels), read_results(run), Settings())
    assert {(r.source, r.doc) for r in ranked.repeats} == {("results", "d2"), ("qrels", "d1")}
