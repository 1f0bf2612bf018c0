"""JSON that strict readers take (issue 31, item 8): a number JSON cannot hold is written
null, never Infinity or NaN, by every JSON writer."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from judge_app.cli import main as cli
from judge_app.commands.evaluate import evaluate
from judge_app.evaluation.options import EvaluationRequest
from judge_app.writers.evaluation import json_text
from judge_app.writers.json_document import finite, json_document


def strict(text: str) -> object:
    """``text`` read as JSON by a reader that refuses Infinity and NaN."""

    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_a_number_json_cannot_hold_is_null_at_any_depth():
    document = {"a": math.inf, "b": [1.5, -math.inf, {"c": math.nan}], "d": (np.float64("inf"),)}
    assert finite(document) == {"a": None, "b": [1.5, None, {"c": None}], "d": [None]}
    assert strict(json_document(document)) == {
        "a": None,
        "b": [1.5, None, {"c": None}],
        "d": [None],
    }


def test_an_infinite_value_of_a_query_is_null_in_eval_json(tmp_path, capsys):
    path = tmp_path / "demo.sqlite"
    assert cli(["demo", str(path)]) == 0
    result = evaluate(EvaluationRequest(), str(path))
    evaluation = next(iter(result.evaluations.values()))
    measure = next(iter(evaluation.values))
    evaluation.values[measure][0] = np.inf  # as a measure of a degenerate query may be
    document = strict(json_text(result))
    first = document["runs"][0]["queries"][0]
    assert first[measure] is None


@pytest.mark.parametrize("command", [["eval", "--db"], ["agreement", "--db"], ["raters"]])
def test_every_json_command_writes_strict_json(tmp_path, capsys, command):
    path = tmp_path / "demo.sqlite"
    assert cli(["demo", str(path)]) == 0
    capsys.readouterr()
    assert cli([*command, str(path), "--format", "json"]) == 0
    strict(capsys.readouterr().out)
