"""open_database: SQLite settings, migrations at open, refusals with clear messages."""

from __future__ import annotations

import builtins
import hashlib
import io
import sqlite3
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, select, text

from judge_app.store import SchemaTooNewError, StoreError, database, open_database, reads, schema
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.judgments import set_grade
from judge_app.store.models import Base, Rater
from judge_app.store.people import add_rater


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_sqlite_connections_have_the_safety_settings(db):
    with db.engine.connect() as connection:
        pragma = lambda name: connection.exec_driver_sql(f"PRAGMA {name}").scalar()  # noqa: E731
        assert pragma("foreign_keys") == 1
        assert pragma("journal_mode") == "wal"
        assert pragma("synchronous") == 2  # FULL
        assert pragma("busy_timeout") >= 5000


def test_models_and_migrated_schema_agree(db):
    with db.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert differences == []


def test_migrations_have_exactly_one_head():
    assert schema.head_revision()


def _revisions():
    with schema._alembic_config() as config:
        return [s.revision for s in ScriptDirectory.from_config(config).walk_revisions()][::-1]


def test_the_revisions_read_from_the_files_are_alembics():
    """The head and the known revisions, read from the migrations' files without Alembic,
    are those Alembic's ScriptDirectory finds."""
    with schema._alembic_config() as config:
        scripts = ScriptDirectory.from_config(config)
        expected = {
            script.revision: _as_tuple(script.down_revision) for script in scripts.walk_revisions()
        }
        heads = scripts.get_heads()
    assert schema._revision_graph() == expected
    assert [schema.head_revision()] == heads
    assert schema._known_revisions() == set(expected)


def _as_tuple(revisions: str | tuple[str, ...] | None) -> tuple[str, ...]:
    return () if revisions is None else (revisions,) if isinstance(revisions, str) else revisions


@pytest.mark.parametrize(
    ("lines", "read"),
    [
        ('revision = "0003"\ndown_revision = "0002"\n', {"0003": ("0002",)}),
        ('revision: str = "0003"\ndown_revision: str | None = None\n', {"0003": ()}),
        ('revision = "0003"\ndown_revision = ("0001", "0002")\n', {"0003": ("0001", "0002")}),
        ('revision = "0003"  # the packets\ndown_revision = "0002"\n', {"0003": ("0002",)}),
        ('revision = "0003"\ndown_revision = "0002" if True else "0001"\n', None),
        ('revision = make_id()\ndown_revision = "0002"\n', None),
        ('revision = "0003"\ndown_revision = "0002"\ndepends_on = "0001"\n', None),
        ('revision = "0003"\ndown_revision = "0009"\n', None),
        ('revision = "0003"\n', None),
    ],
)
def test_a_revision_file_said_otherwise_is_left_to_alembic(tmp_path, monkeypatch, lines, read):
    """What the files' lines cannot say for sure (None) is read by Alembic instead."""
    versions = tmp_path / "versions"
    versions.mkdir()
    (versions / "__init__.py").write_text("")
    (versions / "0001_a.py").write_text('revision = "0001"\ndown_revision = None\n')
    (versions / "0002_b.py").write_text('revision = "0002"\ndown_revision = "0001"\n')
    (versions / "0003_c.py").write_text('"""c\n\nRevision ID: 0003\n"""\n' + lines)
    monkeypatch.setattr(schema.resources, "files", lambda _package: tmp_path)
    schema._revision_graph.cache_clear()
    try:
        graph = schema._revision_graph()
    finally:
        schema._revision_graph.cache_clear()
    assert graph == (None if read is None else {"0001": (), "0002": ("0001",), **read})


def test_opening_a_database_at_head_loads_no_alembic(db_path):
    """Alembic is imported only when a database is to be migrated."""
    program = (
        "import sys\n"
        "from judge_app.store import open_database\n"
        "open_database(sys.argv[1]).close()\n"
        "print('alembic' in sys.modules)\n"
    )
    run = [sys.executable, "-c", program, str(db_path)]
    first = subprocess.run(run, capture_output=True, text=True, check=True)
    again = subprocess.run(run, capture_output=True, text=True, check=True)
    assert (first.stdout.split(), again.stdout.split()) == (["True"], ["False"])


