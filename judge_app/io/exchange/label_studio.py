"""Label Studio's JSON tasks (labelstud.io/guide/task_format): a list of tasks, each with
its ``data`` (here a query and a document), the raters' ``annotations`` and a model's
``predictions``. An import reads the annotations: the grade from a ``choices`` result (or a
``rating``), the note from a ``textarea``, a cancelled (skipped) annotation as skipped, the
rater from ``completed_by``, its time and ``lead_time``. An export writes a task per pair a
run retrieved or a rater judged, with each rater's judgment as an annotation and the grade
combined as a prediction, for the labeling configuration in docs/formats.md."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

from judge_app.io.exchange.campaign import Campaign, Judgment, Written
from judge_app.io.exchange.items import JsonDocumentFile, Where, cell
from judge_app.io.outputs import output_file

DATA_KEYS = {
    "query_id": ("query_id", "qid"),
    "query": ("query", "query_text"),
    "description": ("description",),
    "doc_id": ("doc_id", "docid", "document_id"),
    "title": ("title",),
    "url": ("url",),
    "body": ("text", "body"),
}
GRADE_FROM, NOTE_FROM, TO = "grade", "note", "document"
KEPT_ANNOTATION = {"result", "completed_by", "was_cancelled", "lead_time", "created_at"}
QUIET_ANNOTATION = {"id", "task", "updated_at", "result_count", "project", "parent_prediction",
                    "parent_annotation", "last_action", "last_created_by", "unique_id",
                    "import_id", "ground_truth", "updated_by", "bulk_created"}  # fmt: skip


class TasksFile(JsonDocumentFile):
    """A Label Studio export's queries, documents or annotations (as judgments)."""

    rater_fallback = True
    labels = {"rater": "completed_by", "skipped": "was_cancelled"}

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(path, kind)
        tasks = self.data if isinstance(self.data, list) else []
        first = next((task.get("data") for task in tasks if isinstance(task, dict)), None)
        self.queries_by_text = not (isinstance(first, dict) and _value(first, "query_id"))

    def rows(self) -> Iterator[tuple[Where, dict[str, str]]]:
        if not self.expect(self.data, list, (), "a Label Studio export (a list of tasks)"):
            return
        seen: set[str] = set()
        for index, task in enumerate(self.data):
            where = (index,)
            if not self.expect(task, dict, where, "a task"):
                continue
            data = task.get("data")
            if not self.expect(data, dict, (index, "data"), "a task's data"):
                continue
            fields = {
                ours: cell(self, _value(data, ours), (index, "data"), ours) for ours in DATA_KEYS
            }
            query_id = fields["query" if self.queries_by_text else "query_id"].strip()
            if self.kind == "queries" and query_id not in seen and fields["query"]:
                seen.add(query_id)
                yield where, {"query_id": query_id, "text": fields["query"],
                              "description": fields["description"]}  # fmt: skip
            elif self.kind == "documents" and fields["doc_id"] not in seen:
                seen.add(fields["doc_id"])
                yield where, {"doc_id": fields["doc_id"], "title": fields["title"],
                              "url": fields["url"], "body": fields["body"]}  # fmt: skip
            elif self.kind == "judgments":
                self._count_task(task)
                for number, annotation in enumerate(task.get("annotations") or []):
                    at = (index, "annotations", number)
                    if self.expect(annotation, dict, at, "an annotation"):
                        row = self._annotation(annotation, at)
                        yield at, row | {"query_id": query_id, "doc_id": fields["doc_id"],
                                         "query_text": fields["query"]}  # fmt: skip

    def _count_task(self, task: dict) -> None:
        if task.get("predictions"):
            self.not_kept["predictions (a model's, not a rater's)"] += len(task["predictions"])
        if task.get("drafts"):
            self.not_kept["drafts"] += len(task["drafts"])

    def _annotation(self, annotation: dict, at: Where) -> dict[str, str]:
        for key, value in annotation.items():
            if key not in KEPT_ANNOTATION | QUIET_ANNOTATION and value not in (None, "", [], {}):
                self.not_kept[f"annotation {key}"] += 1
        if annotation.get("ground_truth"):
            self.not_kept["ground_truth flags"] += 1
        grade, notes = "", []
        results = annotation.get("result") or []
        for result in results if isinstance(results, list) else ():
            value = result.get("value") if isinstance(result, dict) else None
            kind = result.get("type") if isinstance(result, dict) else None
            if kind == "choices" and isinstance(value, dict) and value.get("choices"):
                choices = value["choices"]
                if grade or len(choices) > 1:
                    self.not_kept["choices after the first"] += len(choices) - (not grade)
                grade = grade or cell(self, choices[0], at, "choices")
            elif kind == "rating" and isinstance(value, dict) and not grade:
                grade = cell(self, value.get("rating"), at, "rating")
            elif kind == "textarea" and isinstance(value, dict):
                notes += [str(text) for text in value.get("text") or []]
            else:
                self.not_kept[f"results of type {kind}"] += 1
        rater = annotation.get("completed_by")
        if isinstance(rater, dict):
            rater = rater.get("email") or rater.get("id")
        cancelled = annotation.get("was_cancelled") is True
        if cancelled and grade:
            self.not_kept["grades of cancelled annotations"] += 1
        lead = annotation.get("lead_time")
        return {
            "rater": cell(self, rater, at, "completed_by"),
            "grade": "" if cancelled else grade,
            "skipped": "true" if cancelled else "false",
            "note": "\n".join(notes),
            "judged_at": cell(self, annotation.get("created_at"), at, "created_at"),
            "duration_ms": str(round(lead * 1000)) if isinstance(lead, (int, float)) else "",
        }


