"""A campaign as the evaluation view reads it: the graded judgments and the run results
loaded once, evaluated under a lead's choices through the code of ``judge-app eval --db`` (so
every number equals the command line's), and any query's NDCG explained position by position,
as seeds 002 and 003 teach it.

Nothing here imports Qt: the view is a thin layer over this module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judge_app.evaluation import (
    EvalRequest,
    compare_evaluations,
    evaluate_loaded,
    of_raters,
    runs_of,
)
from judge_app.metrics.aggregation import ADJUDICATED
from judge_app.metrics.comparison import Comparison, MeanInterval, bootstrap_interval
from judge_app.metrics.ranking import Evaluation, Settings, gain_of, k_label

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from judge_app.store import Database

CURVE_KS = 20
"""NDCG@k against k is computed for k = 1 … 20 (or the chosen k, if larger)."""

Stamp = tuple[int, ...]


@dataclass(frozen=True)
class Campaign:
    """What a database holds for evaluation, read at one moment (``stamp``)."""

    source: str
    judgments: pd.DataFrame  # query_id, doc_id, rater, grade, skipped: graded judgments only
    results: pd.DataFrame  # run, query_id, doc_id, rank, score
    queries: dict[str, str]  # query id → text
    stamp: Stamp

    @property
    def runs(self) -> list[str]:
        return sorted(self.results["run"].unique())

    @property
    def raters(self) -> list[str]:
        """The raters who graded something, the adjudicator left out."""
        return sorted(set(self.judgments["rater"].unique()) - {ADJUDICATED})

    @property
    def adjudicated(self) -> int:
        """How many grades a lead adjudicated."""
        return int((self.judgments["rater"] == ADJUDICATED).sum())

    def grade_counts(self) -> dict[str, list[int]]:
        """Each rater's number of grades 0 … 5."""
        graded = self.judgments[self.judgments["rater"] != ADJUDICATED]
        table = pd.crosstab(graded["rater"], graded["grade"].astype(int))
        table = table.reindex(columns=range(6), fill_value=0)
        return {str(rater): [int(n) for n in row] for rater, row in table.iterrows()}


def change_stamp(session: Session) -> Stamp:
    """Numbers that change whenever a judgment or a result does, read from the primary keys'
    indexes alone (cheap enough to poll): a judgment added gets a new id, every change of one
    is a history event, and a run imported again gets new result rows."""
    row = session.connection().exec_driver_sql(
        "SELECT (SELECT coalesce(max(id), 0) FROM judgment), "
        "(SELECT coalesce(max(id), 0) FROM judgment_event), "
        "(SELECT coalesce(max(id), 0) FROM result), (SELECT count(*) FROM run)"
    )
    return tuple(int(value) for value in row.one())


def load_campaign(database: Database) -> Campaign:
    """Read the graded judgments, the results and the queries' texts of ``database``."""
    from judge_app.store import reads

    with database.reading() as session:
        stamp = change_stamp(session)
        judgments = reads.grades_frame(session)
        results = reads.results_frame(session)
        queries = reads.queries_frame(session)
    return Campaign(
        source=database.describe(),
        judgments=judgments,
        results=results,
        queries=dict(zip(queries["query_id"], queries["text"].fillna(""))),
        stamp=stamp,
    )


@dataclass(frozen=True)
class EvaluationChoice:
    """The evaluation view's controls; ``k`` None means no cut-off; ``aggregate`` is a method
    or ``rater:NAME``; ``runs`` and ``raters`` None mean all."""

    k: int | None = 10
    gain: str = "linear"
    ideal: str = "judged"
    unjudged: str = "zero"
    aggregate: str = "mean"
    adjudicated: bool = True
    runs: tuple[str, ...] | None = None
    raters: tuple[str, ...] | None = None
    resamples: int = 10_000
    permutations: int = 10_000
    seed: int = 0

    @property
    def measure(self) -> str:
        return f"ndcg@{k_label(self.k)}"

    def request(self, source: str) -> EvalRequest:
        """The ``judge-app eval --db`` request of the same choice."""
        return EvalRequest(
            db=source,
            runs=list(self.runs) if self.runs else None,
            aggregate=self.aggregate,
            adjudicated="prefer" if self.adjudicated else "ignore",
            raters=list(self.raters) if self.raters else None,
            ks=[k_label(self.k)],
            gain=self.gain,
            ideal=self.ideal,
            unjudged=self.unjudged,
            permutations=self.permutations,
            seed=self.seed,
        )

    def curve_ks(self) -> list[int]:
        return list(range(1, max(CURVE_KS, self.k or 0) + 1))


