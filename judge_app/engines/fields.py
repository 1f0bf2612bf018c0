"""Where an engine's answer keeps its hits, and where each hit keeps the document's id, title,
URL, body and score: a path for each, in JMESPath (https://jmespath.org/specification.html,
the JSON query language of the AWS tools, through the ``jmespath`` package).

A path is dotted keys and list indexes (``_source.title``, ``highlight.body[0]``); a key that
is not a plain name is quoted (``_source."product.title"``); ``a || b`` takes ``b`` where
``a`` finds nothing; functions such as ``join(' ', authors[*].name)`` are there when needed.
``hits`` is read from the whole answer and must find a list; the other paths are read from
each hit. A list found for a text field (a Solr multi-valued field, highlight fragments) is
joined with `` … ``. Solr keeps highlighting beside the documents, keyed by id: each hit is
given its entry as ``highlight``, as Elasticsearch gives it, so ``highlight.body`` reads
either. Every engine has defaults (``DEFAULT_PATHS``); ``--field name=PATH`` changes one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import jmespath
from jmespath.exceptions import JMESPathError

from judge_app.errors import JudgeAppError, UsageError, quoted, shortened

ENGINES = ("elasticsearch", "opensearch", "solr", "http")
FIELDS = ("hits", "id", "title", "url", "body", "score")
_ELASTIC = {
    "hits": "hits.hits",
    "id": "_id",
    "title": "_source.title",
    "url": "_source.url",
    "body": "_source.body",
    "score": "_score",
}
DEFAULT_PATHS: dict[str, dict[str, str]] = {
    "elasticsearch": _ELASTIC,
    "opensearch": _ELASTIC,  # OpenSearch 2 answers _search as Elasticsearch 7 did
    "solr": {
        "hits": "response.docs",
        "id": "id",
        "title": "title",
        "url": "url",
        "body": "body",
        "score": "score",  # Solr gives it where asked: fl=*,score
    },
    "http": {
        "hits": "hits",
        "id": "id",
        "title": "title",
        "url": "url",
        "body": "body",
        "score": "score",
    },
}
JOINER = " … "


class MappingError(JudgeAppError):
    """An answer in which a path finds nothing it must find (the hits, a hit's id)."""


@dataclass(frozen=True)
class Hit:
    """One hit as judge_app keeps it: the document and the engine's score (None: none)."""

    doc_id: str
    title: str | None
    url: str | None
    body: str | None
    score: float | None

    def found(self) -> set[str]:
        """The fields this hit has."""
        values = {"title": self.title, "url": self.url, "body": self.body, "score": self.score}
        return {name for name, value in values.items() if value is not None}


@dataclass(frozen=True)
class FieldMapping:
    """The paths of one engine's answers: the engine's defaults, with ``given`` ones in
    their place (those a user named: a path of theirs that finds nothing in any hit is a
    mistake, a default's is only absent)."""

    engine: str
    given: dict[str, str] = field(default_factory=dict)

    def checked(self) -> FieldMapping:
        """This mapping, or a usage error naming the field or path that is wrong."""
        if self.engine not in ENGINES:
            raise UsageError(f"takes {', '.join(ENGINES)}, not {quoted(self.engine)}", "engine")
        for name, path in self.given.items():
            if name not in FIELDS:
                raise UsageError(
                    f"names no field {quoted(name)}: the fields are {', '.join(FIELDS)}", "field"
                )
            if not path.strip() and name in ("hits", "id"):
                raise UsageError(f"{name} needs a path: every hit has one", "field")
            if path.strip():
                _compiled(name, path)
        return self

    @property
    def paths(self) -> dict[str, str]:
        """Every field's path (an empty one: the field is not read)."""
        return DEFAULT_PATHS[self.engine] | {n: p.strip() for n, p in self.given.items()}

    def hits(self, answer: object) -> list[dict[str, Any]]:
        """The hits of ``answer``, each a JSON object (with its highlighting, for Solr)."""
        path = self.paths["hits"]
        found = _compiled("hits", path).search(answer)
        if not isinstance(found, list) or not all(isinstance(hit, dict) for hit in found):
            keys = ", ".join(answer) if isinstance(answer, dict) else type(answer).__name__
            raise MappingError(
                f"the hits path {quoted(path)} finds no list of hits in the answer "
                f"(its keys: {shortened(keys)})"
            )
        if self.engine == "solr" and isinstance(answer, dict):
            highlighting = answer.get("highlighting")
            if isinstance(highlighting, dict):
                found = [_with_highlight(hit, highlighting) for hit in found]
        return found

    def hit(self, position: int, hit: dict[str, Any]) -> Hit:
        """The document and score of the ``position``-th hit (from 1)."""
        paths = self.paths
        doc_id = _identifier(_compiled("id", paths["id"]).search(hit))
        if doc_id is None:
            raise MappingError(
                f"hit {position} has no document id at {quoted(paths['id'])} "
                f"(its keys: {shortened(', '.join(hit))})"
            )
        texts = {name: _text(self._read(name, hit)) for name in ("title", "url", "body")}
        return Hit(
            doc_id, texts["title"], texts["url"], texts["body"], _score(self._read("score", hit))
        )

    def _read(self, name: str, hit: dict[str, Any]) -> object:
        path = self.paths[name]
        return _compiled(name, path).search(hit) if path else None

    def unfound(self, found: set[str]) -> list[str]:
        """The fields whose path, one the user gave, found nothing in any hit (``found``:
        the fields some hit had), as ``name=PATH``."""
        return [
            f"{name}={path.strip()}"
            for name, path in self.given.items()
            if name in ("title", "url", "body", "score") and path.strip() and name not in found
        ]

    def described(self) -> str:
        """The paths as a line: ``hits=hits.hits, id=_id, …``."""
        return ", ".join(f"{name}={path or '(not read)'}" for name, path in self.paths.items())


def parse_fields(given: list[str] | tuple[str, ...]) -> dict[str, str]:
    """``--field name=PATH`` options as a mapping (a usage error for one without ``=``)."""
    paths: dict[str, str] = {}
    for item in given:
        name, equals, path = item.partition("=")
        if not equals:
            raise UsageError(f"takes NAME=PATH (title=_source.name), not {quoted(item)}", "field")
        if name.strip() in paths:
            raise UsageError(f"gives {name.strip()} twice", "field")
        paths[name.strip()] = path
    return paths


_COMPILED: dict[str, Any] = {}


def _compiled(name: str, path: str) -> Any:
    """The compiled JMESPath ``path`` (a usage error naming the field if it is none)."""
    if path not in _COMPILED:
        try:
            _COMPILED[path] = jmespath.compile(path)
        except JMESPathError as error:
            reason = str(error).splitlines()[0]
            raise UsageError(f"{name}={quoted(path)} is no path: {reason}", "field") from None
    return _COMPILED[path]


def _with_highlight(hit: dict[str, Any], highlighting: dict[str, Any]) -> dict[str, Any]:
    """A Solr document with its highlighting (keyed by its id) as ``highlight``."""
    entry = highlighting.get(str(hit.get("id")))
    if entry is None or "highlight" in hit:
        return hit
    return {**hit, "highlight": entry}


def _identifier(value: object) -> str | None:
    """A document id found: a non-empty string or a whole number, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def _text(value: object) -> str | None:
    """A text field found: a string, a number as written, a list of them joined."""
    if isinstance(value, list):
        parts = [part for part in map(_text, value) if part]
        return JOINER.join(parts) if parts else None
    if isinstance(value, bool) or value is None or isinstance(value, dict):
        return None
    text = str(value)
    return text if text.strip() else None


def _score(value: object) -> float | None:
    """A score found: a finite number, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        score = float(value)
    except ValueError:
        return None
    return score if math.isfinite(score) else None
