"""``judge-app assign --where-disputed``: each query whose raters' grades differ gets one more
rater, one who has neither judged it nor has it, the least given first.

Expected assignments come from the planted data: by hand for the small planted campaign
(``campaign_support.PLANTED``), and for a generated one from a plain-Python reading of the
rule with ``krippendorff.alpha`` as the per-query alpha's oracle."""

from __future__ import annotations

import shutil
import warnings
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from campaign_support import PLANTED, import_frames, planted_campaign

from judge_app.agreement.report import ADJUDICATION_SPREAD
from judge_app.cli import main as cli
from judge_app.commands import assign as assigning
from judge_app.commands.agree import AgreementOptions, coded_agreement
from judge_app.commands.assign import MIN_GAP, AssignOptions, assign, query_disputes
from judge_app.commands.campaign import read_campaign
from judge_app.errors import UsageError
from judge_app.names import ADJUDICATED
from judge_app.option_declarations import flag_of
from judge_app.store import open_database
from judge_app.store.assignments import current_assignments
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.judgments import set_grade
from judge_app.store.models import Query, Rater
from judge_app.store.people import assign_queries, find_rater, named_rater


def run(*args: object) -> tuple[int, str, str]:
    """``judge-app`` in this process: the exit code, stdout and stderr."""
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = cli([str(arg) for arg in args])
        except SystemExit as exit_:  # argparse refusing the arguments
            status = int(exit_.code or 0)
    return status, out.getvalue(), err.getvalue()


def queues(path: Path) -> dict[str, list[str]]:
    """Each rater's queue by name, as query ids."""
    with open_database(path) as database, database.reading() as session:
        names = dict(session.query(Rater.id, Rater.name).all())
        queries = dict(session.query(Query.id, Query.external_id).all())
        assigned = current_assignments(session)
    return {names[rater]: sorted(queries[q] for q in ids) for rater, ids in assigned.items()}


def new_queries(before: dict[str, list[str]], after: dict[str, list[str]]) -> dict[str, list]:
    return {
        name: sorted(set(queue) - set(before.get(name, [])))
        for name, queue in after.items()
        if set(queue) - set(before.get(name, []))
    }