@dataclass
class CampaignEvaluation:
    """The evaluation view's numbers for one choice.

    ``table`` has a row per query evaluated by any run: ``query_id, query``, each run's
    ``RUN NDCG`` (at k), with two or more runs ``difference`` (second run − first), each run's
    ``RUN judged``, ``RUN DCG`` and ``RUN IDCG``, and ``incomplete`` (the top k of some run
    is not fully judged)."""

    choice: EvaluationChoice
    settings: Settings
    evaluations: dict[str, Evaluation]
    qrels: pd.DataFrame
    table: pd.DataFrame
    summaries: dict[str, MeanInterval]
    comparisons: list[Comparison]
    curves: dict[str, tuple[list[int], list[float]]]
    judgments: pd.DataFrame = field(repr=False)  # the raters' judgments the grades came from

    @property
    def label(self) -> str:
        return f"NDCG@{k_label(self.choice.k)}"

    def scores(self, run: str) -> np.ndarray:
        return self.evaluations[run].values[self.choice.measure]

    def differences(self) -> tuple[str, str, np.ndarray] | None:
        """(first run, second run, per-query second − first) when two runs are compared."""
        if "difference" not in self.table:
            return None
        first, second = list(self.evaluations)[:2]
        return first, second, self.table["difference"].dropna().to_numpy()


def evaluate_campaign(campaign: Campaign, choice: EvaluationChoice) -> CampaignEvaluation:
    """Evaluate every chosen run as ``judge-app eval --db`` would with the same options."""
    request = choice.request(campaign.source)
    judgments = campaign.judgments
    if choice.raters:
        judgments = of_raters(judgments, list(choice.raters), campaign.source)
    runs = runs_of(campaign.results, request.runs, campaign.source)
    curve_ks = choice.curve_ks()
    request.ks = [",".join([k_label(choice.k), *map(str, curve_ks)])]
    outcome = evaluate_loaded(request, judgments, runs)
    evaluations = outcome.evaluations
    comparisons = []
    if len(evaluations) >= 2:
        comparisons = compare_evaluations(
            evaluations, choice.measure, permutations=choice.permutations, seed=choice.seed
        )
    assert outcome.qrels is not None
    return CampaignEvaluation(
        choice=choice,
        settings=outcome.settings,
        evaluations=evaluations,
        qrels=pd.DataFrame(outcome.qrels),
        table=_per_query_table(evaluations, choice, campaign.queries),
        summaries={
            run: bootstrap_interval(
                evaluation.values[choice.measure], resamples=choice.resamples, seed=choice.seed
            )
            for run, evaluation in evaluations.items()
        },
        comparisons=comparisons,
        curves={
            run: (curve_ks, [float(evaluation.values[f"ndcg@{k}"].mean()) for k in curve_ks])
            for run, evaluation in evaluations.items()
        },
        judgments=judgments,
    )


def _per_query_table(
    evaluations: dict[str, Evaluation], choice: EvaluationChoice, queries: dict[str, str]
) -> pd.DataFrame:
    label = k_label(choice.k)
    table: pd.DataFrame | None = None
    for run, evaluation in evaluations.items():
        values = evaluation.values
        columns = pd.DataFrame(
            {
                "query_id": evaluation.query_ids,
                f"{run} judged": values[f"judged@{label}"],
                f"{run} DCG": values[f"dcg@{label}"],
                f"{run} IDCG": values[f"idcg@{label}"],
                f"{run} NDCG": values[f"ndcg@{label}"],
            }
        )
        table = columns if table is None else table.merge(columns, on="query_id", how="outer")
    assert table is not None
    runs = list(evaluations)
    if len(runs) >= 2:
        table["difference"] = table[f"{runs[1]} NDCG"] - table[f"{runs[0]} NDCG"]
    judged = table[[f"{run} judged" for run in runs]]
    table["incomplete"] = (judged < 1).any(axis=1)
    table.insert(1, "query", table["query_id"].map(queries).fillna(""))
    ndcg = [f"{run} NDCG" for run in runs] + (["difference"] if len(runs) >= 2 else [])
    details = [f"{run} {name}" for run in runs for name in ("judged", "DCG", "IDCG")]
    order = ["query_id", "query", *ndcg, *details, "incomplete"]
    return table[order].sort_values("query_id", ignore_index=True)


@dataclass
class QueryExplanation:
    """One query's NDCG@k of one run, position by position.

    ``ranked``: ``position`` (None for an unjudged result left out by ``condensed``),
    ``rank``, ``doc_id``, ``grade`` (aggregated; NaN unjudged), one column per rater (their
    own grades), ``gain``, ``discount``, ``contribution``, ``running DCG``, ``title``.
    ``ideal``: the ideal order, ``position, doc_id, grade, gain, discount, contribution,
    running IDCG, title``."""

    query_id: str
    query: str
    run: str
    k: int | None
    gain: str
    ranked: pd.DataFrame
    ideal: pd.DataFrame
    dcg: float
    idcg: float

    @property
    def ndcg(self) -> float:
        return self.dcg / self.idcg if self.idcg > 0 else 0.0

    def formula(self, digits: int = 4) -> str:
        """``NDCG@10 = DCG / IDCG = 7.1419 / 9.0234 = 0.7915``, in words where IDCG is 0."""
        label = f"@{k_label(self.k)}"
        if self.idcg <= 0:
            return f"IDCG{label} is 0 (no relevant judged document): NDCG{label} is 0"
        return (
            f"NDCG{label} = DCG{label} / IDCG{label} = {self.dcg:.{digits}f} / "
            f"{self.idcg:.{digits}f} = {self.ndcg:.{digits}f}"
        )


