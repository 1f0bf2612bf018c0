"""JSON as every reader takes it: a number JSON cannot hold (infinite, or not a number) is
written ``null``, never the ``Infinity`` or ``NaN`` that Python's json module would write and
strict readers refuse (issue 31)."""

from __future__ import annotations

import json
import math


def json_document(document: object, *, indent: int | None = None) -> str:
    """``document`` as JSON text and a line end, non-finite numbers as ``null``."""
    return json.dumps(finite(document), ensure_ascii=False, allow_nan=False, indent=indent) + "\n"


def finite(value: object) -> object:
    """``value`` with every float that is not finite, at any depth, replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value