ROWS = {
    "0001": [
        "INSERT INTO query VALUES (1, 'q1', 'pizza', NULL, '2026-01-01 00:00:00')",
        "INSERT INTO document VALUES (1, 'd1', 'Pizza places', NULL, NULL)",
        "INSERT INTO run VALUES (1, 'bm25', NULL, '2026-01-01 00:00:00')",
        "INSERT INTO result VALUES (1, 1, 1, 1, 1, 9.5)",
        "INSERT INTO rater (id, name, created_at, active) VALUES (1, 'ana', '2026-01-01 00:00:00', 1)",
        "INSERT INTO assignment VALUES (1, 1, 0)",
        "INSERT INTO judgment VALUES (1, 1, 1, 1, 3, 0, NULL, '2026-01-02 00:00:00', 800)",
        "INSERT INTO judgment_event (id, rater_id, query_id, document_id, action, old_grade, "
        "old_skipped, old_note, new_grade, new_skipped, new_note, at, reverts) VALUES "
        "(1, 1, 1, 1, 'merge', NULL, NULL, NULL, 3, 0, NULL, '2026-01-02 00:00:00', NULL)",
        "INSERT INTO setting VALUES ('database.id', 'f00d')",
        "INSERT INTO setting VALUES ('packet.merged.beef', '7')",  # merged before 0002
    ],
    "0002": ["INSERT INTO packet VALUES ('cafe', 1, '2026-01-02 00:00:00', 0, 1)"],
    "0003": [
        "INSERT INTO repeat_judgment VALUES (1, 1, 1, '2026-01-03 00:00:00', 3, 2, 0, NULL, "
        "'2026-01-03 00:01:00', 900)",
        "INSERT INTO gold_item VALUES (1, 1, 3, '2026-01-03 00:00:00')",
    ],
    "0004": [
        "INSERT INTO rater (id, name, created_at, active, kind) VALUES "
        "(2, 'llm', '2026-01-04 00:00:00', 1, 'automatic')",
        "INSERT INTO automatic_judge VALUES (2, 'llm', 'qwen', 'abc', 'Grade it', "
        "'http://127.0.0.1:1/v1', NULL, '2026-01-04 00:00:00')",
        "INSERT INTO auto_judgment VALUES (2, 1, 1, 2.0, NULL, '2', 'f00', 30, 1, 120, "
        "'2026-01-04 00:00:00')",
    ],
    "0005": ["INSERT INTO active_sample VALUES (1, 2, 0.25, 1.5, '2026-01-05 00:00:00')"],
    "0006": ["UPDATE rater SET login = 'ana_login' WHERE id = 1"],
    "0007": ["UPDATE judgment_event SET login = 'ana_login' WHERE id = 1"],
    "0008": [
        "INSERT INTO auto_probe VALUES (2, 'injection', 1, 1, 5.0, NULL, '5', 'f01', 40, 1, "
        "130, '2026-01-08 00:00:00')",
        "INSERT INTO rater (id, name, created_at, active, kind) VALUES "
        "(3, 'both', '2026-01-08 00:00:00', 1, 'automatic')",
        "INSERT INTO automatic_judge VALUES (3, 'ensemble', 'mean of llm', NULL, NULL, NULL, "
        "'{\"members\": [\"llm\"]}', '2026-01-08 00:00:00')",
    ],
    "0009": [
        "INSERT INTO document VALUES (2, 'd2', 'Pizza recipes', NULL, NULL)",
        "INSERT INTO preference VALUES (1, 1, 1, 1, 2, 'a', 2, 'closer', "
        "'2026-01-09 00:00:00', 1500)",
        "INSERT INTO preference_event (id, rater_id, query_id, document_a_id, document_b_id, "
        "action, old_choice, old_note, new_choice, new_note, at, reverts, login) VALUES "
        "(1, 1, 1, 1, 2, 'set', NULL, NULL, 'a', 'closer', '2026-01-09 00:00:00', NULL, NULL)",
    ],
    "0010": [
        "INSERT INTO auto_preference VALUES (2, 1, 1, 2, 'equal', NULL, 'a', 'b', 'A', 'A', "
        "'f02', 200, 8, 900, '2026-01-10 00:00:00')",
    ],
}
"""Rows in every table of each revision (what it adds), in an order foreign keys allow."""


NEW_COLUMNS = {
    "judgment_event": {"repeat": 0, "login": None},
    "rater": {"kind": "human", "login": None},
}
"""Columns a later revision adds to an existing table, with the value old rows get."""


def _tables(connection) -> dict[str, list[dict]]:
    """Every judge_app table's rows."""
    names = [name for name in inspect(connection).get_table_names() if name != "alembic_version"]
    tables = {}
    for name in names:
        rows = connection.exec_driver_sql(f'SELECT * FROM "{name}" ORDER BY 1').mappings()
        tables[name] = [dict(row) for row in rows]
    return tables


