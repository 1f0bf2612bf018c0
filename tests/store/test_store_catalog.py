"""Raters, assignments, settings and the reads that summarise a database."""

from __future__ import annotations

import pandas as pd
import pytest

from judge_app.commands.importing import ImportOptions, import_files
from judge_app.store import StoreError, reads
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.errors import SimilarRaterError
from judge_app.store.judgments import set_grade, skip
from judge_app.store.people import (
    add_rater,
    all_query_ids,
    assign_queries,
    assigned_queries,
    find_rater,
    rater,
    set_rater_active,
    unassign_queries,
)
from judge_app.store.rater_queue import all_rater_names
from judge_app.store.settings import (
    DEFAULT_SCALE,
    get_setting,
    scale,
    set_grade_label,
    set_setting,
)


def test_default_scale_is_the_seeds_and_a_lead_can_edit_it(db):
    with db.reading() as session:
        labels = scale(session)
    assert [(label.grade, label.label) for label in labels] == [
        (0, "Irrelevant"), (1, "Slightly relevant"), (2, "Fairly relevant"),
        (3, "Relevant"), (4, "Highly relevant"), (5, "Perfect"),
    ]  # fmt: skip
    assert all(label.description for label in labels)
    with db.transaction() as session:
        set_grade_label(session, 3, "Good", "Answers most of the need.")
    with db.reading() as session:
        edited = scale(session)
    assert (edited[3].label, edited[3].description) == ("Good", "Answers most of the need.")
    assert edited[:3] == list(DEFAULT_SCALE[:3])
    with pytest.raises(StoreError), db.transaction() as session:
        set_grade_label(session, 6, "Beyond", "")


def test_settings_are_stored_and_replaced(db):
    with db.transaction() as session:
        assert get_setting(session, "shuffle_seed", "none") == "none"
        set_setting(session, "shuffle_seed", "42")
    with db.transaction() as session:
        set_setting(session, "shuffle_seed", "7")
    with db.reading() as session:
        assert get_setting(session, "shuffle_seed") == "7"


def test_raters_are_unique_named_and_can_retire(db):
    with db.transaction() as session:
        ana = add_rater(session, " ana ")
        with pytest.raises(StoreError, match="already"):
            add_rater(session, "ana")
        with pytest.raises(StoreError, match="needs a name"):
            add_rater(session, "  ")
        set_rater_active(session, ana.id, False)
    with db.reading() as session:
        assert rater(session, "ana").active is False
        with pytest.raises(StoreError, match=r"no rater called 'bob' \(raters: ana\)"):
            rater(session, "bob")


def test_rater_names_are_nfc_one_without_case_and_none_only_spaces_from_another(db):
    with db.transaction() as session:
        cafe = add_rater(session, "cafe\u0301 ")
        assert cafe.name == "caf\u00e9" and find_rater(session, " caf\u00e9") is cafe
        smith = add_rater(session, "ben smith")
        for name, meant in (("Caf\u00e9", cafe), ("CAFE\u0301", cafe), ("  Ben  Smith ", smith)):
            assert find_rater(session, name) is meant  # the same name without case or spaces
            with pytest.raises(StoreError, match=f"already a rater called '{meant.name}'"):
                add_rater(session, name)
        with pytest.raises(SimilarRaterError, match="only by case or spaces: use 'ben smith'"):
            add_rater(session, "bensmith")  # only spaces away: maybe one person, maybe not
        assert add_rater(session, "BenSmith", similar_ok=True).name == "BenSmith"  # they said
    with db.reading() as session:
        assert all_rater_names(session) == ["BenSmith", "ben smith", "caf\u00e9"]


def test_assignments_keep_order_and_fall_back_to_all_queries(db):
    with db.transaction() as session:
        ids = query_ids(session, ["q3", "q1", "q2"])
        ana = add_rater(session, "ana").id
        assert assigned_queries(session, ana) == all_query_ids(session)
        assert [ids["q1"], ids["q2"], ids["q3"]] == all_query_ids(session)
        assert assign_queries(session, ana, [ids["q3"], ids["q1"], ids["q3"]]) == 2
        assert assign_queries(session, ana, [ids["q1"], ids["q2"]]) == 1
        assert assigned_queries(session, ana) == [ids["q3"], ids["q1"], ids["q2"]]
        unassign_queries(session, ana, [ids["q1"]])
        assert assigned_queries(session, ana) == [ids["q3"], ids["q2"]]


def test_info_reads_count_raters_and_coverage(db, tmp_path):
    (tmp_path / "queries.csv").write_text("query_id,text\nq1,pizza\n")
    results = pd.DataFrame(
        {"query_id": ["q1"] * 12 + ["q2"], "doc_id": [f"d{i}" for i in range(13)],
         "rank": list(range(1, 13)) + [1]}
    )  # fmt: skip
    results.to_csv(tmp_path / "bm25.csv", index=False)
    import_files(db, ImportOptions(queries=tmp_path / "queries.csv", run=tmp_path / "bm25.csv"))
    with db.transaction() as session:
        documents = document_ids(session, ["d0", "d1", "d11"])
        queries = query_ids(session, ["q1"])
        ana, ben = add_rater(session, "ana").id, add_rater(session, "ben").id
        set_grade(session, ana, queries["q1"], documents["d0"], 3)
        set_grade(session, ben, queries["q1"], documents["d0"], 2)
        set_grade(session, ana, queries["q1"], documents["d11"], 1)
        skip(session, ben, queries["q1"], documents["d1"])
    with db.reading() as session:
        counts = reads.table_counts(session)
        raters = reads.raters_frame(session).set_index("rater")
        coverage = reads.coverage_frame(session, depth=10).iloc[0]
    assert counts["queries"] == 2 and counts["queries without text"] == 1
    assert counts["documents"] == 13 and counts["documents without text"] == 13
    assert counts["judgments"] == 4 and counts["judgment events"] == 4
    assert raters.loc["ana", "judged"] == 2 and raters.loc["ana", "mean_grade"] == 2.0
    assert raters.loc["ben", "judged"] == 1 and raters.loc["ben", "skipped"] == 1
    # d0 and d11 are graded; d1 only skipped, which does not count as judged
    assert (coverage["results"], coverage["judged"]) == (13, 2)
    assert (coverage["results_at_depth"], coverage["judged_at_depth"]) == (11, 1)
