"""How far a pairwise judge stands in for the human raters (``judge-app preferences
calibrate``), on frames: the humans' preferences (``store.preferences.preferences_frame``)
and the judge's (``store.auto_preferences.auto_preferences_frame``).

On each pair the humans chose on, their *majority* is the choice more of them made than any
other (``skipped`` is no choice; a tie is no majority, and the pair is left out). On the
pairs with a majority and a judge's choice: the share of them where the judge made the
majority's choice, Cohen's kappa (unweighted: the choices ``a``, ``b``, ``equal`` and
``neither`` have no order) and the confusion table, and the same share for each order's
answer alone (what asking in both orders changed). Over every pair whose two answers were
read: the share that gave the same choice in both orders (position consistency), and how
many chose the document shown first both times, or the one shown second.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from judge_app.agreement import coefficients as co
from judge_app.errors import typed
from judge_app.numbers import count_text, score_text, share_text
from judge_app.store.models import AUTO_CHOICES

KEY = ["query_id", "doc_a", "doc_b"]


@dataclass(frozen=True)
class PairCalibration:
    """A pairwise judge against the humans (see the module): its pairs ``answered`` and
    ``failed``; ``both_read`` pairs whose two answers were read, ``consistent`` of them the
    same both times, ``first_shown`` and ``second_shown`` of them choosing the document shown
    first (second) both times; ``human_pairs`` the humans chose on, ``tied`` of them without a
    majority; ``common`` pairs with a majority and a judge's choice, ``agreeing`` of them;
    Cohen's ``kappa``; ``confusion[human, judge]`` over ``AUTO_CHOICES``; and each order's
    answer alone on the common pairs where it was read (``order_agreeing`` of
    ``order_common``, a shown first then b)."""

    judge: str
    answered: int
    failed: int
    both_read: int
    consistent: int
    first_shown: int
    second_shown: int
    human_pairs: int
    tied: int
    common: int
    agreeing: int
    kappa: co.Estimate
    confusion: np.ndarray
    order_agreeing: tuple[int, int]
    order_common: tuple[int, int]

    @property
    def consistency(self) -> float | None:
        """The position-consistency rate (None: no pair was read in both orders)."""
        return self.consistent / self.both_read if self.both_read else None

    @property
    def share(self) -> float | None:
        """The share of the common pairs where the judge made the majority's choice."""
        return self.agreeing / self.common if self.common else None

    def order_shares(self) -> tuple[float | None, float | None]:
        """The share agreeing of each order's answer alone (a shown first, b shown first)."""
        (forward, backward), (first, second) = self.order_agreeing, self.order_common
        return (forward / first if first else None, backward / second if second else None)

    def record(self) -> dict[str, Any]:
        """The figures as ``--format json`` gives them (full precision)."""
        forward, backward = self.order_shares()
        return {
            "judge": self.judge,
            "answered": self.answered,
            "failed": self.failed,
            "position_consistency": {
                "rate": self.consistency,
                "consistent": self.consistent,
                "read_in_both_orders": self.both_read,
                "first_shown_both_times": self.first_shown,
                "second_shown_both_times": self.second_shown,
            },
            "human_pairs": self.human_pairs,
            "without_majority": self.tied,
            "common": self.common,
            "agreeing": self.agreeing,
            "share_agreeing": self.share,
            "cohen_kappa": self.kappa.value,
            "cohen_kappa_reason": self.kappa.reason,
            "share_agreeing_a_first": forward,
            "share_agreeing_b_first": backward,
            "choices": list(AUTO_CHOICES),
            "confusion": self.confusion.tolist(),
        }

    def lines(self) -> list[str]:
        """The figures as people read them (rounded)."""
        forward, backward = self.order_shares()
        kappa = (
            score_text(self.kappa.value, 3)
            if self.kappa.value is not None
            else f"none ({self.kappa.reason})"
        )
        lines = [
            f"judge {typed(self.judge)}: {count_text(self.answered, 'pair')} answered, "
            f"{self.failed:,} failed",
            f"position consistency {share_text(self.consistency)}: "
            f"{self.consistent:,} of the {count_text(self.both_read, 'pair')} read in both "
            f"orders got the same answer both times; {self.first_shown:,} chose the document "
            f"shown first both times, {self.second_shown:,} the one shown second",
            f"the humans chose on {count_text(self.human_pairs, 'pair')} "
            f"({self.tied:,} without a majority); on the {count_text(self.common, 'pair')} "
            f"with a majority and a judge's choice:",
            f"  agreeing {share_text(self.share)} ({self.agreeing:,}), Cohen's kappa {kappa}",
            f"  each order alone: agreeing {share_text(forward)} with a shown first, "
            f"{share_text(backward)} with b shown first",
            "",
            "humans' majority (rows) against the judge (columns)",
        ]
        table = pd.DataFrame(self.confusion, index=list(AUTO_CHOICES), columns=list(AUTO_CHOICES))
        return lines + table.to_string().splitlines()