@pytest.fixture(scope="module")
def planted_template(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("planted")
    return planted_campaign(folder / "planted.sqlite", folder)


@pytest.fixture
def planted(planted_template, tmp_path) -> Path:
    path = tmp_path / "planted.sqlite"
    shutil.copy(planted_template, path)
    return path


# --------------------------------------------------------------------------- the planted campaign


PLANTED_CASES = {
    # q01, q04, q06, q08 have a document 2+ apart no lead decided (q03's are decided);
    # chloe has q04-q08 (queue), eve q01 and q08 (queue), fay no queue but has graded (every
    # query is hers); dan is new. Order eve, chloe, fay, dan: the first of the least given.
    "two apart": (
        [],
        {"chloe": ["q01"], "eve": ["q04"], "dan": ["q06", "q08"]},
        "4 disputed queries, each given to one more rater",
    ),
    # and q02, q10 (one apart): q02 to eve (0 given), q04 dan, q06 eve (tie: first), q10 chloe
    "one apart": (
        ["--min-gap", "1"],
        {"chloe": ["q01", "q10"], "eve": ["q02", "q06"], "dan": ["q04", "q08"]},
        "6 disputed queries, each given to one more rater",
    ),
    # q02's alpha (0.583) is below 0.7, q10's (0.949) is not; q03's (-0.417) is, but a lead
    # decided every document of q03 that differs
    "alpha below 0.7": (
        ["--max-alpha", "0.7"],
        {"chloe": ["q01"], "eve": ["q02", "q06"], "dan": ["q04", "q08"]},
        "5 disputed queries, each given to one more rater",
    ),
}


@pytest.mark.parametrize("case", list(PLANTED_CASES))
def test_the_planted_disputed_queries_each_get_one_more_free_rater(planted, case):
    args, expected, headline = PLANTED_CASES[case]
    before = queues(planted)
    status, out, err = run("assign", planted, "--raters", "eve,chloe,fay,dan",
                           "--where-disputed", *args)  # fmt: skip
    assert (status, err) == (0, "")
    assert out.splitlines()[0] == headline
    assert new_queries(before, queues(planted)) == expected
    for name in ("eve", "chloe", "fay", "dan"):
        given = expected.get(name, [])
        count = f"{len(given)} new {'query' if len(given) == 1 else 'queries'}"
        assert f"  {name}: {count}" + (f" ({', '.join(given)})" if given else "") in out


def test_the_output_says_what_was_done_and_which_query_has_no_free_rater(planted):
    before = queues(planted)
    status, out, err = run("assign", planted, "--raters", "eve,chloe,fay", "--where-disputed")
    assert (status, err) == (0, "")
    assert out == (
        "3 disputed queries, each given to one more rater; q08 has no free rater (each rater "
        "named judged it or has it already)\n"
        "Disputed: a document the raters grade 2 or more apart; documents a lead decided count "
        "no more\n"
        "  eve: 2 new queries (q04, q06)\n"
        "  chloe: 1 new query (q01)\n"
        "  fay: 0 new queries\n"
    )
    assert new_queries(before, queues(planted)) == {"chloe": ["q01"], "eve": ["q04", "q06"]}
    again = run("assign", planted, "--raters", "eve,chloe,fay", "--where-disputed")
    assert again[0] == 0 and again[1].startswith(
        "No disputed query given to another rater; q01, q04, q06, q08 have no free rater"
    )


def test_nothing_disputed_assigns_nothing_and_no_queries_is_a_data_error(tmp_path):
    path = tmp_path / "calm.sqlite"
    frame = pd.DataFrame(
        [("q1", "d1", "ana", 2), ("q1", "d1", "ben", 3), ("q2", "d1", "ana", 0)],
        columns=["query_id", "doc_id", "rater", "grade"],
    )
    import_frames(path, tmp_path, judgments=frame)
    status, out, _err = run("assign", path, "--raters", "cid", "--where-disputed")
    assert status == 0 and out.startswith("No disputed query: nothing to assign\n")
    assert queues(path) == {}
    empty = tmp_path / "empty.sqlite"
    assert run("init", empty)[0] == 0
    status, out, err = run("assign", empty, "--raters", "cid", "--where-disputed")
    assert (status, out) == (1, "") and "holds no queries: import them first" in err
    status, _out, err = run("assign", tmp_path / "none.sqlite", "--raters", "a", "--where-disputed")
    assert status == 1 and "none.sqlite" in err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--where-disputed", "--copies", "1"], "not allowed with argument"),
        (["--where-disputed", "--share", "10"], "not allowed with argument"),
        (["--where-disputed", "--min-gap", "0"], "--min-gap takes a whole number from 1 to 5"),
        (["--where-disputed", "--min-gap", "6"], "--min-gap takes a whole number from 1 to 5"),
        (["--where-disputed", "--max-alpha", "1.01"], "--max-alpha takes a number from -1 to 1"),
        (["--where-disputed", "--max-alpha", "-2"], "--max-alpha takes a number from -1 to 1"),
        (["--where-disputed", "--max-alpha", "nan"], "--max-alpha takes a number from -1 to 1"),
        (["--where-disputed", "--replace"], "it takes no --replace"),
        (["--copies", "1", "--max-alpha", "0.5"], "--min-gap and --max-alpha go with"),
        (["--copies", "1", "--min-gap", "3"], "--min-gap and --max-alpha go with"),
    ],
)
def test_usage_errors_change_nothing(planted, args, said):
    before = queues(planted)
    status, out, err = run("assign", planted, "--raters", "eve,dan", *args)
    assert (status, out) == (2, "") and said in err and "Traceback" not in err
    assert queues(planted) == before


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (AssignOptions(("a",), copies=1, where_disputed=True), "neither --copies nor --share"),
        (AssignOptions(("a",), share=5.0, where_disputed=True), "neither --copies nor --share"),
        (AssignOptions(("a",), where_disputed=True, max_alpha=float("inf")), "from -1 to 1"),
        (AssignOptions((), where_disputed=True), "--raters needs at least one name"),
        (AssignOptions(("a",)), "give either --copies N or --share P (or --where-disputed)"),
    ],
)
def test_the_options_refuse_what_the_command_line_cannot_say(options, said):
    with pytest.raises(UsageError) as error:
        options.checked()
    assert said in error.value.worded(flag_of)  # an option named, as the command line words it


def test_the_default_gap_is_the_agreement_pages():
    assert AssignOptions(("a",)).min_gap == MIN_GAP == ADJUDICATION_SPREAD


def test_a_decision_made_after_the_grades_were_read_is_heeded(planted, monkeypatch):
    """The disagreements are read before the write: a judgment written in between (a lead's
    decision of q01's only differing document) makes the write read them again."""
    with open_database(planted) as database:
        stale = assigning.read_survey(database)
        with database.transaction() as session:
            rater = find_rater(session, ADJUDICATED)
            assert rater is not None
            query = query_ids(session, ["q01"], create=False)["q01"]
            document = document_ids(session, ["q01-d1"], create=False)["q01-d1"]
            set_grade(session, rater.id, query, document, 2)
    monkeypatch.setattr(assigning, "read_survey", lambda _database: stale)
    before = queues(planted)
    status, out, _err = run("assign", planted, "--raters", "eve,chloe,fay,dan", "--where-disputed")
    assert status == 0 and out.startswith("3 disputed queries")
    assert new_queries(before, queues(planted)) == {"eve": ["q04"], "dan": ["q06", "q08"]}


