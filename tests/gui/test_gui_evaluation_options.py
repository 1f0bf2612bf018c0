"""``judge-app eval`` and the evaluation page bind to one declaration of each option
(``judge_app.option_declarations``): the parser's choices, defaults and help are the page's
items, defaults and tooltips, so that they cannot drift apart; an error raised below both
names its option, which the command line shows as its flag and the window as its label."""

from __future__ import annotations

import argparse
import re
from dataclasses import replace

import pytest
from PySide6.QtWidgets import QLabel

from judge_app.cli import _evaluation_options, _parser
from judge_app.cli import main as cli
from judge_app.commands.evaluate import evaluate
from judge_app.errors import UsageError
from judge_app.evaluation.options import EvaluationOptions, EvaluationRequest
from judge_app.gui.evaluation_view import EvaluationView
from judge_app.gui.option_controls import ChoiceBox, ChoiceCheck, tooltip_of
from judge_app.option_declarations import CUTOFF, DECLARED, EVALUATION, GRADES, label_of


def eval_actions() -> dict[str, argparse.Action]:
    """``eval``'s arguments by flag."""
    commands = next(
        action for action in _parser()._actions if isinstance(action, argparse._SubParsersAction)
    )
    return {
        flag: action
        for action in commands.choices["eval"]._actions
        for flag in action.option_strings
    }


@pytest.fixture
def view(qtbot) -> EvaluationView:
    page = EvaluationView()
    qtbot.addWidget(page)
    return page


def test_the_parser_and_the_page_take_each_options_declaration(view):
    actions = eval_actions()
    controls = {control.option.name: control for control in view.bound}
    assert set(controls) <= set(DECLARED)  # the page has no option of its own
    assert set(DECLARED) - set(controls) == {"judge"}  # chosen with whose grades
    for option in EVALUATION:
        action = actions[option.flag]
        assert action.help.startswith(option.help), option.name  # --help may add to it
        assert action.metavar == option.metavar
        if action.choices is not None:
            assert list(action.choices) == list(option.choices)
        control = controls.get(option.name)
        if control is None:
            continue
        assert control.toolTip() == tooltip_of(option)
        if isinstance(control, ChoiceCheck):
            assert control.text() == option.label
            assert [control.on, control.off] == list(option.choices)
        else:
            caption = control.parentWidget().findChild(QLabel)
            assert caption.text() == option.label.upper() and caption.buddy() is control
        if isinstance(control, ChoiceBox):
            items = {control.itemData(i): control.itemText(i) for i in range(control.count())}
            offered = option.choices if option is not GRADES else {"humans": "humans"}
            assert items == dict(offered)  # a rater's or a judge's own come with a campaign


def test_the_parser_and_the_page_default_to_the_declared_values(view):
    actions = eval_actions()
    for control in view.bound:
        option = control.option
        if option.name not in ("measures", "grades"):  # none typed; humans without a judge
            assert control.option_value() == option.default, option.name
        default = actions[option.flag].default
        assert default == option.default or (option is CUTOFF and default is None)
    command_line = _evaluation_options(_parser().parse_args(["eval"]))
    assert command_line.record() == view.options().record() == EvaluationOptions().record()


def test_a_value_chosen_on_the_page_is_the_command_lines(view):
    view.gain.setCurrentIndex(view.gain.findData("exponential"))
    view.k.setValue(0)
    view.adjudicated.setChecked(False)
    args = ["eval", "--gain", "exponential", "--k", "all", "--adjudicated", "ignore"]
    assert view.options().record() == _evaluation_options(_parser().parse_args(args)).record()
    kept = view.settings()
    again = EvaluationView()
    again.restore({key: str(value) for key, value in kept.items() if key not in ("runs", "raters")})
    assert again.options() == view.options()
    again.deleteLater()


def test_an_error_below_the_front_ends_is_worded_by_each(view, demo_db, capsys):
    assert cli(["eval", "--db", str(demo_db), "--run", "nosuch"]) == 2
    said = capsys.readouterr().err.strip()
    assert re.match(r"judge-app eval: --run: .* has no run 'nosuch' \(runs it has: ", said)

    request = EvaluationRequest.shown(replace(view.options(), runs=("nosuch",)))
    with pytest.raises(UsageError) as error:  # the same use case, asked as the window asks it
        evaluate(request, str(demo_db))
    assert error.value.option == "runs"
    view.failed(error.value)
    shown = view.status.text()
    assert shown.startswith(f"{label_of('runs')}: ") and "--run" not in shown
    assert shown.removeprefix("Runs") == said.split("--run", 1)[1]  # the message after it
