"""The request template (placeholders, escaping, the mistakes it names with their line) and
the mapping of an answer's hits (JMESPath paths, each engine's defaults, Solr's highlighting
keyed by id, lists joined, ids and scores as engines write them); and the command line's
``fetch`` end to end, with its bad input refused before anything is sent."""

from __future__ import annotations

from contextlib import redirect_stderr, redirect_stdout
from io import StringIO

import pytest
from engine_server import Status
from fetch_support import ELASTIC_TEMPLATE, campaign, stored, stored_results

from judge_app.cli import main as cli
from judge_app.commands.fetch import DEFAULT_TEMPLATES, FetchOptions
from judge_app.engines.client import authorization, error_text
from judge_app.engines.fields import FieldMapping, MappingError, parse_fields
from judge_app.engines.template import RequestTemplate, TemplateError
from judge_app.errors import UsageError


def test_placeholders_are_filled_inside_json_strings_and_depth_as_a_number():
    template = RequestTemplate('{"q": "{query}", "id": "{query_id}", "size": {depth}}').checked()
    assert template.body('a "b" \\ c\nd', "q/1", 25) == {
        "q": 'a "b" \\ c\nd',
        "id": "q/1",
        "size": 25,
    }


@pytest.mark.parametrize("engine", ["elasticsearch", "opensearch", "solr", "http"])
def test_every_default_template_is_a_template(engine):
    assert RequestTemplate(DEFAULT_TEMPLATES[engine]).checked().asks_depth


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"size": {depth}}', "search.json: has no {query} placeholder"),
        (
            '{\n  "q": "{query}",\n  "x": "{qeury}"\n}',
            "search.json line 3: unknown placeholder '{qeury}'",
        ),
        ('{\n  "q": {query}\n}', "search.json line 2: not JSON once the placeholders are filled"),
        ('{"q": "{query}",}', "search.json line 1: not JSON once the placeholders are filled"),
        ('["{query}"]', "search.json: the body must be a JSON object"),
    ],
)
def test_a_template_s_mistake_is_named_with_its_line(text, message):
    with pytest.raises(TemplateError) as raised:
        RequestTemplate(text, "search.json").checked()
    assert str(raised.value).startswith(message)


def test_a_template_file_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "t.json"
    path.write_bytes(b'{"q": "{query}\xff"}')
    with pytest.raises(TemplateError, match=r"t.json: not UTF-8 text"):
        RequestTemplate.read(path)


def test_elasticsearch_defaults_read_a_hit():
    mapping = FieldMapping("elasticsearch").checked()
    answer = {
        "hits": {
            "hits": [
                {"_id": "a", "_score": 1.5, "_source": {"title": "T", "url": "U", "body": "B"}}
            ]
        }
    }
    (hit,) = mapping.hits(answer)
    found = mapping.hit(1, hit)
    assert (found.doc_id, found.title, found.url, found.body, found.score) == (
        "a",
        "T",
        "U",
        "B",
        1.5,
    )


def test_solr_highlighting_is_given_to_each_hit_by_its_id():
    mapping = FieldMapping("solr", {"body": "highlight.body"}).checked()
    answer = {
        "response": {"docs": [{"id": "a", "title": ["T"]}, {"id": "b"}]},
        "highlighting": {"a": {"body": ["x <em>y</em>", "z"]}, "b": {}},
    }
    hits = [mapping.hit(n, hit) for n, hit in enumerate(mapping.hits(answer), start=1)]
    assert [(h.doc_id, h.title, h.body, h.score) for h in hits] == [
        ("a", "T", "x <em>y</em> … z", None), ("b", None, None, None),
    ]  # fmt: skip


@pytest.mark.parametrize(
    "value, doc_id",
    [("a", "a"), (17, "17"), (" b ", "b"), (True, None), (1.5, None), ("", None), (None, None)],
)
def test_an_id_is_a_string_or_a_whole_number(value, doc_id):
    mapping = FieldMapping("http")
    if doc_id is None:
        with pytest.raises(MappingError, match="hit 4 has no document id at 'id'"):
            mapping.hit(4, {"id": value})
    else:
        assert mapping.hit(4, {"id": value}).doc_id == doc_id


@pytest.mark.parametrize(
    "value, score",
    [(2, 2.0), ("2.5", 2.5), ("x", None), (float("nan"), None), (True, None), ([1], None)],
)
def test_a_score_is_a_finite_number(value, score):
    assert FieldMapping("http").hit(1, {"id": "a", "score": value}).score == score


def test_an_empty_path_reads_nothing_and_the_mapping_says_its_paths():
    mapping = FieldMapping("elasticsearch", {"body": "", "title": "_source.name"}).checked()
    assert mapping.hit(1, {"_id": "a", "_source": {"name": "N", "body": "B"}}).body is None
    assert mapping.described() == (
        "hits=hits.hits, id=_id, title=_source.name, url=_source.url, body=(not read), score=_score"
    )


