"""Fixtures shared by every test: a fresh database and settings file each, no developer
configuration read, no connection but to this machine; and the fixtures of tests/*_support.py
and tests/chat_server.py, asked for by name."""

from __future__ import annotations

import errno
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# The same examples on every run, so a failure is the code's and not the draw's; a developer
# looking for new ones runs with HYPOTHESIS_PROFILE=explore (random draws, ten times as many,
# failures kept in .hypothesis/ and replayed first next time). Hypothesis will not replay its
# example database in a derandomized run ("derandomize=True implies database=None"): an input
# exploring finds is pinned with @example beside the test, so every run tries it.
settings.register_profile("derandomized", derandomize=True, database=None)
settings.register_profile("explore", max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "derandomized"))

# The fixtures every test file may ask for by name, defined beside their helpers (imported
# here, so a test file imports only the helpers it calls)
from campaign_support import demo, generated  # noqa: E402, F401
from chat_server import chat_server, loopback_only  # noqa: E402, F401
from engine_server import engine_server  # noqa: E402, F401
from gui_support import (  # noqa: E402, F401
    demo_anywhere,
    demo_db,
    demo_template,
    open_window,
    window,
    window_anywhere,
)

from judge_app.store import Database, open_database  # noqa: E402

POSTGRES_ENV = "JUDGE_APP_TEST_POSTGRES_URL"


@pytest.fixture(autouse=True)
def fresh_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own settings file: nothing reads the developer's settings."""
    from judge_app.gui.preferences import SETTINGS_ENV

    monkeypatch.setenv(SETTINGS_ENV, str(tmp_path / "settings.ini"))


@pytest.fixture(autouse=True)
def _no_packaged_embedding_model(request: pytest.FixtureRequest, monkeypatch) -> None:
    """The local judge learns without a model installed as a package, whatever this machine
    has (.ci/run installs one): encoding the pool with it takes minutes on the CPU, and the
    figures tests expect would hang on what is installed. tests/automatic_judges/test_embeddings.py runs it."""
    if request.module.__name__ != "test_embeddings":
        from judge_app.automatic_judges import embeddings

        monkeypatch.setattr(embeddings, "packaged_models", list)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "judge.sqlite"


@pytest.fixture
def db(db_path: Path) -> Iterator[Database]:
    """A new, empty SQLite database at head."""
    database = open_database(db_path)
    yield database
    database.close()


@pytest.fixture
def postgres_url() -> str:
    """The URL of the test PostgreSQL server; the test is skipped when none is configured."""
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        pytest.skip(f"no PostgreSQL server: set {POSTGRES_ENV} (.ci/run sets it)")
    return url


@pytest.fixture
def pg_owner_url(postgres_url: str) -> Iterator[str]:
    """An empty PostgreSQL database of its own on the test server, connected as its owner (a
    superuser); dropped afterwards, with the roles a test made for its team."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from judge_app.store.team import team_roles

    name = f"judge_test_{uuid.uuid4().hex[:10]}"
    admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(postgres_url).set(database=name).render_as_string(hide_password=False)
    finally:
        roles = team_roles(name)
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
            # the team's groups, once the database (their grants) is gone; logins are the tests'
            for role in (roles.lead, roles.rater):
                connection.execute(text(f'DROP ROLE IF EXISTS "{role}"'))
        admin.dispose()


@pytest.fixture
def pg_url(pg_owner_url: str) -> Iterator[str]:
    """A PostgreSQL database of its own at the newest schema, set up as a team by its owner,
    connected as a lead's login that is no superuser: every test on PostgreSQL runs as a lead
    does (issue 30). Dropped afterwards, with the login."""
    from sqlalchemy.engine import make_url

    from judge_app.store.team import add_member, init_team

    lead = f"lead_{uuid.uuid4().hex[:10]}"
    with open_database(pg_owner_url) as owner:
        init_team(owner)
        add_member(owner, lead, "secret", lead=True)
    try:
        yield (
            make_url(pg_owner_url)
            .set(username=lead, password="secret")
            .render_as_string(hide_password=False)
        )
    finally:
        _drop_login(pg_owner_url, lead)


def _drop_login(owner_url: str, login: str) -> None:
    """Drop ``login`` and what it holds in the owner's database."""
    from sqlalchemy import create_engine, text

    engine = create_engine(owner_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(
                text(
                    f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '{login}'"
                )
            )
            connection.execute(text(f'DROP OWNED BY "{login}"'))
            connection.execute(text(f'DROP ROLE "{login}"'))
    finally:
        engine.dispose()


class TinyDisk:
    """A small file system of its own (tmpfs), to be filled up like a full disk."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.filler = path / "filler"

    def fill(self) -> None:
        """Take every free byte, as another program filling the disk would."""
        with self.filler.open("ab", buffering=0) as handle:
            for size in (1 << 16, 1 << 10, 1):
                try:
                    while True:
                        handle.write(b"\0" * size)
                except OSError as error:
                    assert error.errno == errno.ENOSPC, error

    def free(self) -> None:
        self.filler.unlink()


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[TinyDisk]:
    """A 4 MiB tmpfs mounted in the test's folder (skipped where mounting is not allowed)."""
    path = tmp_path / "disk"
    path.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(path)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode:
        pytest.skip(f"cannot mount a small file system to fill: {mounted.stderr.strip()}")
    try:
        yield TinyDisk(path)
    finally:
        subprocess.run(["umount", "--lazy", str(path)], check=True)
