"""JSON as every reader takes it: a number JSON cannot hold (infinite, or not a number) is
written ``null``, never the ``Infinity`` or ``NaN`` that Python's json module would write and
strict readers refuse (issue 31)."""

from __future__ import annotations

import json
import math


def json_document(document: object, *, indent: int | None = None) -> str:
    """``document`` as JSON text and a line end, non-finite numbers as ``null`` (looked for
    only when the json module finds one: most documents have none)."""
    try:
        text = json.dumps(document, ensure_ascii=False, allow_nan=False, indent=indent)
    except ValueError:
        text = json.dumps(finite(document), ensure_ascii=False, allow_nan=False, indent=indent)
    return text + "\n"


def finite(value: object) -> object:
    """``value`` with every float that is not finite, at any depth, replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value
