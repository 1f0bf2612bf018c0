"""The Qt binding: the installed PySide6 keeps its references, and a release known to lose
them on this Python is refused at start with what to install."""

from __future__ import annotations

import os
import subprocess
import sys

import PySide6
import pytest

from judge_app.cli import main

# 60,000 void calls and 60,000 signals carrying False, with no work-around in the process
VOID_CALLS = """
import sys
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication([])
label = QLabel()
class Sender(QObject):
    said = Signal(str, bool)
sender = Sender()
sender.said.connect(lambda text, flag: None)
before = sys.getrefcount(None), sys.getrefcount(True)
for _ in range(60_000):
    label.setText("x")
    sender.said.emit("x", False)
print(sys.getrefcount(None) - before[0], sys.getrefcount(True) - before[1])
"""


def test_the_installed_binding_does_not_lose_references_to_none_true_and_false():
    """PySide6 6.12.0 on CPython 3.11 drops a reference to None on every void call and to
    True on every signal carrying False: this process then aborts ("Fatal Python error:
    none_dealloc" or "bool_dealloc"). pyproject.toml keeps that release out."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", VOID_CALLS], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, f"PySide6 {PySide6.__version__}: {done.stderr[-2000:]}"
    lost_none, lost_true = map(int, done.stdout.split())
    assert lost_none > -100 and lost_true > -100, (PySide6.__version__, lost_none, lost_true)


@pytest.mark.parametrize(
    ("pyside", "python", "refused"),
    [
        ("6.12.0", (3, 11, 7), True),
        ("6.12.0", (3, 12, 0), False),
        ("6.12.0", (3, 13, 1), False),
        ("6.11.3", (3, 11, 7), False),
        ("6.12.1", (3, 11, 7), False),
    ],
)
def test_only_a_release_known_to_lose_references_is_refused(pyside, python, refused):
    # imported here, not above: importing judge_app.gui runs the check, which would keep the
    # first test from running (and showing the abort) under a bad release
    from judge_app.gui import binding

    problem = binding.binding_problem(pyside, python)
    assert (problem is not None) == refused
    if refused:
        assert f"PySide6 {pyside}" in problem and "Python 3.11" in problem
        assert "pip install 'PySide6-Essentials>=6.6,!=6.12.0'" in problem
        assert "Python 3.12 or newer" in problem


def test_the_window_refuses_a_bad_binding_with_exit_code_1(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(PySide6, "__version__", "6.12.0")
    monkeypatch.setattr(sys, "version_info", (3, 11, 7, "final", 0))
    monkeypatch.delitem(sys.modules, "judge_app.gui", raising=False)  # imported again: checked
    assert main(["gui", str(tmp_path / "campaign.sqlite")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("judge-app gui: PySide6 6.12.0 loses references to None on Python 3.11")
    assert "pip install 'PySide6-Essentials>=6.6,!=6.12.0'" in err
    assert not (tmp_path / "campaign.sqlite").exists()
