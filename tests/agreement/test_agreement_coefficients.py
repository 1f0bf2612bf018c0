"""Agreement coefficients against oracles and published worked examples.

Oracles (test extras): ``krippendorff.alpha``, ``statsmodels.stats.inter_rater.fleiss_kappa``,
``sklearn.metrics.cohen_kappa_score``, on hypothesis-generated judgment sets: 2–8 raters,
missing grades, skewed grade distributions where most grades are 0. Gwet's AC1/AC2 has no
Python oracle: it is checked against the documented outputs of the R package irrCAC (by Gwet
himself) and against a literal, loop-by-loop transcription of the Handbook's formulas.
"""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

from judge_app.agreement import coefficients as co

GRADES = list(range(6))
ONE_TO_FIVE = np.arange(1, 6)
ONE_TO_THREE = np.arange(1, 4)
NAN = np.nan


@st.composite
def judgment_sets(draw, min_raters: int = 2, max_raters: int = 8, max_units: int = 40):
    """``grades[unit, rater]``, -1 where missing; grade 0 is up to 12 times as likely as each
    other grade, and up to a quarter of the grades may be missing."""
    raters = draw(st.integers(min_raters, max_raters))
    units = draw(st.integers(1, max_units))
    zeros = draw(st.integers(1, 12))
    missing = draw(st.integers(0, 6))
    pool = [-1] * missing + [0] * zeros + [1, 2, 3, 4, 5]
    cells = draw(st.lists(st.sampled_from(pool), min_size=units * raters, max_size=units * raters))
    return np.array(cells, dtype=np.int64).reshape(units, raters)


def reliability_data(grades: np.ndarray) -> np.ndarray:
    """krippendorff's input: raters x units, NaN where missing."""
    return np.where(grades < 0, np.nan, grades).T.astype(float)


def oracle_alpha(grades: np.ndarray, level: str) -> float | None:
    """krippendorff.alpha, None where it refuses (one value, nothing pairable) or gives NaN."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            value = krippendorff.alpha(
                reliability_data=reliability_data(grades), level_of_measurement=level
            )
    except ValueError:
        return None
    return None if np.isnan(value) else float(value)


def oracle_cohen(a: np.ndarray, b: np.ndarray, weighting: str) -> float | None:
    """scikit-learn's kappa; None where it warns that kappa is undefined and gives NaN."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = cohen_kappa_score(
            a, b, labels=GRADES, weights=None if weighting == "none" else weighting
        )
    return None if np.isnan(value) else float(value)


def handbook_gwet(grades: np.ndarray, weights: np.ndarray) -> float | None:
    """Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed., AC1/AC2 for multiple raters
    with missing ratings, written out unit by unit and category by category."""
    q = len(weights)
    units = [[g for g in row if g >= 0] for row in grades]
    rated = [row for row in units if len(row) >= 1]
    multi = [row for row in units if len(row) >= 2]
    if not multi:
        return None
    p_a = 0.0
    for row in multi:
        r_i = len(row)
        total = 0.0
        for k in range(q):
            r_ik = row.count(k)
            r_star = sum(weights[k][m] * row.count(m) for m in range(q))
            total += r_ik * (r_star - 1)
        p_a += total / (r_i * (r_i - 1))
    p_a /= len(multi)
    pi = [sum(row.count(k) / len(row) for row in rated) / len(rated) for k in range(q)]
    t_w = sum(sum(line) for line in weights)
    p_e = t_w * sum(p * (1 - p) for p in pi) / (q * (q - 1))
    return (p_a - p_e) / (1 - p_e)


# --------------------------------------------------------------------------- oracles


@settings(max_examples=120, deadline=None)
@given(judgment_sets())
def test_krippendorff_alpha_equals_the_krippendorff_package(grades):
    counts = co.grade_counts(grades)
    for level in co.LEVELS:
        ours = co.krippendorff_alpha(counts, level)
        expected = oracle_alpha(grades, level)
        if expected is None:
            assert ours.value is None and ours.reason, level
        else:
            assert ours.value == pytest.approx(expected, abs=1e-9), level
            assert ours.reason is None


