"""Two processes on one SQLite file: imports that create the same rows, raters grading at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from judge_app.commands.importing import ImportOptions, import_files
from judge_app.store import open_database, reads

IMPORT = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from judge_app.store import open_database
    from judge_app.commands.importing import ImportOptions, import_files
    with open_database(sys.argv[1]) as db:
        for round in range(5):
            import_files(db, ImportOptions(judgments=Path(sys.argv[2])))
    """
)

GRADE = textwrap.dedent(
    """
    import sys
    from judge_app.store import open_database
    from judge_app.store.bulk import document_ids, query_ids
    from judge_app.store.judgments import set_grade
    from judge_app.store.people import rater
    with open_database(sys.argv[1]) as db:
        with db.transaction() as session:
            me = rater(session, sys.argv[2]).id
            query = query_ids(session, ["q1"])["q1"]
            documents = list(document_ids(session, [f"d{i}" for i in range(200)]).values())
        for step in range(400):
            with db.transaction() as session:
                set_grade(session, me, query, documents[step % 200], step % 6)
    """
)


def _run_together(*commands: list[str]) -> list[subprocess.CompletedProcess]:
    processes = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for command in commands
    ]
    results = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        results.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return results


def test_two_imports_creating_the_same_documents_both_succeed(tmp_path):
    db_path = tmp_path / "shared.sqlite"
    open_database(db_path).close()
    files = []
    for rater in ("ana", "ben"):
        path = tmp_path / f"{rater}.csv"
        rows = [f"q{q},d{d},{rater},{(q + d) % 6}" for q in range(20) for d in range(50)]
        path.write_text("query_id,doc_id,rater,grade\n" + "\n".join(rows) + "\n")
        files.append(path)
    results = _run_together(
        *[[sys.executable, "-c", IMPORT, str(db_path), str(path)] for path in files]
    )
    for result in results:
        assert result.returncode == 0, result.stderr
    with open_database(db_path) as db, db.reading() as session:
        counts = reads.table_counts(session)
    assert (counts["queries"], counts["documents"], counts["judgments"]) == (20, 50, 2000)


def test_two_raters_grading_one_file_at_once_lose_nothing(tmp_path):
    db_path = tmp_path / "shared.sqlite"
    seed = tmp_path / "seed.csv"
    rows = [f"q1,d{d},{rater},0" for d in range(200) for rater in ("ana", "ben")]
    seed.write_text("query_id,doc_id,rater,grade\n" + "\n".join(rows) + "\n")
    with open_database(db_path) as db:
        import_files(db, ImportOptions(judgments=seed))
    results = _run_together(
        *[[sys.executable, "-c", GRADE, str(db_path), rater] for rater in ("ana", "ben")]
    )
    for result in results:
        assert result.returncode == 0, result.stderr
        assert "locked" not in result.stderr
    with open_database(db_path) as db, db.reading() as session:
        history = reads.history_frame(session)
        judgments = reads.judgments_frame(session)
    # Every grade that differs from the one before it is one event: the first pass over the
    # 200 documents changes the seeded 0 unless step % 6 is 0; the second pass changes all.
    changes = sum(1 for step in range(200) if step % 6) + 200
    assert history.groupby("rater").size().to_dict() == {"ana": changes, "ben": changes}
    final = {f"d{step % 200}": step % 6 for step in range(400)}
    for rater in ("ana", "ben"):
        mine = judgments[judgments["rater"] == rater].set_index("doc_id")["grade"].to_dict()
        assert mine == final
