"""The Qt binding's check at start: a PySide6 release known to crash on this Python is refused.

PySide6 6.12.0 on CPython before 3.12 drops a reference to ``None`` on every void call
(``setText``, ``hide``, ...) and to ``True`` on every signal carrying ``False``; after a few
thousand calls the count reaches zero and the interpreter aborts ("Fatal Python error:
none_dealloc" or "bool_dealloc"), mid-session. CPython 3.12 made these objects immortal
(PEP 683), where the defect does no harm. pyproject.toml keeps pip from installing such a
release; this check stops an environment that has one anyway before a grade can be lost.
"""

from __future__ import annotations

import sys

import PySide6

from judge_app.errors import JudgeAppError

# PySide6 releases that lose references to None, True and False: the first CPython (major,
# minor) on which each is safe.
LOSES_REFERENCES = {"6.12.0": (3, 12)}
# the full PySide6 and its add-ons share files with the essentials: out first, then reinstalled
REINSTALL = (
    "pip uninstall -y PySide6 PySide6-Addons PySide6-Pdf PySide6-WebEngine PySide6-Essentials "
    "shiboken6 && pip install 'PySide6-Essentials>=6.6,!=6.12.0'"
)


class QtBindingError(JudgeAppError):
    """The installed PySide6 cannot run the window on this Python."""


def binding_problem(pyside_version: str, python_version: tuple[int, ...]) -> str | None:
    """Why PySide6 ``pyside_version`` cannot run judge_app on CPython ``python_version``, or
    None when it can."""
    safe_from = LOSES_REFERENCES.get(pyside_version)
    if safe_from is None or tuple(python_version[:2]) >= safe_from:
        return None
    python = ".".join(map(str, python_version[:2]))
    return (
        f"PySide6 {pyside_version} loses references to None on Python {python}: the window "
        f"would abort after a few thousand actions. Reinstall the Qt binding without that "
        f"release: {REINSTALL} (or use Python {'.'.join(map(str, safe_from))} or newer)."
    )


def check_binding() -> None:
    """Raise QtBindingError if the installed PySide6 is known to crash on this Python."""
    if sys.implementation.name != "cpython":
        return
    problem = binding_problem(PySide6.__version__, sys.version_info[:2])
    if problem:
        raise QtBindingError(problem)
