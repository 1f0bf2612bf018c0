"""Who counts as a rater: a lead who opens the window is none until they judge, the lead's
role "adjudicated" never is, and every count of raters is agreement's."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_app.commands.adjudicate import adjudicator_in
from judge_app.commands.agree import AgreementOptions, agreement_of
from judge_app.commands.demo import build_demo
from judge_app.commands.info import info
from judge_app.commands.raters import rater_choice, rater_for
from judge_app.commands.report import ReportOptions, gather
from judge_app.store import open_database
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.judgments import set_grade
from judge_app.store.people import campaign_raters


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo, opened once by a lead as "lead" (`gui --rater lead`) who adjudicated one
    document, and with a retired name that never judged."""
    path = tmp_path_factory.mktemp("identity") / "demo.sqlite"
    build_demo(str(path))
    with open_database(path) as database:
        rater_for(database, "lead", create=True)
        with database.transaction() as session:
            role = adjudicator_in(session)
            query = query_ids(session, ["q01"])["q01"]
            document = document_ids(session, ["d0101"])["d0101"]
            set_grade(session, role, query, document, 4)
    return path


def test_a_lead_and_the_adjudications_are_no_raters(campaign: Path) -> None:
    with open_database(campaign) as database:
        with database.reading() as session:
            assert [name for _id, name in campaign_raters(session)] == ["ana", "ben", "chloe"]
            assignable = campaign_raters(session, assignable=True)
        assert [name for _id, name in assignable] == ["ana", "ben", "chloe"]
        choice = rater_choice(database, "lead")
    assert choice.own == "lead" and choice.names == ["ana", "ben", "chloe"]  # theirs, alone
    listing = info(str(campaign))
    assert "  raters                          3\n" in listing
    assert "lead" not in listing and "adjudicated" not in listing


def test_the_report_counts_the_raters_agreement_counts(campaign: Path) -> None:
    agreed = agreement_of(str(campaign), AgreementOptions(bootstrap=0))
    data = gather(str(campaign), ReportOptions(bootstrap=0))
    assert data.counts["raters"] == len(agreed.raters) == 3
    assert data.agreement is not None and data.agreement.raters == agreed.raters


def test_a_lead_who_grades_is_a_rater(campaign: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(campaign.read_bytes())
    with open_database(copy) as database:
        lead, _name = rater_for(database, "  LEAD ")  # the same name however typed
        with database.transaction() as session:
            ids = query_ids(session, ["q02"])["q02"], document_ids(session, ["d0201"])["d0201"]
            set_grade(session, lead, *ids, 2)
        with database.reading() as session:
            names = [name for _id, name in campaign_raters(session, assignable=True)]
    assert names == ["ana", "ben", "chloe", "lead"]
