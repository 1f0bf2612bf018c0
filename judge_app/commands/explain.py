"""One query's NDCG@k in one run, position by position, as seeds 002 and 003 teach it: each
position's grade (combined, and each rater's), gain, discount, contribution and running DCG,
beside the ideal order and its IDCG; the same numbers as the evaluation's (the drill-down)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from judge_app.evaluation.campaign import Campaign
from judge_app.evaluation.result import EvaluationResult
from judge_app.metrics.aggregation import ADJUDICATED, majority_tie
from judge_app.metrics.ranking import gain_of, k_label


@dataclass
class QueryExplanation:
    """One query's NDCG@k of one run, position by position.

    ``ranked``: ``position`` (None for an unjudged result left out by ``condensed``),
    ``rank``, ``doc_id``, ``grade`` (aggregated; NaN unjudged), one column per rater (their
    own grades), ``gain``, ``discount``, ``contribution``, ``running DCG``, ``title``.
    ``ideal``: the ideal order, ``position, doc_id, grade, gain, discount, contribution,
    running IDCG, title``. ``ties``: document id → how ``majority`` broke a tie between its
    raters' grades (only with ``majority``, where no adjudicated grade decided it)."""

    query_id: str
    query: str
    run: str
    k: int | None
    gain: str
    ranked: pd.DataFrame
    ideal: pd.DataFrame
    dcg: float
    idcg: float
    ties: dict[str, str] = field(default_factory=dict)

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
    evaluation: EvaluationResult,
    run: str,
    query_id: str,
    titles: dict[str, str] | None = None,
) -> QueryExplanation:
    """The tables behind ``query_id``'s NDCG@k in ``run``: the same numbers as the engine's."""
    k, settings, titles = evaluation.options.k, evaluation.settings, titles or {}
    results = campaign.results
    listed = results[(results["run"] == run) & (results["query_id"] == query_id)]
    all_qrels = pd.DataFrame(evaluation.qrels)
    qrels = all_qrels[all_qrels["query_id"] == query_id]
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
    if k is not None:
        ranked = ranked[before < k]
    rater_grades = _rater_grades(evaluation.judgments, query_id)
    for rater, grades in rater_grades.items():
        ranked[rater] = ranked["doc_id"].map(grades).astype(float)
    ranked = _with_contributions(ranked, settings.gain, "running DCG")
    ranked["title"] = [titles.get(doc, "") for doc in ranked["doc_id"]]

    if settings.ideal == "judged":
        pool = pd.DataFrame({"doc_id": qrels["doc_id"].astype(str), "grade": qrels["grade"]})
    else:
        pool = _listed_grades(listed, grade_of, settings.unjudged)
    pool = pool.assign(gain=gain_of(pool["grade"].to_numpy(float), settings.gain))
    pool = pool.sort_values("gain", ascending=False, kind="stable").drop(columns="gain")
    if k is not None:
        pool = pool.head(k)
    ideal = pool.reset_index(drop=True)
    ideal.insert(0, "position", pd.array(np.arange(1, len(ideal) + 1), dtype="Int64"))
    ideal = _with_contributions(ideal, settings.gain, "running IDCG")
    ideal["title"] = [titles.get(doc, "") for doc in ideal["doc_id"]]
    return QueryExplanation(
        query_id=query_id,
        query=campaign.queries.get(query_id, ""),
        run=run,
        k=k,
        gain=settings.gain,
        ranked=ranked.reset_index(drop=True),
        ideal=ideal,
        dcg=float(ranked["contribution"].sum()),
        idcg=float(ideal["contribution"].sum()),
        ties=_majority_ties(evaluation, rater_grades, ranked["doc_id"].tolist()),
    )


def _majority_ties(
    evaluation: EvaluationResult, grades: dict[str, dict[str, float]], documents: list[str]
) -> dict[str, str]:
    """The ``documents`` whose ``majority`` grade broke a tie, and how (see ``ties``)."""
    options = evaluation.options
    if options.aggregate != "majority":
        return {}
    decided = grades.get(ADJUDICATED, {}) if options.adjudicated else {}
    ties = {}
    for doc in documents:
        if doc in decided and not math.isnan(decided[doc]):
            continue
        votes = [
            rater[doc]
            for name, rater in grades.items()
            if name != ADJUDICATED and doc in rater and not math.isnan(rater[doc])
        ]
        tie = majority_tie(votes)
        if tie is not None:
            ties[doc] = tie
    return ties


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