@settings(max_examples=60, deadline=None)
@given(judgment_sets(), st.integers(1, 5))
def test_alpha_by_group_equals_alpha_of_each_group(grades, n_groups):
    groups = np.arange(len(grades)) % n_groups
    by_group = co.krippendorff_alpha_by_group(co.grade_counts(grades), groups, n_groups)
    assert len(by_group) == n_groups
    for group, estimate in enumerate(by_group):
        expected = oracle_alpha(grades[groups == group], "ordinal")
        if expected is None:
            assert estimate.value is None and estimate.reason
        else:
            assert estimate.value == pytest.approx(expected, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(judgment_sets())
def test_fleiss_kappa_equals_statsmodels_on_units_rated_by_everyone(grades):
    counts = co.grade_counts(grades)
    complete = counts[counts.sum(axis=1) == grades.shape[1]]
    ours = co.fleiss_kappa(complete)
    if len(complete) == 0:
        assert ours.value is None and ours.reason
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = statsmodels_fleiss(complete)
    if np.isnan(expected):
        assert ours.value is None and "chance agreement is total" in ours.reason
    else:
        assert ours.value == pytest.approx(expected, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(judgment_sets(max_raters=4))
def test_cohen_kappa_equals_scikit_learn_for_every_pair(grades):
    for a in range(grades.shape[1]):
        for b in range(a + 1, grades.shape[1]):
            both = (grades[:, a] >= 0) & (grades[:, b] >= 0)
            confusion = co.confusion_matrix(grades[both, a], grades[both, b])
            for weighting in co.WEIGHTINGS:
                ours = co.cohen_kappa(confusion, weighting)
                if not both.any():
                    assert ours.value is None and "no unit in common" in ours.reason
                    continue
                expected = oracle_cohen(grades[both, a], grades[both, b], weighting)
                if expected is None:
                    assert ours.value is None and "chance agreement is total" in ours.reason
                else:
                    assert ours.value == pytest.approx(expected, abs=1e-9), weighting


@settings(max_examples=100, deadline=None)
@given(judgment_sets(max_raters=6))
def test_every_pair_at_once_equals_scikit_learn(grades):
    """``cohen_kappas`` (the report's pairwise table: every pair's figures in one pass) is
    scikit-learn's kappa of each pair on its common units, and its exact agreement."""
    pair, a, b, expected_pairs = [], [], [], []
    for first in range(grades.shape[1]):
        for second in range(first + 1, grades.shape[1]):
            both = (grades[:, first] >= 0) & (grades[:, second] >= 0)
            if both.any():
                pair += [len(expected_pairs)] * int(both.sum())
                a += grades[both, first].tolist()
                b += grades[both, second].tolist()
                expected_pairs.append((grades[both, first], grades[both, second]))
    figures = co.cohen_kappas(
        *(np.array(column, dtype=np.int64) for column in (pair, a, b)), len(expected_pairs)
    )
    for index, (first, second) in enumerate(expected_pairs):
        assert figures.units[index] == len(first)
        assert figures.agreement[index] == pytest.approx(np.mean(first == second), abs=1e-12)
        for weighting in co.WEIGHTINGS:
            ours, expected = (
                figures.kappas[weighting][index],
                oracle_cohen(first, second, weighting),
            )
            if expected is None:
                assert ours.value is None and "chance agreement is total" in ours.reason
            else:
                assert ours.value == pytest.approx(expected, abs=1e-9), weighting


@settings(max_examples=80, deadline=None)
@given(judgment_sets(max_units=25))
def test_gwet_ac1_and_ac2_equal_the_handbook_formulas_written_out(grades):
    counts = co.grade_counts(grades)
    for kind in ("identity", "linear", "quadratic"):
        weights = co.agreement_weights(co.GRADES, kind)
        ours = co.gwet_ac(counts, weights)
        expected = handbook_gwet(grades, weights.tolist())
        if expected is None:
            assert ours.value is None and ours.reason
        else:
            assert ours.value == pytest.approx(expected, abs=1e-9), kind


@settings(max_examples=80, deadline=None)
@given(judgment_sets())
def test_percent_agreement_is_the_mean_share_of_agreeing_pairs(grades):
    counts = co.grade_counts(grades)
    shares, within = [], []
    for row in grades:
        given_ = row[row >= 0]
        if len(given_) < 2:
            continue
        pairs = [(x, y) for i, x in enumerate(given_) for y in given_[i + 1 :]]
        shares.append(np.mean([x == y for x, y in pairs]))
        within.append(np.mean([abs(x - y) <= 1 for x, y in pairs]))
    exact = co.percent_agreement(counts)
    near = co.percent_agreement(counts, co.agreement_weights(co.GRADES, "within_one"))
    if not shares:
        assert exact.value is None and near.value is None and exact.reason
    else:
        assert exact.value == pytest.approx(np.mean(shares), abs=1e-12)
        assert near.value == pytest.approx(np.mean(within), abs=1e-12)
        assert near.value >= exact.value


# --------------------------------------------------------------------------- published examples

# Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for
# Communication, University of Pennsylvania, https://repository.upenn.edu/asc_papers/43: the
# example "C. Nominal data, any number of observers, missing data" (4 observers, 12 units).
# The same data is irrCAC's cac.raw4raters (Gwet, R package irrCAC 1.0, README,
# https://github.com/kgwet/irrCAC), with one value moved in the last, single-graded unit.
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)


def published_counts(data: np.ndarray, values: np.ndarray) -> np.ndarray:
    grades = np.where(np.isnan(data), -1, data - values[0]).T.astype(np.int64)
    return co.grade_counts(grades, len(values))


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)],
)
def test_krippendorff_2011_worked_example(level, published):
    counts = published_counts(KRIPPENDORFF_2011, ONE_TO_FIVE)
    value = co.krippendorff_alpha(counts, level, ONE_TO_FIVE).value
    assert round(value, 3) == published
    if level == "nominal":  # irrCAC's krippen.alpha.raw(cac.raw4raters): 0.74342
        assert round(value, 5) == 0.74342


