"""The error trec_eval would stop at, with the exit status it would stop with."""

from __future__ import annotations

from judge_app.errors import JudgeAppError

USAGE = 1  # trec_eval's status for a wrong command line or an unknown measure
INPUT = 2  # a file it cannot read, or parameters a measure refuses
EVALUATION = 4  # a judged query without results, a document twice in one query


class TrecEvalError(JudgeAppError):
    """What makes ``judge-app trec-eval`` stop as trec_eval would, and its exit ``status``."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status
