"""Where a key may act (``judging.moves``), without Qt: a grade lands on the next result, whose
judgment no key changes until the rater selects it; leaving a query with results left
ungraded is said once, then the same key leaves."""

from __future__ import annotations

from types import SimpleNamespace

from judge_app.judging.moves import Moves, left_text
from judge_app.store.rater_queue import Progress


def _session(grades: list[int | None], query_id: int = 7) -> SimpleNamespace:
    items = [
        SimpleNamespace(external_id=f"d{row}", grade=grade, skipped=False, judged=grade is not None)
        for row, grade in enumerate(grades)
    ]
    graded = sum(grade is not None for grade in grades)
    return SimpleNamespace(
        items=items,
        query=SimpleNamespace(id=query_id),
        query_progress=lambda: Progress(graded=graded, total=len(grades)),
    )


def test_a_judged_result_a_grade_landed_on_keeps_its_grade_until_chosen():
    session, moves = _session([3, 2, None]), Moves()
    moves.land(1)
    said = moves.kept(session, 1)
    assert said is not None and said.startswith("Not changed: d1 keeps grade 2")
    assert "the grade moved the selection there" in said
    assert moves.kept(session, 0) is None  # not where the grade landed
    assert moves.kept(session, 2) is None  # landed on nothing judged: the key grades it
    moves.choose()  # a click, a move, an undo
    assert moves.kept(session, 1) is None


def test_past_the_end_of_a_done_query_the_reason_is_that_every_result_is_judged():
    session, moves = _session([3, 2]), Moves()
    moves.land(1)
    assert "every result of this query is judged" in (moves.kept(session, 1) or "")


def test_leaving_with_results_ungraded_is_said_once_per_query():
    session, moves = _session([3, None, None]), Moves()
    assert moves.leave(session, "go on") == 2 and moves.going == "go on"
    assert moves.warning(session) == 2
    assert moves.leave(session, "go on") == 0  # the same key again: leave
    other = _session([None], query_id=8)
    assert moves.warning(other) == 0 and moves.leave(other, "go on") == 1
    assert moves.leave(_session([1, 2], query_id=9), "go on") == 0  # done: no word


def test_the_count_left_reads_as_a_sentence():
    assert left_text(1) == "1 result is" and left_text(2) == "2 results are"