def test_irrcac_raw4raters_percent_agreement_ac1_and_quadratic_ac2():
    """irrCAC README: pa.coeff.raw and gwet.ac1.raw(cac.raw4raters): pa 0.8181818, AC1
    0.77544; weighting vignette: gwet.ac1.raw(cac.raw4raters, weights = "quadratic"): pa
    0.9753788, AC2 0.914 (categories 1-5)."""
    counts = published_counts(KRIPPENDORFF_2011, ONE_TO_FIVE)
    assert co.percent_agreement(counts).value == pytest.approx(0.8181818, abs=1e-7)
    ac1 = co.gwet_ac(counts, co.agreement_weights(ONE_TO_FIVE, "identity")).value
    assert round(ac1, 5) == 0.77544
    quadratic = co.agreement_weights(ONE_TO_FIVE, "quadratic")
    assert co.percent_agreement(counts, quadratic).value == pytest.approx(0.9753788, abs=1e-7)
    assert round(co.gwet_ac(counts, quadratic).value, 5) == 0.914


# irrCAC's distrib.6raters (README and weighting vignette): 6 psychiatrists, 15 patients, 5
# diagnoses (Fleiss 1971's data), as counts of raters per category.
DISTRIB_6RATERS = np.array(
    [[0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
     [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
     [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1]]
)  # fmt: skip


def test_irrcac_distrib_6raters_ac1_ac2_and_fleiss():
    """gwet.ac1.dist: 0.4448007; with quadratic.weights(1:5): 0.4837438; fleiss.kappa.dist:
    0.4139265."""
    identity = co.agreement_weights(ONE_TO_FIVE, "identity")
    quadratic = co.agreement_weights(ONE_TO_FIVE, "quadratic")
    assert co.gwet_ac(DISTRIB_6RATERS, identity).value == pytest.approx(0.4448007, abs=1e-7)
    assert co.gwet_ac(DISTRIB_6RATERS, quadratic).value == pytest.approx(0.4837438, abs=1e-7)
    fleiss = co.fleiss_kappa(DISTRIB_6RATERS, ONE_TO_FIVE).value
    assert fleiss == pytest.approx(0.4139265, abs=1e-7)


# irrCAC's cont3x3abstractors: two abstractors' contingency table of 100 pregnancies.
CONT3X3 = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])


def test_irrcac_cont3x3abstractors_two_raters():
    """README: kappa2.table 0.7964094, gwet.ac1.table 0.8493305, krippen2.table 0.7972585,
    pa2.table 0.89; weighting vignette with quadratic.weights(1:3): kappa 0.8921569, AC2
    0.9402369, alpha 0.8926487 (quadratic weights on 1..3 are alpha's interval metric)."""
    cells = [(i, j) for i in range(3) for j in range(3) for _ in range(CONT3X3[i, j])]
    counts = co.grade_counts(np.array(cells), 3)
    identity = co.agreement_weights(ONE_TO_THREE, "identity")
    quadratic = co.agreement_weights(ONE_TO_THREE, "quadratic")
    expected = [
        (co.cohen_kappa(CONT3X3, "none", ONE_TO_THREE), 0.7964094),
        (co.cohen_kappa(CONT3X3, "quadratic", ONE_TO_THREE), 0.8921569),
        (co.gwet_ac(counts, identity), 0.8493305),
        (co.gwet_ac(counts, quadratic), 0.9402369),
        (co.krippendorff_alpha(counts, "nominal", ONE_TO_THREE), 0.7972585),
        (co.krippendorff_alpha(counts, "interval", ONE_TO_THREE), 0.8926487),
        (co.percent_agreement(counts), 0.89),
    ]
    for estimate, published in expected:
        assert estimate.value == pytest.approx(published, abs=1e-7)


