"""Every CSV judge_app writes, from a command or a button, goes through the one writer that makes
a text cell a spreadsheet would run inert (issue 31, item 5): a campaign whose ids and names
begin with =, +, -, @ is written by each of them, and no text cell begins so."""

from __future__ import annotations

import csv
import io
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from sqlalchemy import text

from judge_app.cli import main as cli
from judge_app.gui.tables import CsvButton
from judge_app.store import open_database

RISKY = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture
def risky_db(demo_db) -> Path:
    """The demo with a run, a query, documents and raters named as formulas, and notes so."""
    with open_database(demo_db) as database, database.transaction() as session:
        for statement in (
            "UPDATE run SET name = '=HYPERLINK(\"http://x\")' WHERE name = 'bm25'",
            "UPDATE query SET external_id = '@SUM(A1)' WHERE external_id = 'q01'",
            "UPDATE document SET external_id = '+cmd|'' /C calc''!A0' WHERE external_id = 'd0101'",
            "UPDATE rater SET name = '-ana' WHERE name = 'ana'",
            "UPDATE rater SET name = '=ben' WHERE name = 'ben'",
            "UPDATE judgment SET note = '=1+1'",
        ):
            session.execute(text(statement))
    assert cli(["gold", str(demo_db), "--mark", "@SUM(A1):+cmd|' /C calc'!A0=3"]) == 0
    return demo_db


def risky_cells(data: str) -> list[str]:
    """The text cells of CSV ``data`` a spreadsheet would run (a number such as -0.25 is none)."""
    found = []
    for row in csv.reader(io.StringIO(data)):
        for cell in row:
            if cell.startswith(RISKY) and not _number(cell):
                found.append(cell)
    return found


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def printed(*args: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli(list(args)) == 0, args
    return out.getvalue()


def test_every_command_that_writes_csv_makes_text_cells_inert(risky_db, tmp_path):
    db = str(risky_db)
    outputs = {
        "eval": printed("eval", "--db", db, "--format", "csv"),
        "eval --compare": printed("eval", "--db", db, "--compare", "--format", "csv"),
        "agreement": printed("agreement", "--db", db, "--format", "csv", "--bootstrap", "50"),
        "raters": printed("raters", db, "--format", "csv"),
        "plan": printed("plan", db, "--delta", "0.05", "--format", "csv"),
    }
    files = {
        "raters --too-fast": ["raters", db, "--too-fast", "{}", "--min-seconds", "600"],
        "export --judgments": ["export", db, "--judgments", "{}"],
        "export --history": ["export", db, "--history", "{}"],
        "gold --export": ["gold", db, "--export", "{}"],
    }
    for name, command in files.items():
        path = tmp_path / f"{len(outputs)}.csv"
        printed(*(str(path) if word == "{}" else word for word in command))
        outputs[name] = path.read_text(encoding="utf-8")
    assert "=HYPERLINK" in outputs["eval"] and "@SUM(A1)" in outputs["eval"]
    assert "-ana" in outputs["raters"] and "=ben" in outputs["raters --too-fast"]
    assert {name: risky_cells(data) for name, data in outputs.items()} == dict.fromkeys(outputs, [])


@pytest.mark.parametrize("page", ["evaluation", "agreement", "raters"])
def test_every_csv_button_of_the_lead_pages_makes_text_cells_inert(
    qtbot, open_window, risky_db, tmp_path, page
):
    window = open_window(risky_db)
    window.menus.page_actions[page].trigger()
    qtbot.waitUntil(
        lambda: window.pages.currentWidget() is not window.judging and window.task is None,
        timeout=60_000,
    )
    buttons = window.pages.currentWidget().findChildren(CsvButton)
    assert buttons
    for number, button in enumerate(buttons):
        path = tmp_path / f"{number}.csv"
        button.write(str(path))
        assert path.exists(), button.objectName()
        assert risky_cells(path.read_text(encoding="utf-8")) == [], button.objectName()