# --------------------------------------------------------------------------- a generated campaign


RATERS = ("ana", "ben", "chloe", "dan", "eve")


@pytest.fixture(scope="module")
def generated_campaign(tmp_path_factory) -> tuple[Path, dict]:
    """40 queries of 4 documents, each graded by 2 or 3 of ``RATERS`` who mostly agree; planted
    per query: a document graded 2-5 apart, one a lead decided, grades one apart, or nothing.
    Some raters skipped a document of a query they did not grade; most have a queue."""
    folder = tmp_path_factory.mktemp("generated-disputes")
    rng = np.random.default_rng(11)
    queries = [f"g{q:02d}" for q in range(40)]
    grades: dict[str, dict[str, dict[str, int]]] = {}
    skipped: set[tuple[str, str]] = set()  # (rater, query)
    decided: dict[tuple[str, str], int] = {}
    rows = []
    for query in queries:
        raters = list(rng.choice(RATERS, size=int(rng.integers(2, 4)), replace=False))
        docs = {}
        for doc in range(4):
            truth = int(rng.integers(0, 6))
            docs[f"{query}-d{doc}"] = {r: truth for r in raters}
        kind = rng.choice(["wide", "decided", "near", "calm"])
        first = f"{query}-d0"
        if kind in ("wide", "decided"):
            low = int(rng.integers(0, 4))
            docs[first][raters[0]] = low
            docs[first][raters[1]] = int(rng.integers(low + 2, 6))
            if kind == "decided":
                decided[(query, first)] = int(rng.integers(0, 6))
        for doc in list(docs)[1:]:
            if kind != "calm" and rng.random() < 0.4:
                rater = raters[int(rng.integers(len(raters)))]
                docs[doc][rater] = int(np.clip(docs[doc][rater] + rng.choice([-1, 1]), 0, 5))
        grades[query] = docs
        outsider = [r for r in RATERS if r not in raters]
        if rng.random() < 0.2:
            skipped.add((outsider[0], query))
    for query, docs in grades.items():
        for doc, by in docs.items():
            rows += [(query, doc, rater, str(grade), False) for rater, grade in by.items()]
    rows += [(q, f"{q}-d1", rater, "", True) for rater, q in skipped]
    rows += [(q, doc, "adjudicated", str(grade), False) for (q, doc), grade in decided.items()]
    path = folder / "generated.sqlite"
    import_frames(
        path,
        folder,
        queries=pd.DataFrame({"query_id": queries, "text": queries}),
        judgments=pd.DataFrame(rows, columns=["query_id", "doc_id", "rater", "grade", "skipped"]),
    )
    planned = {r: sorted(rng.choice(queries, size=8, replace=False)) for r in ("ben", "dan", "eve")}
    with open_database(path) as database, database.transaction() as session:
        ids = query_ids(session, queries, create=False)
        for name, queue in planned.items():
            rater = named_rater(session, name)
            assert rater is not None
            assign_queries(session, rater.id, [ids[q] for q in queue])
    data = {"grades": grades, "skipped": skipped, "decided": decided, "queues": planned}
    return path, data


def oracle_alpha(docs: dict[str, dict[str, int]]) -> float | None:
    """``krippendorff.alpha`` (ordinal) of a query's documents; None where it is undefined."""
    raters = sorted({rater for by in docs.values() for rater in by})
    data = [[by.get(rater, np.nan) for by in docs.values()] for rater in raters]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            value = krippendorff.alpha(
                reliability_data=np.array(data, float), level_of_measurement="ordinal"
            )
    except ValueError:
        return None
    return None if np.isnan(value) else float(value)


def expected_plan(data: dict, raters: list[str], gap: int, max_alpha: float | None):
    """The rule read plainly: (new queries by rater, disputed queries, queries left out)."""
    judged: dict[str, set[str]] = {r: set() for r in raters}
    for query, docs in data["grades"].items():
        for by in docs.values():
            for rater in by:
                judged.setdefault(rater, set()).add(query)
    for rater, query in data["skipped"]:
        judged.setdefault(rater, set()).add(query)
    queue = {r: set(data["queues"].get(r, ())) for r in raters}

    def busy(rater: str, query: str) -> bool:
        mine = judged.get(rater, set())
        return query in mine or query in queue[rater] or (not queue[rater] and bool(mine))

    disputed = []
    for query, docs in sorted(data["grades"].items()):
        open_spreads = [
            max(by.values()) - min(by.values())
            for doc, by in docs.items()
            if len(by) > 1 and (query, doc) not in data["decided"]
        ]
        widest = max(open_spreads, default=0)
        alpha = oracle_alpha(docs)
        low = max_alpha is not None and alpha is not None and alpha < max_alpha - 1e-12
        if widest >= gap or (low and widest > 0):
            disputed.append(query)
    given: dict[str, list[str]] = {r: [] for r in raters}
    left = []
    for query in disputed:
        free = [r for r in raters if not busy(r, query)]
        if not free:
            left.append(query)
            continue
        fewest = min(len(given[r]) for r in free)
        given[next(r for r in free if len(given[r]) == fewest)].append(query)
    return {r: q for r, q in given.items() if q}, disputed, left