def pair_calibration(judge: str, humans: pd.DataFrame, answers: pd.DataFrame) -> PairCalibration:
    """The calibration of ``judge`` from the humans' preferences (``query_id, doc_a, doc_b,
    choice``, a row per rater) and its answers (``query_id, doc_a, doc_b, choice, choice_ab,
    choice_ba``; choices None where they failed)."""
    majority, human_pairs, tied = _majority(humans)
    read = answers["choice_ab"].notna() & answers["choice_ba"].notna()
    forward, backward = answers["choice_ab"][read], answers["choice_ba"][read]
    merged = answers.merge(majority, on=KEY, how="inner")
    chosen = merged[merged["choice"].notna()]
    human_codes = _codes(chosen["majority"])
    judge_codes = _codes(chosen["choice"])
    confusion = co.confusion_matrix(human_codes, judge_codes, len(AUTO_CHOICES))
    order_agreeing, order_common = [], []
    for column in ("choice_ab", "choice_ba"):
        mine = chosen[chosen[column].notna()]
        order_agreeing.append(int((mine[column] == mine["majority"]).sum()))
        order_common.append(len(mine))
    return PairCalibration(
        judge=judge,
        answered=len(answers),
        failed=int(answers["choice"].isna().sum()),
        both_read=int(read.sum()),
        consistent=int((forward == backward).sum()),
        first_shown=int(((forward == "a") & (backward == "b")).sum()),
        second_shown=int(((forward == "b") & (backward == "a")).sum()),
        human_pairs=human_pairs,
        tied=tied,
        common=len(chosen),
        agreeing=int(np.trace(confusion)),
        kappa=_kappa(confusion),
        confusion=confusion,
        order_agreeing=(order_agreeing[0], order_agreeing[1]),
        order_common=(order_common[0], order_common[1]),
    )


def _majority(humans: pd.DataFrame) -> tuple[pd.DataFrame, int, int]:
    """The humans' majority of each pair they chose on (``query_id, doc_a, doc_b,
    majority``; pairs without one left out), the pairs they chose on and those tied."""
    chosen = humans[humans["choice"].isin(AUTO_CHOICES)]
    if chosen.empty:
        return pd.DataFrame(columns=[*KEY, "majority"]), 0, 0
    counts = (
        chosen.groupby(KEY)["choice"]
        .value_counts()
        .unstack(fill_value=0)
        .reindex(columns=list(AUTO_CHOICES), fill_value=0)
    )
    most = counts.to_numpy().max(axis=1)
    alone = (counts.to_numpy() == most[:, None]).sum(axis=1) == 1
    majority = counts.idxmax(axis=1)[alone].rename("majority").reset_index()
    return majority, len(counts), int((~alone).sum())


def _codes(choices: pd.Series) -> np.ndarray:
    """The position of each choice in ``AUTO_CHOICES``."""
    return pd.Categorical(choices, categories=AUTO_CHOICES).codes.astype(np.int64)


def _kappa(confusion: np.ndarray) -> co.Estimate:
    """Cohen's unweighted kappa of the confusion table, with its reason in the words of
    choices where it is undefined."""
    kappa = co.cohen_kappa(confusion, "none", np.arange(len(AUTO_CHOICES)))
    if kappa.value is not None:
        return kappa
    if not confusion.sum():
        return co.Estimate.undefined("no pair has both a humans' majority and a judge's choice")
    only = AUTO_CHOICES[int(np.argmax(confusion.sum(axis=1)))]
    return co.Estimate.undefined(
        f"the humans and the judge chose {only!r} on every pair: chance agreement is total"
    )
