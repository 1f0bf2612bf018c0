"""``judge-app raters`` with preference judgments: each rater's count and share of intransitive
triples (those of ``preferences summary``), in the table only where a rater made some, in the
CSV and JSON always."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from io import StringIO

import pandas as pd
import pytest
from preference_support import with_preferences

from judge_app.agreement.preference_agreement import intransitive_triples
from judge_app.cli import main
from judge_app.numbers import share_text
from judge_app.store import open_database
from judge_app.store.preferences import preferences_frame


@pytest.fixture(scope="module")
def preferring(demo, tmp_path_factory):
    return with_preferences(demo, tmp_path_factory.mktemp("preferring"))


def printed(path, *args: str) -> str:
    out = StringIO()
    with redirect_stdout(out):
        assert main(["raters", str(path), *args]) == 0
    return out.getvalue()


def test_each_rater_s_preferences_and_intransitive_triples(preferring):
    with open_database(preferring) as database, database.reading() as session:
        frame = preferences_frame(session)
    triples = intransitive_triples(frame).set_index("rater")
    table = pd.read_csv(io.StringIO(printed(preferring, "--format", "csv"))).set_index("rater")
    text = printed(preferring)
    header, _rule, *lines = text.splitlines()
    assert header.split()[-2:] == ["prefs", "intransitive"]
    for rater, row in triples.iterrows():
        mine = frame[frame["rater"] == rater]
        assert table.at[rater, "preferences"] == len(mine)
        assert table.at[rater, "preferences_skipped"] == (mine["choice"] == "skipped").sum()
        assert table.at[rater, "cyclic_triples"] == row["cyclic"]
        assert table.at[rater, "ordered_triples"] == row["triples"]
        assert table.at[rater, "intransitive_share"] == row["share"]  # full precision
        [line] = [line for line in lines if line.startswith(f"{rater} ")]
        assert line.split()[-2:] == [f"{len(mine):,}", share_text(row["share"])]
    assert "intransitive: the share of cyclic triples" in text


def test_without_preferences_the_table_has_no_such_columns(demo):
    header = printed(demo).splitlines()[0]
    assert "prefs" not in header and "intransitive" not in header
    table = pd.read_csv(io.StringIO(printed(demo, "--format", "csv")))
    assert (table["preferences"] == 0).all() and table["intransitive_share"].isna().all()
