"""A work-around for a defect of the Qt binding that would crash the judging window.

PySide6 6.12.0 on CPython before 3.12 gets the reference counts of Python's singletons wrong:
every void method (``setText``, ``hide``, ...) and every invalid ``QVariant`` returns ``None``
without taking a reference to it, and a signal carrying ``False`` to a Python slot drops a
reference to ``True``. A judging session makes about 200 such calls per grade; after a few
thousand the count reaches zero and the interpreter aborts ("Fatal Python error:
none_dealloc" or "bool_dealloc"), mid-session or at exit. CPython 3.12 made these objects
immortal (PEP 683), where the defect does no harm.

``protect_singletons()`` gives ``None``, ``True`` and ``False`` a reserve of references no
session can use up, as CPython 3.12 does for every immortal object. It runs once, on the main
thread, when ``judge_app.gui`` is imported, before any widget or thread exists.
"""

from __future__ import annotations

import ctypes
import sys

# 2**40 references each: billions of grades' worth of lost references, far below 2**63
RESERVE = 1 << 40
SINGLETONS = (None, True, False)


def needs_protection() -> bool:
    """Does this interpreter count references to None, True and False (CPython < 3.12)?"""
    return sys.implementation.name == "cpython" and sys.version_info < (3, 12)


def protect_singletons() -> None:
    """Raise the reference counts of None, True and False by ``RESERVE``, once."""
    if not needs_protection():
        return
    for singleton in SINGLETONS:
        if sys.getrefcount(singleton) < RESERVE:
            # ob_refcnt is the first field of every CPython object, a Py_ssize_t
            ctypes.c_ssize_t.from_address(id(singleton)).value += RESERVE
