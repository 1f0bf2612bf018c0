"""How far a pairwise judge (``judge-app autojudge-pairs``) agrees with the human raters'
preferences (``judge-app preferences calibrate``): the figures of
``automatic_judges.pair_calibration``, read in one snapshot. Nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass

from judge_app.automatic_judges.pair_calibration import PairCalibration, pair_calibration
from judge_app.errors import UsageError
from judge_app.names import normal_id
from judge_app.store import automatic
from judge_app.store.auto_preferences import auto_preferences_frame
from judge_app.store.database import Database, opened
from judge_app.store.preferences import preferences_frame


@dataclass(frozen=True)
class PairCalibrationOptions:
    """Which automatic ``judge``'s preferences to compare with the humans'."""

    judge: str

    def checked(self) -> PairCalibrationOptions:
        """These options, or a usage error naming the first that is wrong."""
        if not normal_id(self.judge):
            raise UsageError("needs the name of an automatic judge", "judge")
        return self


def calibrate_pairs(database: Database | str, options: PairCalibrationOptions) -> PairCalibration:
    """The calibration of ``options.judge``'s preferences against the humans' of
    ``database`` (an open one, or a path or URL, opened read-only); a usage error when the
    judge does not exist or has answered no pair."""
    options = options.checked()
    with opened(database, read_only=True) as found, found.reading() as session:
        judge = automatic.judge(session, normal_id(options.judge), found.describe())
        answers = auto_preferences_frame(session, judge.rater_id)
        humans = preferences_frame(session)
    if answers.empty:
        raise UsageError(
            f": the automatic judge {judge.name!r} has answered no pair "
            "(judge-app autojudge-pairs asks a model)",
            "judge",
        )
    return pair_calibration(judge.name, humans, answers)