def test_fleiss_1971_example_from_wikipedia():
    """Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories:
    P-bar 0.378, P-bar_e 0.213, kappa 0.210."""
    table = np.array(
        [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
         [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    )  # fmt: skip
    assert round(co.fleiss_kappa(table, ONE_TO_FIVE).value, 3) == 0.210


def test_cohen_kappa_two_by_two_example_from_wikipedia():
    """Wikipedia, "Cohen's kappa": 50 grant proposals, yes/yes 20, yes/no 5, no/yes 10, no/no
    15: p_o 0.7, p_e 0.5, kappa 0.4."""
    confusion = np.array([[20, 5], [10, 15]])
    assert co.cohen_kappa(confusion, "none", np.arange(2)).value == pytest.approx(0.4)


# --------------------------------------------------------------------------- bootstrap


@settings(max_examples=40, deadline=None)
@given(judgment_sets())
def test_coincidence_patterns_add_up_to_the_coincidence_matrix(grades):
    counts = co.grade_counts(grades)
    contributions, frequency = co.coincidence_patterns(counts)
    assert frequency.sum() == (counts.sum(axis=1) >= 2).sum()
    total = np.tensordot(frequency, contributions, axes=1)
    np.testing.assert_allclose(total, co.coincidences(counts), atol=1e-9)


def correlated_grades(units: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.choice(6, size=units, p=[0.55, 0.15, 0.1, 0.1, 0.05, 0.05])
    grades = np.clip(truth[:, None] + rng.integers(-1, 2, size=(units, 3)), 0, 5)
    grades[rng.random(grades.shape) < 0.1] = -1
    return grades


def test_bootstrap_interval_matches_a_plain_unit_bootstrap():
    grades = correlated_grades(400, seed=3)
    counts = co.grade_counts(grades)
    alpha = co.krippendorff_alpha(counts).value
    ours = co.alpha_interval(counts, resamples=2000, seed=11).bounds
    pairable = counts[counts.sum(axis=1) >= 2]
    rng = np.random.default_rng(5)
    plain = [
        co.krippendorff_alpha(pairable[rng.integers(0, len(pairable), len(pairable))]).value
        for _ in range(2000)
    ]
    expected = np.quantile(plain, [0.025, 0.975])
    assert ours[0] < alpha < ours[1]
    assert ours == pytest.approx(tuple(expected), abs=0.01)


def test_bootstrap_is_seeded():
    counts = co.grade_counts(correlated_grades(200, seed=4))
    first = co.alpha_interval(counts, resamples=300, seed=1)
    assert co.alpha_interval(counts, resamples=300, seed=1) == first
    assert co.alpha_interval(counts, resamples=300, seed=2) != first


# --------------------------------------------------------------------------- undefined cases


def test_one_grade_everywhere_leaves_alpha_kappas_undefined_with_reasons():
    grades = np.zeros((5, 3), dtype=np.int64)
    counts = co.grade_counts(grades)
    for level in co.LEVELS:
        alpha = co.krippendorff_alpha(counts, level)
        assert alpha.value is None
        assert "every grade" in alpha.reason and "is 0" in alpha.reason
    fleiss = co.fleiss_kappa(counts)
    assert fleiss.value is None and "every rating of those units is 0" in fleiss.reason
    cohen = co.cohen_kappa(co.confusion_matrix(grades[:, 0], grades[:, 1]))
    assert cohen.value is None and "all 5 common units grade 0" in cohen.reason
    interval = co.alpha_interval(counts)
    assert interval.bounds is None and "every grade" in interval.reason
    # Gwet's AC1 stays defined where kappa breaks down: p_a = 1, p_e = 0.
    assert co.gwet_ac(counts, co.agreement_weights()).value == 1.0
    assert co.percent_agreement(counts).value == 1.0


def test_no_unit_graded_twice_leaves_everything_undefined():
    grades = np.array([[0, -1], [-1, 3], [5, -1]])
    counts = co.grade_counts(grades)
    reason = "no unit was graded by two or more raters"
    assert co.krippendorff_alpha(counts) == co.Estimate(None, reason)
    assert co.percent_agreement(counts) == co.Estimate(None, reason)
    assert co.gwet_ac(counts, co.agreement_weights()) == co.Estimate(None, reason)
    assert co.alpha_interval(counts) == co.Interval(None, reason)
    empty = co.confusion_matrix(np.array([], dtype=int), np.array([], dtype=int))
    assert co.cohen_kappa(empty).reason == "the two raters have no unit in common"
    assert co.fleiss_kappa(counts[:0]).value is None


def test_no_resamples_gives_no_interval():
    counts = co.grade_counts(correlated_grades(50, seed=1))
    interval = co.alpha_interval(counts, resamples=0)
    assert interval.bounds is None and "no bootstrap" in interval.reason


def test_bad_arguments_are_programming_errors():
    counts = co.grade_counts(np.array([[0, 1], [1, 1]]))
    with pytest.raises(ValueError, match="level"):
        co.krippendorff_alpha(counts, "ratio")
    with pytest.raises(ValueError, match="weighting"):
        co.cohen_kappa(np.eye(6), "cubic")
    with pytest.raises(ValueError, match="same number"):
        co.fleiss_kappa(np.array([[2, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]]))