GENERATED_CASES = [
    # gus is new; ana has no queue but has graded: every query is hers already
    (("eve", "gus", "ana", "dan"), 2, None),
    (("eve", "gus", "ana", "dan"), 1, None),
    (("dan", "eve", "ben"), 3, 0.5),
    (("eve", "dan", "chloe"), 2, 0.9),
]


@pytest.mark.parametrize(("raters", "gap", "max_alpha"), GENERATED_CASES)
def test_a_generated_campaign_gets_the_planned_raters(
    generated_campaign, tmp_path, raters, gap, max_alpha
):
    template, data = generated_campaign
    path = tmp_path / "campaign.sqlite"
    shutil.copy(template, path)
    raters = list(raters)
    expected, disputed, left = expected_plan(data, raters, gap, max_alpha)
    before = queues(path)
    options = AssignOptions(tuple(raters), where_disputed=True, min_gap=gap, max_alpha=max_alpha)
    with open_database(path) as database:
        done = assign(database, options)
    added = new_queries(before, queues(path))
    assert added == expected
    assert done.disputes is not None and list(done.disputes.disputed) == disputed
    assert list(done.disputes.unserved) == left
    assert done.added == sum(map(len, expected.values())) == len(disputed) - len(left)
    given = [q for queue in added.values() for q in queue]
    assert len(given) == len(set(given))  # one more rater each
    for rater, queue in added.items():  # never a query the rater judged or had
        graded = {
            q for q, docs in data["grades"].items() if any(rater in by for by in docs.values())
        }
        had = graded | {q for r, q in data["skipped"] if r == rater} | set(before.get(rater, []))
        assert not had & set(queue)
    assert "ana" not in added


def test_the_generated_cases_plant_what_they_test(generated_campaign):
    """The generated campaign has what the cases above need: an alpha that adds queries the
    gap does not, a lead's decision that takes a query out, and a query no rater is free for."""
    _path, data = generated_campaign
    raters = ["eve", "gus"]
    by_gap = set(expected_plan(data, raters, 2, None)[1])
    assert by_gap < set(expected_plan(data, raters, 2, 0.9)[1])
    assert set(expected_plan(data, raters, 3, None)[1]) < set(
        expected_plan(data, raters, 3, 0.5)[1]
    )
    decided = {query for query, _doc in data["decided"]}
    assert decided and not decided & by_gap
    plans = [
        expected_plan(data, list(raters), gap, alpha) for raters, gap, alpha in GENERATED_CASES
    ]
    assert all(plan[2] for plan in plans[2:]) and all(len(plan[0]) >= 2 for plan in plans)


def test_disputed_queries_are_the_agreement_pages(generated_campaign):
    """The queries and alphas the plan reads are the agreement page's: the same alpha per
    query, and a document to adjudicate no lead decided exactly where two grades differ by 2."""
    path, _data = generated_campaign
    campaign = read_campaign(str(path), queries=False)
    page = coded_agreement(AgreementOptions(bootstrap=0), campaign.graded, None, str(path))
    disputes = query_disputes(campaign.graded)
    assert [row.query_id for row in page.per_query] == [q.query_id for q in disputes]
    for row, query in zip(page.per_query, disputes):
        assert row.krippendorff_alpha_ordinal == query.alpha
        undecided = any(item.decided is None for item in row.adjudicate)
        assert undecided == (query.widest >= ADJUDICATION_SPREAD)


def test_the_planted_alphas_are_krippendorffs(planted):
    """The planted campaign's docstring states q02's, q03's and q10's alpha: the oracle's."""
    campaign = read_campaign(str(planted), queries=False)
    alphas = {q.query_id: q.alpha for q in query_disputes(campaign.graded)}
    for query in ("q02", "q03", "q10"):
        docs = {doc: {r: g for r, g in by.items() if g is not None}
                for doc, by in PLANTED[query].items()}  # fmt: skip
        assert alphas[query] == pytest.approx(oracle_alpha(docs))
    assert [round(alphas[q], 3) for q in ("q02", "q03", "q10")] == [0.583, -0.417, 0.949]