def _value(data: dict, ours: str) -> object:
    return next((data[key] for key in DATA_KEYS[ours] if key in data), None)


def write_tasks(campaign: Campaign, path: Path) -> Written:
    """A task per pair, with the raters' annotations and the combined grade predicted."""
    judged: dict[tuple[str, str], list[Judgment]] = defaultdict(list)
    for judgment in campaign.judgments:
        judged[(judgment.query_id, judgment.doc_id)].append(judgment)
    combined = {(q, d): grade for q, d, grade in campaign.grades}
    lost: Counter[str] = Counter()
    tasks = []
    for pair in dict.fromkeys([*campaign.pairs, *judged]):
        task: dict = {"data": _data(campaign, *pair)}
        if judged[pair]:
            task["annotations"] = [_annotation(judgment) for judgment in judged[pair]]
        grade = combined.get(pair)
        if grade is not None and float(grade).is_integer():
            model = f"judge_app {campaign.aggregate}"
            task["predictions"] = [{"model_version": model, "result": [_choice(int(grade))]}]
        elif grade is not None:
            lost["combined grades that are not whole (no prediction)"] += 1
        tasks.append(task)
    with output_file(path, newline="\n") as handle:
        json.dump(tasks, handle, ensure_ascii=False, indent=1)
        handle.write("\n")
    return Written(len(tasks), "tasks", lost)


def _data(campaign: Campaign, query_id: str, doc_id: str) -> dict[str, str]:
    text, description = campaign.queries.get(query_id, (None, None))
    title, url, body = campaign.documents.get(doc_id, (None, None, None))
    data = {"query_id": query_id, "query": text if text is not None else query_id,
            "description": description, "doc_id": doc_id, "title": title, "url": url,
            "text": body}  # fmt: skip
    return {key: value for key, value in data.items() if value is not None}


def _choice(grade: int) -> dict:
    return {"from_name": GRADE_FROM, "to_name": TO, "type": "choices",
            "value": {"choices": [str(grade)]}}  # fmt: skip


def _annotation(judgment: Judgment) -> dict:
    result = [] if judgment.grade is None else [_choice(judgment.grade)]
    if judgment.note is not None:
        result.append({"from_name": NOTE_FROM, "to_name": TO, "type": "textarea",
                       "value": {"text": [judgment.note]}})  # fmt: skip
    annotation: dict = {"completed_by": {"email": judgment.rater}, "result": result,
                        "was_cancelled": judgment.skipped}  # fmt: skip
    if judgment.judged_at is not None:
        annotation["created_at"] = judgment.judged_at
    if judgment.duration_ms is not None:
        annotation["lead_time"] = judgment.duration_ms / 1000
    return annotation
