"""From preference judgments to an ideal ranking: one query's Bradley–Terry strengths, their
uncertainty, and the ranking with ties they give.

Model. Bradley and Terry (1952): document i is preferred to j with probability
σ(θ_i − θ_j), θ the log-strengths. A choice of ``equal`` or ``neither`` (both not relevant) is
half a win for each document (Rao and Kupper's and Davidson's tie models add a tie parameter
that changes the strengths' scale, not their order; half a win keeps the likelihood Bradley and
Terry's, so that a tie says "no order" symmetrically, and makes an independent oracle,
``choix``, usable on the same data). ``skipped`` says nothing and is left out.

Fit. The maximum a posteriori θ under a Gaussian prior N(0, 1/``prior``) on each θ_i, by
Newton's method on the concave log-posterior: the prior keeps a document that won every
comparison finite (separation leaves the maximum-likelihood θ infinite) and fixes the scale's
origin. Uncertainty: the Laplace approximation, the inverse of the negative Hessian at the
maximum (the Fisher information plus the prior's), gives each θ_i's standard error and each
difference's, hence the probability that one document truly ranks above another.

Ideal ranking. Documents in descending θ; documents whose θ differ by less than
``TIE_TOLERANCE`` are tied (exactly symmetric evidence gives exactly equal θ). A document the
raters called not relevant in most of its comparisons (``neither``) is left out of the ideal
ranking, as compatibility's ideal holds only relevant documents (Clarke et al. 2021).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CHOICES = ("a", "b", "equal", "neither", "skipped")
"""A choice between documents a and b (as the store's ``PREFERENCE_CHOICES``)."""
A_WINS = {"a": 1.0, "b": 0.0, "equal": 0.5, "neither": 0.5}
"""Document a's share of the win for each choice that counts (``skipped`` does not)."""
PRIOR = 0.1
"""Precision of the Gaussian prior on each log-strength: a standard deviation of about 3.2."""
TIE_TOLERANCE = 1e-9
MAX_ITERATIONS = 100


@dataclass(frozen=True)
class Comparisons:
    """One query's preferences as win counts over its ``docs``: ``wins[i, j]`` is i's wins
    over j (a tie half to each), ``counts[i, j]`` the comparisons of i and j that count, and
    ``neither[i]`` / ``compared[i]`` how many of i's comparisons said both not relevant."""

    docs: tuple[str, ...]
    wins: np.ndarray
    counts: np.ndarray
    neither: np.ndarray
    compared: np.ndarray


@dataclass(frozen=True)
class Strengths:
    """Bradley–Terry log-strengths ``theta`` of ``docs`` with their covariance ``cov``."""

    docs: tuple[str, ...]
    theta: np.ndarray
    cov: np.ndarray

    @property
    def se(self) -> np.ndarray:
        """Each log-strength's standard error."""
        return np.sqrt(np.diag(self.cov))

    def above(self, i: int, j: int) -> float:
        """The probability that document ``i`` truly ranks above ``j`` (normal approximation
        of θ_i − θ_j)."""
        variance = self.cov[i, i] + self.cov[j, j] - 2 * self.cov[i, j]
        difference = self.theta[i] - self.theta[j]
        if variance <= 0:
            return 0.5 if difference == 0 else float(difference > 0)
        return 0.5 * math.erfc(-difference / math.sqrt(2 * variance))


@dataclass(frozen=True)
class IdealRanking:
    """A query's ideal ranking: groups of tied documents, best first (relevant ones only), the
    strengths it came from and the documents left out as not relevant."""

    groups: tuple[tuple[str, ...], ...]
    strengths: Strengths
    not_relevant: tuple[str, ...]

    @property
    def documents(self) -> list[str]:
        return [doc for group in self.groups for doc in group]


def comparisons(doc_a: Sequence[str], doc_b: Sequence[str], choice: Sequence[str]) -> Comparisons:
    """The win counts of one query's preferences (pairs ``doc_a``, ``doc_b`` with each choice
    relative to them); documents only ever skipped are left out."""
    shares = [A_WINS.get(c) for c in choice]
    kept = [k for k, share in enumerate(shares) if share is not None]
    docs = tuple(sorted({doc_a[k] for k in kept} | {doc_b[k] for k in kept}))
    index = {doc: place for place, doc in enumerate(docs)}
    n = len(docs)
    wins, counts = np.zeros((n, n)), np.zeros((n, n))
    neither, compared = np.zeros(n), np.zeros(n)
    for k in kept:
        i, j, share = index[doc_a[k]], index[doc_b[k]], shares[k]
        assert share is not None
        wins[i, j] += share
        wins[j, i] += 1 - share
        counts[i, j] += 1
        counts[j, i] += 1
        compared[[i, j]] += 1
        if choice[k] == "neither":
            neither[[i, j]] += 1
    return Comparisons(docs, wins, counts, neither, compared)


def bradley_terry(data: Comparisons, prior: float = PRIOR) -> Strengths:
    """The maximum a posteriori log-strengths of ``data`` under a N(0, 1/``prior``) prior, by
    Newton's method, with their Laplace covariance."""
    if prior <= 0:
        raise ValueError("the prior's precision must be positive: it keeps strengths finite")
    n = len(data.docs)
    theta = np.zeros(n)
    for _ in range(MAX_ITERATIONS):
        gradient, hessian = _derivatives(theta, data, prior)
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if np.max(np.abs(step), initial=0.0) < 1e-12:
            break
    _, hessian = _derivatives(theta, data, prior)
    return Strengths(data.docs, theta, np.linalg.inv(-hessian))


def _derivatives(
    theta: np.ndarray, data: Comparisons, prior: float
) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and Hessian of the log-posterior at ``theta``."""
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j] = P(i beats j)
    gradient = (data.wins - data.counts * p).sum(axis=1) - prior * theta
    weights = data.counts * p * p.T
    hessian = weights - np.diag(weights.sum(axis=1)) - prior * np.eye(len(theta))
    return gradient, hessian


def ideal_ranking(data: Comparisons, prior: float = PRIOR) -> IdealRanking:
    """The ideal ranking of one query's documents by their strengths, with ties; documents
    most of whose comparisons said both not relevant are left out."""
    strengths = bradley_terry(data, prior)
    relevant = ~(data.neither * 2 > data.compared)
    order = [int(i) for i in np.argsort(-strengths.theta, kind="stable") if relevant[i]]
    groups: list[list[str]] = []
    previous = math.inf
    for i in order:
        if groups and previous - strengths.theta[i] <= TIE_TOLERANCE:
            groups[-1].append(data.docs[i])
        else:
            groups.append([data.docs[i]])
        previous = strengths.theta[i]
    left_out = tuple(doc for doc, keep in zip(data.docs, relevant) if not keep)
    return IdealRanking(tuple(tuple(sorted(g)) for g in groups), strengths, left_out)