@pytest.mark.parametrize(
    "engine, fields, message",
    [
        ("elastic", {}, "takes elasticsearch, opensearch, solr, http, not 'elastic'"),
        ("solr", {"titel": "x"}, "names no field 'titel'"),
        ("solr", {"id": ""}, "id needs a path"),
        ("solr", {"title": "a["}, "title='a[' is no path: "),
    ],
)
def test_a_wrong_engine_or_path_is_a_usage_error(engine, fields, message):
    with pytest.raises(UsageError) as raised:
        FieldMapping(engine, fields).checked()
    assert message in str(raised.value)


def test_fields_are_given_as_name_equals_path():
    assert parse_fields(["title=_source.name", "url="]) == {"title": "_source.name", "url": ""}
    with pytest.raises(UsageError, match="takes NAME=PATH"):
        parse_fields(["title"])
    with pytest.raises(UsageError, match="gives title twice"):
        parse_fields(["title=a", "title=b"])


def test_credentials_become_an_authorization_header():
    assert authorization("ApiKey abc==") == "ApiKey abc=="
    assert authorization("elastic:changeme") == "Basic ZWxhc3RpYzpjaGFuZ2VtZQ=="
    assert authorization("") is None and authorization(None) is None
    with pytest.raises(UsageError, match="holds neither"):
        authorization("justatoken")


def test_error_bodies_are_said_in_the_engines_words():
    elastic = (
        b'{"error": {"root_cause": [{"type": "t", "reason": "r"}], "type": "t2"}, "status": 400}'
    )
    assert error_text(elastic) == ": t: r"
    assert (
        error_text(b'{"error": {"msg": "undefined field x", "code": 400}}') == ": undefined field x"
    )
    assert error_text(b'{"message": "nope"}') == ": nope" and error_text(b"") == ""
    assert error_text(b"<html>Bad Gateway</html>") == ": <html>Bad Gateway</html>"


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"url": "localhost:9200"}, "url takes the engine's search address"),
        ({"depth": 0}, "depth takes a whole number from 1 to 10000"),
        ({"rate": -1.0}, "rate takes requests a second from 0 (no limit) to 1000"),
        ({"auth_env": "MY-VAR"}, "auth-env takes the name of an environment variable"),
        ({"run_name": "  "}, "run-name needs a name"),
    ],
)
def test_options_are_checked(changes, message):
    values = {"engine": "elasticsearch", "url": "http://localhost:9200/i/_search"} | changes
    with pytest.raises(UsageError) as raised:
        FetchOptions(**values).checked()
    assert str(raised.value).startswith(message)


def run_cli(*args: str) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli(["fetch", *args])
    return code, out.getvalue(), err.getvalue()


def test_the_command_line_end_to_end(engine_server, tmp_path):
    path = campaign(tmp_path)
    template = tmp_path / "search.json"
    template.write_text(ELASTIC_TEMPLATE, encoding="utf-8")
    base = [str(path), "--url", engine_server.url, "--template", str(template), "--rate", "0"]
    code, out, err = run_cli(*base, "--depth", "2", "--run-name", "bm25 live", "--queries", "q1,q3")
    assert (code, err) == (0, "")
    assert out == 'run "bm25 live": 3 results for 2 queries; 3 documents new\n'
    assert [row[1:4] for row in stored_results(path)] == [
        ("q1", "d1", 1),
        ("q1", "d2", 2),
        ("q3", "d3", 1),
    ]
    engine_server.script["tomato"] = [Status(400)]
    code, out, _ = run_cli(*base, "--run-name", "again", "--backoff", "0")
    assert code == 1 and out.endswith(
        "1 queries failed: q2 (HTTP 400: parsing_exception: unknown query [matc])\n"
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--engine", "elastic"],
            "--engine takes elasticsearch, opensearch, solr, http, not 'elastic'",
        ),
        (["--field", "titel=x"], "--field names no field 'titel'"),
        (["--queries", "q1,q9"], "--queries: the database has no query 'q9'"),
        (["--template", "missing.json"], "No such file or directory"),
    ],
)
def test_bad_input_is_refused_before_anything_is_sent(
    engine_server, tmp_path, monkeypatch, args, message
):
    monkeypatch.chdir(tmp_path)
    path = campaign(tmp_path)
    code, _, err = run_cli(str(path), "--url", engine_server.url, *args)
    assert code in (1, 2) and message in err
    assert engine_server.seen == [] and stored(path, "SELECT * FROM run") == []


def test_a_template_file_s_mistake_names_the_file_and_line(engine_server, tmp_path):
    path = campaign(tmp_path)
    template = tmp_path / "search.json"
    template.write_text('{\n  "query": {"match": {"body": {query}}}\n}', encoding="utf-8")
    code, _, err = run_cli(str(path), "--url", engine_server.url, "--template", str(template))
    assert code == 1 and f"{template} line 2: not JSON once the placeholders are filled" in err
    assert engine_server.seen == []


def test_show_template_prints_the_engine_s_default():
    code, out, _ = run_cli("--engine", "solr", "--show-template")
    assert code == 0 and out == DEFAULT_TEMPLATES["solr"]