def explain_query(
    campaign: Campaign,
    evaluation: CampaignEvaluation,
    run: str,
    query_id: str,
    titles: dict[str, str] | None = None,
) -> QueryExplanation:
    """The tables behind ``query_id``'s NDCG@k in ``run``: the same numbers as the engine's."""
    choice, settings, titles = evaluation.choice, evaluation.settings, titles or {}
    results = campaign.results
    listed = results[(results["run"] == run) & (results["query_id"] == query_id)]
    qrels = evaluation.qrels[evaluation.qrels["query_id"] == query_id]
    grade_of = dict(zip(qrels["doc_id"], qrels["grade"]))
    ranked = pd.DataFrame(
        {
            "rank": listed["rank"].to_numpy(),
            "doc_id": listed["doc_id"].astype(str).to_numpy(),
        }
    )
    ranked["grade"] = ranked["doc_id"].map(grade_of).astype(float)
    if settings.unjudged == "condensed":  # unjudged results take no position
        counted = ranked["grade"].notna().to_numpy()
    else:
        counted = np.ones(len(ranked), dtype=bool)
    before = np.cumsum(counted) - counted  # positions taken by the rows above
    ranked.insert(0, "position", pd.array(np.where(counted, before + 1, 0), dtype="Int64"))
    ranked.loc[~counted, "position"] = pd.NA
    if choice.k is not None:
        ranked = ranked[before < choice.k]
    for rater, grades in _rater_grades(evaluation.judgments, query_id).items():
        ranked[rater] = ranked["doc_id"].map(grades).astype(float)
    ranked = _with_contributions(ranked, settings.gain, "running DCG")
    ranked["title"] = [titles.get(doc, "") for doc in ranked["doc_id"]]

    if settings.ideal == "judged":
        pool = pd.DataFrame({"doc_id": qrels["doc_id"].astype(str), "grade": qrels["grade"]})
    else:
        pool = _listed_grades(listed, grade_of, settings.unjudged)
    pool = pool.assign(gain=gain_of(pool["grade"].to_numpy(float), settings.gain))
    pool = pool.sort_values("gain", ascending=False, kind="stable").drop(columns="gain")
    if choice.k is not None:
        pool = pool.head(choice.k)
    ideal = pool.reset_index(drop=True)
    ideal.insert(0, "position", pd.array(np.arange(1, len(ideal) + 1), dtype="Int64"))
    ideal = _with_contributions(ideal, settings.gain, "running IDCG")
    ideal["title"] = [titles.get(doc, "") for doc in ideal["doc_id"]]
    return QueryExplanation(
        query_id=query_id,
        query=campaign.queries.get(query_id, ""),
        run=run,
        k=choice.k,
        gain=settings.gain,
        ranked=ranked.reset_index(drop=True),
        ideal=ideal,
        dcg=float(ranked["contribution"].sum()),
        idcg=float(ideal["contribution"].sum()),
    )


def _listed_grades(listed: pd.DataFrame, grade_of: dict, unjudged: str) -> pd.DataFrame:
    """The run's documents and grades, the pool of ``ideal="retrieved"`` (unjudged ones are
    left out by ``condensed``, gain 0 otherwise)."""
    frame = pd.DataFrame({"doc_id": listed["doc_id"].astype(str).to_numpy()})
    frame["grade"] = frame["doc_id"].map(grade_of).astype(float)
    return frame[frame["grade"].notna()] if unjudged == "condensed" else frame


def _rater_grades(judgments: pd.DataFrame, query_id: str) -> dict[str, dict[str, float]]:
    """Each rater's grades of the query's documents, the adjudicated grade last."""
    rows = judgments[judgments["query_id"] == query_id]
    grades = {
        str(rater): dict(zip(group["doc_id"].astype(str), group["grade"]))
        for rater, group in rows.groupby("rater", sort=True)
    }
    if ADJUDICATED in grades:
        grades[ADJUDICATED] = grades.pop(ADJUDICATED)
    return grades


def _with_contributions(frame: pd.DataFrame, gain: str, running: str) -> pd.DataFrame:
    """``gain``, ``discount`` 1/log2(position + 1), ``contribution`` and the running sum."""
    positions = frame["position"].to_numpy(dtype=float, na_value=math.nan)
    gains = gain_of(frame["grade"].to_numpy(float), gain)
    discounts = 1.0 / np.log2(positions + 1)  # NaN where a result takes no position
    contributions = gains * np.nan_to_num(discounts)
    return frame.assign(
        gain=gains,
        discount=discounts,
        contribution=contributions,
        **{running: np.cumsum(contributions)},
    )
