"""The store's failures in plain words, from the real errors: a read-only file or folder, a
file deleted while open, a PostgreSQL server that does not answer; and errors.in_words."""

from __future__ import annotations

import pytest
from failure_support import deleted, plain, unwritable
from fake_postgres import refusing_server
from sqlalchemy import select

from judge_app.errors import in_words
from judge_app.store import StoreError, open_database
from judge_app.store.database import open_writable_if_possible
from judge_app.store.errors import ReadOnlyDatabaseError
from judge_app.store.models import Rater
from judge_app.store.people import add_rater


def _add(name: str):
    return lambda session: add_rater(session, name).id


def test_a_read_only_file_is_refused_for_writing_and_opened_read_only_instead(db_path):
    open_database(db_path).close()
    with unwritable(db_path):
        with pytest.raises(ReadOnlyDatabaseError) as raised:
            open_database(db_path)
        message = str(raised.value)
        assert message == (
            f"The database file {db_path} is read-only: ask for write access or open a copy; "
            "nothing was changed"
        )
        with open_writable_if_possible(db_path) as database:
            assert database.read_only
            with database.reading() as session:
                assert session.scalars(select(Rater.name)).all() == []
            with pytest.raises(StoreError, match="opened read-only: nothing was changed"):
                database.write(_add("ana"))
    assert plain(message)


def test_a_read_only_folder_is_opened_read_only_without_files_beside_the_database(
    db_path, tmp_path
):
    """A folder nothing can be written to (a read-only disk): SQLite cannot make the files it
    keeps beside a WAL database, so the file is read as immutable."""
    with open_database(db_path) as database:
        database.write(_add("ana"))
    with unwritable(tmp_path):
        with pytest.raises(ReadOnlyDatabaseError, match="The folder of the database file"):
            open_database(db_path)
        with open_writable_if_possible(db_path) as database, database.reading() as session:
            assert database.read_only
            assert session.scalars(select(Rater.name)).all() == ["ana"]
    assert sorted(path.name for path in tmp_path.iterdir()) == [db_path.name]


def test_a_file_deleted_while_open_is_said_and_nothing_is_reported_saved(db_path):
    with open_database(db_path) as database:
        database.write(_add("ana"))
        deleted(db_path)
        with pytest.raises(StoreError) as raised:
            database.write(_add("ben"))
        expected = f"The database file was deleted or moved: {db_path}."
        assert str(raised.value).startswith(expected)
        with pytest.raises(StoreError, match="deleted or moved"), database.reading():
            pass
        with pytest.raises(StoreError, match="deleted or moved"):  # a worker's own open
            open_database(db_path, read_only=True)
    assert plain(str(raised.value))


def test_a_file_replaced_during_a_write_reports_the_change_unsaved(db_path, tmp_path):
    other = tmp_path / "other.sqlite"
    with open_database(other):
        pass
    with open_database(db_path) as database:

        def replaced(session):
            rater = add_rater(session, "ana").id
            other.replace(db_path)  # another program puts a different file in its place
            return rater

        with pytest.raises(StoreError, match=r"deleted or moved.*\(this change was not saved\)"):
            database.write(replaced)


def test_a_postgresql_server_that_does_not_answer_is_named_without_password():
    with pytest.raises(StoreError) as raised:
        open_database("postgresql+psycopg://judge:secret@127.0.0.1:1/test")
    message = str(raised.value)
    assert message.startswith("Cannot connect to the PostgreSQL server at 127.0.0.1:1: ")
    assert "refused" in message and "secret" not in message and "\n" not in message
    assert plain(message)


def test_a_missing_driver_is_named_without_password():
    with pytest.raises(StoreError) as raised:
        open_database("mysql://judge:secret@localhost/test")
    message = str(raised.value)
    assert "driver is not installed" in message and "secret" not in message and plain(message)


def test_in_words_names_no_exception_class():
    assert in_words(StoreError("The disk is full")) == "The disk is full"
    missing = FileNotFoundError(2, "No such file or directory", "/x/runs.txt")
    assert in_words(missing) == "No such file or directory: /x/runs.txt"
    defect = in_words(KeyError("grade"))
    assert defect == "An unexpected problem in judge_app (please report it): 'grade'"
    assert plain(defect) and "KeyError" not in defect


def test_a_refused_password_is_said_in_words_and_named_without_it(monkeypatch):
    monkeypatch.delenv("PGPASSWORD", raising=False)
    with refusing_server() as (port, _passwords):
        with pytest.raises(StoreError) as wrong:
            open_database(f"postgresql+psycopg://ana:s3cret@127.0.0.1:{port}/campaign")
        with pytest.raises(StoreError) as none:
            open_database(f"postgresql+psycopg://ana@127.0.0.1:{port}/campaign?passfile=/none")
    assert str(wrong.value) == (
        f"The PostgreSQL server at 127.0.0.1:{port} refused the password of ana: a wrong "
        "password, or a login that has expired; nothing was changed. Give the right one in "
        "~/.pgpass or PGPASSWORD, or ask a lead for a new one"
    )
    assert str(none.value) == (
        f"The PostgreSQL server at 127.0.0.1:{port} asks for the password of ana, and none was "
        "given; nothing was changed. Put it in ~/.pgpass (host:port:database:ana:password, "
        "readable by you alone) or in PGPASSWORD"
    )
    assert plain(str(wrong.value)) and "s3cret" not in str(wrong.value)


def test_the_password_comes_from_libpqs_password_file(tmp_path, monkeypatch):
    passfile = tmp_path / "pgpass"
    with refusing_server() as (port, passwords):
        passfile.write_text(f"127.0.0.1:{port}:campaign:ana:from the file\n", encoding="utf-8")
        passfile.chmod(0o600)
        monkeypatch.setenv("PGPASSFILE", str(passfile))
        monkeypatch.delenv("PGPASSWORD", raising=False)
        with pytest.raises(StoreError, match="refused the password of ana"):
            open_database(f"postgresql+psycopg://ana@127.0.0.1:{port}/campaign")
    assert passwords == ["from the file"]