@pytest.mark.parametrize("revision", _revisions())
def test_every_revision_upgrades_to_head_keeping_rows(tmp_path, revision):
    """A database made at an old revision, with rows in every table, opens at head with
    nothing lost."""
    path = tmp_path / "old.sqlite"
    database = open_database(path)
    database.close()
    revisions = _revisions()
    with database.engine.begin() as connection, schema._alembic_config(connection) as config:
        command.downgrade(config, "base")
        command.upgrade(config, revision)
        for made in revisions[: revisions.index(revision) + 1]:
            for row in ROWS[made]:
                connection.exec_driver_sql(row)
        before = _tables(connection)
    assert all(before.values()), before  # every table has rows: add the new ones to ROWS
    reopened = open_database(path)
    with reopened.engine.connect() as connection:
        after = _tables(connection)
        assert MigrationContext.configure(connection).get_current_heads() == (
            schema.head_revision(),
        )
    reopened.close()
    for name, rows in before.items():
        added = NEW_COLUMNS.get(name, {})
        assert after[name] == [{**added, **row} for row in rows]


def test_downgrading_from_0002_keeps_how_far_packets_were_merged(tmp_path):
    path = tmp_path / "packets.sqlite"
    database = open_database(path)
    with database.engine.begin() as connection, schema._alembic_config(connection) as config:
        for row in ROWS["0001"] + ROWS["0002"]:
            connection.exec_driver_sql(row)
        connection.exec_driver_sql("INSERT INTO packet VALUES ('d00d', 1, '2026-01-03', 1, NULL)")
        command.downgrade(config, "0001")
        settings = connection.exec_driver_sql("SELECT key, value FROM setting ORDER BY key")
        assert settings.fetchall() == [
            ("database.id", "f00d"),
            ("packet.merged.beef", "7"),
            ("packet.merged.cafe", "1"),
        ]
    database.close()


def test_a_newer_schema_is_refused_and_the_file_left_alone(db_path):
    open_database(db_path).close()
    with sqlite3.connect(db_path) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999_future'")
    before = _sha(db_path)
    with pytest.raises(SchemaTooNewError, match="newer than this judge_app"):
        open_database(db_path)
    assert _sha(db_path) == before


def test_a_foreign_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE invoices (id INTEGER)")
    with pytest.raises(StoreError, match="not a judge_app database"):
        open_database(path)


