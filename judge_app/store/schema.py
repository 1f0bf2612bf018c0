"""Schema versions: the database's revision read with a plain query and the newest one read
from the migrations' files, so that opening a database at head loads no Alembic; Alembic,
run in code on the connection the store opened, only to migrate."""

from __future__ import annotations

import ast
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text

from judge_app.store.errors import SchemaTooNewError, StoreError

if TYPE_CHECKING:
    from alembic.config import Config

VERSION_TABLE = "alembic_version"
"""Where Alembic keeps a database's revision."""
_ASSIGNMENT = re.compile(
    r"^(revision|down_revision|branch_labels|depends_on)\s*(?::[^=\n]*)?=(.*)$", re.MULTILINE
)
"""A revision file's line that names it, its parents, its branch labels or its dependencies."""


@contextmanager
def _alembic_config(connection: Connection | None = None) -> Iterator[Config]:
    """An Alembic Config pointing at the migrations shipped inside the package."""
    from alembic.config import Config

    with resources.as_file(resources.files("judge_app.migrations")) as location:
        config = Config()
        config.set_main_option("script_location", str(location))
        config.attributes["connection"] = connection
        yield config


@cache
def _revision_graph() -> dict[str, tuple[str, ...]] | None:
    """Each revision of the migrations and the revisions it revises, read from its file's
    lines ``revision = "…"`` and ``down_revision = …`` without importing Alembic; None when
    a file says them in any other way (a value that is not a literal, branch labels,
    dependencies, a parent no file names), for Alembic to read instead."""
    graph: dict[str, tuple[str, ...]] = {}
    for entry in resources.files("judge_app.migrations").joinpath("versions").iterdir():
        if not entry.name.endswith(".py") or entry.name.startswith(("__init__", ".#")):
            continue
        values: dict[str, object] = {}
        for name, value in _ASSIGNMENT.findall(entry.read_text(encoding="utf-8")):
            try:
                values.setdefault(name, ast.literal_eval(value.strip()))
            except (ValueError, SyntaxError):
                return None
        revision, parents = values.get("revision"), values.get("down_revision", ())
        if parents is None:
            parents = ()
        elif isinstance(parents, str):
            parents = (parents,)
        if (
            not isinstance(revision, str)
            or revision in graph
            or "down_revision" not in values
            or not isinstance(parents, tuple | list)
            or not all(isinstance(parent, str) for parent in parents)
            or values.get("branch_labels") is not None
            or values.get("depends_on") is not None
        ):
            return None
        graph[revision] = tuple(parents)
    if not graph or any(parent not in graph for parents in graph.values() for parent in parents):
        return None
    return graph


def head_revision() -> str:
    """The newest schema revision this code knows."""
    graph = _revision_graph()
    if graph is not None:
        revised = {parent for parents in graph.values() for parent in parents}
        heads = [revision for revision in graph if revision not in revised]
        if len(heads) == 1:
            return heads[0]
    from alembic.script import ScriptDirectory

    with _alembic_config() as config:
        heads = ScriptDirectory.from_config(config).get_heads()
    if len(heads) != 1:
        raise RuntimeError(f"migrations must have exactly one head, found {heads}")
    return heads[0]


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or None for a database without judge_app tables.
    A read: it takes no write lock, so it does not wait for another program's write."""
    with engine.connect() as connection:
        connection.execution_options(sqlite_begin="DEFERRED")
        inspector = inspect(connection)
        revisions: list[str] = []
        if inspector.has_table(VERSION_TABLE):
            query = text(f"SELECT version_num FROM {VERSION_TABLE}")
            revisions = list(connection.execute(query).scalars())
        if not revisions:
            tables = set(inspector.get_table_names())
            if tables:
                raise StoreError(
                    f"{engine.url.render_as_string(hide_password=True)} is not a judge_app "
                    f"database: it has tables ({', '.join(sorted(tables)[:5])}) but no schema "
                    "version"
                )
            return None
    return revisions[0]


def _known_revisions() -> set[str]:
    graph = _revision_graph()
    if graph is not None:
        return set(graph)
    from alembic.script import ScriptDirectory

    with _alembic_config() as config:
        return {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}


def check_at_head(engine: Engine) -> None:
    """Refuse, without changing anything, a database whose schema is not this judge_app's."""
    current, head = _revisions(engine)
    if current == head:
        return
    name = _describe(engine)
    if current is None:
        raise StoreError(
            f"{name} is not a judge_app database yet: it holds no tables (judge-app init "
            f"{name} makes one)"
        )
    raise StoreError(
        f"{name} has schema revision {current}, older than this judge_app's {head}: upgrade "
        f"it with judge-app init {name} (a copy is kept before the upgrade); nothing was changed"
    )


def _revisions(engine: Engine) -> tuple[str | None, str]:
    """The database's revision and head; SchemaTooNewError for one newer than this code."""
    current, head = current_revision(engine), head_revision()
    if current not in (None, head) and current not in _known_revisions():
        raise SchemaTooNewError(
            f"{_describe(engine)} has schema revision {current}, which is newer than this "
            f"judge_app knows (its newest is {head}). Upgrade judge_app to open it; the file "
            "was not changed."
        )
    return current, head


def upgrade(engine: Engine) -> None:
    """Bring the schema to head; refuse a database from a newer judge_app.

    An existing SQLite file is copied aside before any migration changes it.
    """
    current, head = _revisions(engine)
    if current == head:
        return
    from alembic import command

    if current is not None and engine.dialect.name == "sqlite":
        backup_sqlite(engine, current)
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        if sqlite:
            _set_sqlite_foreign_keys(connection, False)  # batch migrations recreate tables
        try:
            with connection.begin(), _alembic_config(connection) as config:
                command.upgrade(config, "head")
                if sqlite and connection.exec_driver_sql("PRAGMA foreign_key_check").first():
                    raise StoreError(f"upgrading {_describe(engine)} would break foreign keys")
        finally:
            if sqlite:
                _set_sqlite_foreign_keys(connection, True)


def _set_sqlite_foreign_keys(connection: Connection, on: bool) -> None:
    """Switch SQLite's foreign keys, which it allows only outside a transaction."""
    connection.execution_options(sqlite_begin=None)
    connection.exec_driver_sql(f"PRAGMA foreign_keys={'ON' if on else 'OFF'}")
    connection.commit()
    connection.execution_options(sqlite_begin="IMMEDIATE")


def _describe(engine: Engine) -> str:
    """The database's file (SQLite), else its URL with the password hidden."""
    if engine.dialect.name == "sqlite" and engine.url.database:
        return engine.url.database
    return engine.url.render_as_string()


def backup_path(path: Path, revision: str) -> Path:
    """Where the copy of a database file taken before migrating it from ``revision`` lives."""
    return path.with_name(f"{path.name}.before-upgrade-from-{revision}.bak")


def backup_sqlite(engine: Engine, revision: str) -> Path:
    """Copy a SQLite database with SQLite's online backup (consistent even in WAL mode)."""
    path = Path(engine.url.database or "")
    target = backup_path(path, revision)
    source = sqlite3.connect(path)
    try:
        destination = sqlite3.connect(target)
        try:
            source.backup(destination)
        finally:
            destination.close()
    finally:
        source.close()
    return target
