"""Measure names as ir_measures writes them: parsed, written back and refused as ir_measures
itself parses and writes them (the package is the oracle)."""

from __future__ import annotations

import importlib.util

import ir_measures
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ir_measures.measures.base import SumAgg
from paths import DOCS

from judge_app.errors import UsageError
from judge_app.metrics.measure_names import (
    ALIASES,
    FAMILIES,
    MEAN,
    SUM,
    aggregate_of,
    names_table,
    parse_measure,
    parse_measures,
)
from judge_app.option_declarations import flag_of

WRITTEN = [
    "nDCG@10",
    "nDCG",
    "P@5",
    "R@100",
    "AP",
    "AP@10",
    "RR",
    "Bpref",
    "Rprec",
    "Judged@10",
    "infAP",
    "nDCG(dcg='exp-log2')@10",
    "nDCG(gains={0:0,1:1,2:3})@10",
    "nDCG(judged_only=True)",
    "P(rel=2)@5",
    "AP(rel=2,judged_only=True)@10",
    "AP(judged_only=True,rel=2)@10",
    "SetF(beta=0.5)",
    "SetF(beta=1)",
    "SetP(relative=True)",
    "SetR",
    "SetAP(rel=3)",
    "IPrec@0.5",
    "IPrec@0.0",
    "NumQ",
    "NumRet",
    "NumRel(rel=2)",
    "NumRelRet",
    "MAP@10",
    "MRR",
    "NDCG@5",
    "SetRelP",
    "Precision@5",
    "BPref",
    "RPrec",
    "Recall@20",
    "Success@10",
    "P(rel=1)@10",
]


@pytest.mark.parametrize("text", WRITTEN)
def test_a_name_is_written_back_as_ir_measures_writes_it(text):
    assert str(parse_measure(text)) == str(ir_measures.parse_measure(text))


@pytest.mark.parametrize("text", WRITTEN)
def test_a_written_name_parses_to_itself(text):
    measure = parse_measure(text)
    assert parse_measure(str(measure)) == measure


@pytest.mark.parametrize("text", WRITTEN)
def test_a_runs_value_is_summed_or_averaged_as_ir_measures_aggregates_it(text):
    summed = isinstance(ir_measures.parse_measure(text).aggregator(), SumAgg)
    assert aggregate_of(str(parse_measure(text))) == (SUM if summed else MEAN)


@pytest.mark.parametrize("key", ["ndcg@10", "ndcg@all", "cg@5", "p@10", "recall@10", "rr", "ap"])
def test_the_evaluations_own_measures_are_averaged(key):
    assert aggregate_of(key) == MEAN


cutoffs = st.one_of(st.none(), st.integers(1, 1000))


@st.composite
def names(draw):
    family = draw(st.sampled_from(sorted(set(FAMILIES) - {"IPrec"} | set(ALIASES))))
    spec = FAMILIES[ALIASES[family][0] if family in ALIASES else family]
    cutoff = {"required": draw(st.integers(1, 1000)), "none": None}.get(spec.cutoff, draw(cutoffs))
    params = []
    for name, param in spec.params.items():
        if not draw(st.booleans()):
            continue
        if param.kind is bool:
            value = repr(draw(st.booleans()))
        elif param.kind is int:
            value = str(draw(st.integers(0, 4)))
        elif param.kind is float:
            value = repr(draw(st.floats(0.1, 4, allow_nan=False)))
        elif param.kind is str:
            value = repr(draw(st.sampled_from(param.choices)))
        else:
            gains = draw(st.dictionaries(st.integers(0, 4), st.integers(0, 20), max_size=4))
            gains = {grade: gain for grade, gain in gains.items() if grade != gain} or {0: 1}
            value = "{" + ",".join(f"{k}:{v}" for k, v in gains.items()) + "}"
        params.append(f"{name}={value}")
    params = draw(st.permutations(params))
    text = family + (f"({','.join(params)})" if params else "")
    return text if cutoff is None else f"{text}@{cutoff}"


@given(names())
def test_any_name_we_take_is_one_ir_measures_takes_and_writes_the_same(text):
    assert str(parse_measure(text)) == str(ir_measures.parse_measure(text))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("nDCG@10[gain=exp]", "parameters come before the cut-off"),
        ("ndcg@10", "did you mean nDCG?"),
        ("ERR@10", "no measure family 'ERR'"),
        ("P", "P needs a cut-off: P@10"),
        ("Bpref@10", "Bpref takes no cut-off"),
        ("P(rel='x')@5", "P's rel is a whole number"),
        ("P(2)@5", "parameters are named"),
        ("nDCG(dcg='exp')@10", "'log2' or 'exp-log2'"),
        ("nDCG(rel=2)@10", "nDCG has no parameter 'rel'"),
        ("P@0", "a whole number from 1"),
        ("IPrec@1.5", "a number from 0 to 1"),
        ("nDCG(gains={0:'a'})@5", "{grade: gain, …}"),
    ],
)
def test_a_bad_name_says_what_is_wrong(text, reason):
    with pytest.raises(UsageError) as error:
        parse_measure(text)
    assert error.value.option == "measures" and reason in error.value.reason
    assert error.value.worded(flag_of).startswith(f"--measure {text!r}: ")


def test_a_list_splits_at_commas_outside_brackets_and_keeps_each_name_once():
    listed = parse_measures("nDCG@10, P(rel=2,judged_only=True)@5,nDCG(gains={0:0,1:2})@5,nDCG@10")
    assert [str(m) for m in listed] == [
        "nDCG@10",
        "P(rel=2,judged_only=True)@5",
        "nDCG(gains={1:2})@5",
    ]
    with pytest.raises(UsageError, match="empty name"):
        parse_measures("nDCG@10,,AP")


def test_the_guide_shows_the_table_of_names():
    """docs/measures.md asks for the table, which the guide's build hook writes there."""
    docs = DOCS
    spec = importlib.util.spec_from_file_location("docs_hooks", docs / "hooks" / "generated.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    page, _commands = hook.render((docs / "measures.md").read_text(encoding="utf-8"))
    assert names_table() in page