def test_a_file_that_is_not_sqlite_is_refused(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("just some notes\n" * 10)
    with pytest.raises(StoreError, match="not a SQLite database"):
        open_database(path)
    assert path.read_text().startswith("just some notes")


def test_missing_folder_and_missing_file_are_explained(tmp_path):
    with pytest.raises(StoreError, match="does not exist"):
        open_database(tmp_path / "nowhere" / "db.sqlite")
    with pytest.raises(StoreError, match="judge-app init"):
        open_database(tmp_path / "absent.sqlite", create=False)
    assert not (tmp_path / "absent.sqlite").exists()


def test_every_open_of_one_database_in_a_process_shares_one_engine(db, db_path):
    again = open_database(db_path, create=False)
    spelled_otherwise = open_database(db_path.parent / "." / db_path.name, read_only=True)
    assert again.engine is db.engine is spelled_otherwise.engine
    again.close()
    again.close()  # closing a handle twice lets go of it once
    spelled_otherwise.close()
    with db.transaction() as session:  # the first handle still works
        add_rater(session, "ana")
    db.close()
    with open_database(db_path) as reopened, reopened.reading() as session:
        assert reopened.engine is not db.engine
        assert session.scalars(select(Rater.name)).all() == ["ana"]


def test_opening_a_database_never_reads_its_file_with_plain_file_io(db, db_path, monkeypatch):
    """Closing a descriptor of the file would drop this process's SQLite locks on it."""
    opened = []
    real_open = io.open

    def recording_open(file: object, *args: Any, **kwargs: Any) -> Any:
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(io, "open", recording_open)
    monkeypatch.setattr(builtins, "open", recording_open)
    open_database(db_path).close()
    open_database(db_path, read_only=True).close()
    db.close()
    open_database(db_path, create=False).close()  # no other handle: still no plain open
    assert not [name for name in opened if name.startswith(str(db_path))]


def test_a_read_only_open_of_an_empty_file_refuses_it_and_writes_nothing(tmp_path):
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    with pytest.raises(StoreError, match="is not a judge_app database yet: it holds no tables"):
        open_database(empty, read_only=True)
    assert empty.stat().st_size == 0
    assert list(tmp_path.iterdir()) == [empty]


def test_a_read_only_open_refuses_an_older_schema_and_leaves_the_file_alone(
    db, db_path, monkeypatch
):
    db.close()
    before = _sha(db_path)
    monkeypatch.setattr(schema, "head_revision", lambda: "9999_pretend_head")
    with pytest.raises(StoreError, match="older than this judge_app's 9999_pretend_head") as raised:
        open_database(db_path, read_only=True)
    assert f"judge-app init {db_path}" in str(raised.value)
    assert _sha(db_path) == before
    assert not list(db_path.parent.glob("*.bak"))


def test_a_read_only_handle_refuses_to_write(db, db_path):
    with open_database(db_path, read_only=True) as reader:
        with pytest.raises(StoreError, match="opened read-only: nothing was changed"):
            reader.write(lambda session: add_rater(session, "ana"))
        with pytest.raises(StoreError, match="opened read-only"), reader.transaction():
            pass
    with db.reading() as session:
        assert reads.raters_frame(session).empty


def test_backup_copies_the_whole_database(db, db_path):
    with db.transaction() as session:
        rater = add_rater(session, "ana").id
        query = query_ids(session, ["q1"])["q1"]
        document = document_ids(session, ["d1"])["d1"]
        set_grade(session, rater, query, document, 4)
    copy = schema.backup_sqlite(db.engine, "0001")
    assert copy == schema.backup_path(db_path, "0001") and copy.exists()
    with sqlite3.connect(copy) as connection:
        assert connection.execute("SELECT grade FROM judgment").fetchall() == [(4,)]


def test_opening_at_head_takes_no_backup(db, db_path):
    db.close()
    open_database(db_path).close()
    assert not list(db_path.parent.glob("*.bak"))


def test_old_database_is_backed_up_before_migrating(tmp_path, monkeypatch):
    """When the code knows a newer head than the file, a copy is taken first."""
    path = tmp_path / "old.sqlite"
    open_database(path).close()
    real_head = schema.head_revision()
    calls = []
    monkeypatch.setattr(schema, "head_revision", lambda: "9999_pretend_head")
    monkeypatch.setattr(command, "upgrade", lambda config, target: calls.append(target))
    open_database(path).close()
    assert calls == ["head"]
    assert schema.backup_path(path, real_head).exists()


def _hold_write_lock(
    path, seconds: float = 0.0, release: threading.Event | None = None
) -> threading.Thread:
    """Another program's write transaction on ``path``, begun before this returns, for
    ``seconds`` or until ``release`` is set."""
    begun = threading.Event()

    def hold() -> None:
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        begun.set()
        if release is None:
            time.sleep(seconds)
        else:
            release.wait()
        other.execute("COMMIT")
        other.close()

    thread = threading.Thread(target=hold)
    thread.start()
    assert begun.wait(10)
    return thread


def _grade_one(session) -> int:
    rater = add_rater(session, "ana").id
    query = query_ids(session, ["q1"])["q1"]
    document = document_ids(session, ["d1"])["d1"]
    set_grade(session, rater, query, document, 3)
    return rater


def test_a_write_outwaits_a_lock_held_past_the_busy_timeout(db_path, monkeypatch):
    """SQLite gives up after its busy timeout; the store retries with pauses until the other
    writer is done, so the rater never sees "database is locked"."""
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 50)
    with open_database(db_path) as db:
        holder = _hold_write_lock(db_path, 1.0)
        started = time.perf_counter()
        db.write(_grade_one)
        waited = time.perf_counter() - started
        holder.join()
        holder = _hold_write_lock(db_path, 1.0)
        with db.transaction() as session:  # a block's start waits the same way
            add_rater(session, "ben")
        holder.join()
        with db.reading() as session:
            assert reads.table_counts(session)["judgments"] == 1
            assert session.scalars(select(Rater.name).order_by(Rater.name)).all() == ["ana", "ben"]
    assert waited >= 0.9  # it did wait for the other writer, past many busy timeouts


def test_a_lock_held_past_the_retries_fails_in_plain_words(db_path, monkeypatch):
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 50)
    monkeypatch.setattr(database, "RETRY_SECONDS", 0.5)
    with open_database(db_path) as db:
        holder = _hold_write_lock(db_path, 2.0)
        with pytest.raises(StoreError) as raised:
            db.write(_grade_one)
        holder.join()
        with db.reading() as session:
            assert reads.table_counts(session)["judgments"] == 0
    message = str(raised.value)
    assert message.startswith(f"The database {db_path} is locked by another program (busy for")
    assert "nothing of this change was written; try again" in message
    assert "database is locked" not in message and "Error" not in message


