"""A request template: the JSON body sent for each query, with placeholders.

``{query}`` is the query's text and ``{query_id}`` its id, both written inside a JSON string
(escaped as JSON escapes them: quotes, backslashes, newlines); ``{depth}`` is the number of
hits asked for, written as a number (``"size": {depth}``). Anything else in braces that looks
like a placeholder (``{qeury}``) is a mistake, named with its line. The body is the engine's
own: Elasticsearch's or OpenSearch's query DSL, the body of Solr's JSON Request API (whose
``params`` take any request parameter: ``q``, ``defType``, ``qf``, ``fl``, ``hl``, ``rows``),
or any JSON an HTTP service takes. A template is checked once, filled with a made-up query
that needs escaping, before anything is sent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge_app.errors import JudgeAppError, quoted

PLACEHOLDERS = ("query", "query_id", "depth")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_PROBE = 'a "quoted" query \\ with\ttabs'
"""The query a template is checked with: one that breaks a template that does not escape."""


class TemplateError(JudgeAppError):
    """A request template that cannot make a request: the message names where and why."""


@dataclass(frozen=True)
class RequestTemplate:
    """A checked template's ``text`` and the ``source`` it came from (a file's path, or a
    name the window gives it), as messages name it."""

    text: str
    source: str = "the template"

    @classmethod
    def read(cls, path: Path) -> RequestTemplate:
        """The checked template in the UTF-8 file at ``path``."""
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            raise TemplateError(f"{path}: not UTF-8 text") from None
        return cls(text, str(path)).checked()

    def checked(self) -> RequestTemplate:
        """This template, or a TemplateError naming the first mistake and its line."""
        for match in _PLACEHOLDER.finditer(self.text):
            if match.group(1) not in PLACEHOLDERS:
                raise TemplateError(
                    f"{self._where(match.start())}: unknown placeholder {quoted(match.group())}; "
                    f"the placeholders are {', '.join('{' + n + '}' for n in PLACEHOLDERS)}"
                )
        if "{query}" not in self.text:
            raise TemplateError(
                f"{self.source}: has no {{query}} placeholder: every query would send the "
                "same request"
            )
        self.body(_PROBE, "probe-1", 10)
        return self

    @property
    def asks_depth(self) -> bool:
        """Whether the template asks the engine for ``{depth}`` hits."""
        return "{depth}" in self.text

    def body(self, query: str, query_id: str, depth: int) -> dict[str, Any]:
        """The JSON body for one query (a TemplateError if the filled text is no JSON
        object: the line of the template is named; filling adds no line)."""
        values = {
            "query": _in_string(query),
            "query_id": _in_string(query_id),
            "depth": str(depth),
        }
        filled = _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group()), self.text)
        try:
            parsed = json.loads(filled)
        except json.JSONDecodeError as error:
            raise TemplateError(
                f"{self.source} line {error.lineno}: not JSON once the placeholders are "
                f'filled: {error.msg} (write {{query}} inside quotes: "{{query}}")'
            ) from None
        if not isinstance(parsed, dict):
            raise TemplateError(f"{self.source}: the body must be a JSON object {{…}}")
        return parsed

    def _where(self, offset: int) -> str:
        return f"{self.source} line {self.text.count(chr(10), 0, offset) + 1}"


def _in_string(text: str) -> str:
    """``text`` as it stands between the quotes of a JSON string."""
    return json.dumps(text, ensure_ascii=False)[1:-1]