def test_work_that_fails_for_its_own_reasons_is_not_retried(db):
    calls = []

    def duplicate_rater(session) -> None:
        calls.append(1)
        session.execute(
            text("INSERT INTO rater (name, created_at, active) VALUES ('x', '2026-01-01', 1)")
        )
        session.execute(
            text("INSERT INTO rater (name, created_at, active) VALUES ('x', '2026-01-01', 1)")
        )

    with pytest.raises(StoreError, match="UNIQUE constraint failed"):
        db.write(duplicate_rater)
    assert calls == [1]


def test_the_files_of_an_open_database_are_refused_as_imports_and_exports(db, db_path):
    """Reading or writing them with plain file I/O would drop this process's SQLite locks."""
    from judge_app.io.errors import ExportError, ImportFileError
    from judge_app.io.outputs import check_output
    from judge_app.io.readers import FileReader

    for path in (db_path, db_path.with_name(db_path.name + "-wal")):
        with pytest.raises(ExportError, match="is a database this program has open"):
            check_output(path)
        with pytest.raises(ImportFileError, match="is a database this program has open"):
            FileReader(path, "queries")
    db.close()
    with pytest.raises(ExportError, match="is a SQLite database: choose another file"):
        check_output(db_path)  # closed now, but still a database


def test_opening_a_database_another_program_is_writing_does_not_wait_for_it(db, db_path):
    """Reading the schema's revision takes no write lock: a window or ``judge-app info``
    opens during another program's long import."""
    db.close()
    release = threading.Event()
    holder = _hold_write_lock(db_path, release=release)
    try:  # had it waited for the lock, it would have given up in words after two minutes
        with open_database(db_path, read_only=True) as reader, reader.reading() as session:
            assert reads.table_counts(session)["judgments"] == 0
        with open_database(db_path) as writer:  # at head already: nothing to migrate
            assert writer.describe() == str(db_path)
        assert holder.is_alive()  # opened while the other program still held its lock
    finally:
        release.set()
        holder.join()


def test_downgrading_from_0003_drops_the_repeats_and_their_history_only(tmp_path):
    """Back at 0002 a repeat's events would read as changes of the rater's judgment: they go
    with the repeats; the judgments and their own history stay."""
    path = tmp_path / "repeats.sqlite"
    database = open_database(path)
    with database.engine.begin() as connection, schema._alembic_config(connection) as config:
        for row in ROWS["0001"] + ROWS["0002"] + ROWS["0003"]:
            connection.exec_driver_sql(row)
        connection.exec_driver_sql(
            "INSERT INTO judgment_event (id, rater_id, query_id, document_id, action, "
            "new_grade, new_skipped, at, repeat) VALUES "
            "(2, 1, 1, 1, 'set', 2, 0, '2026-01-03 00:01:00', 1)"
        )
        command.downgrade(config, "0002")
        tables = _tables(connection)
    database.close()
    assert "repeat_judgment" not in tables and "gold_item" not in tables
    assert [event["id"] for event in tables["judgment_event"]] == [1]
    assert "repeat" not in tables["judgment_event"][0]
    assert [judgment["grade"] for judgment in tables["judgment"]] == [3]


ENDLESS_INFO = """
import os, signal, sys, threading
from sqlalchemy import func, literal, select
from judge_app import cli
from judge_app.store import reads

def counted(session):  # a statement of a trillion steps in place of the table counts
    counter = select(literal(1).label("n")).cte("counter", recursive=True)
    counter = counter.union_all(select(counter.c.n + 1).where(counter.c.n < 10**12))
    statement = select(func.count()).select_from(counter)
    if sys.argv[2] == "pandas":
        return {"rows": int(reads.read_frame(session, statement).iloc[0, 0])}
    return {"rows": session.scalar(statement)}

reads.table_counts = counted
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal (a background
threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()  # job ignores Ctrl+C)
sys.exit(cli.main(["info", sys.argv[1]]))
"""


@pytest.mark.parametrize("read", ["pandas", "sqlalchemy"])
def test_ctrl_c_stops_a_long_statement_at_once(db_path, read):
    """Ctrl+C in the middle of one long SQLite statement (a million raters' ``info`` ran
    past ten minutes and ignored it): the statement stops, the command says so and exits
    130 (before, it ran to its end; here that is a trillion steps, past the timeout)."""
    open_database(db_path).close()
    done = subprocess.run(
        [sys.executable, "-c", ENDLESS_INFO, str(db_path), read],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 130, done.stderr
    assert done.stderr == "interrupted; nothing of the unfinished step was written\n"
