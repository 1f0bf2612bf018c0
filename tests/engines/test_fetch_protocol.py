"""``judge-app fetch`` against an engine on 127.0.0.1 that answers as Elasticsearch 8,
OpenSearch 2 and Solr 9 document their answers (tests/engine_server.py cites the pages): the
request each query sends, the hits mapped to documents and results, highlights, the engines'
error bodies, 429 with Retry-After, timeouts, a dropped connection, a redirect to another host
(which must not carry the credentials), the pace of requests on an injected clock, cancel,
and a query that fails among others that do not. No test reads the wall clock."""

from __future__ import annotations

import sqlite3

import pytest
from engine_server import DOCUMENTS, Drop, EngineServer, Raw, Redirect, Sleep, Status
from fetch_support import (
    ELASTIC_TEMPLATE,
    QUERIES,
    FakeTime,
    campaign,
    database_bytes,
    fetched,
    stored,
    stored_results,
)

from judge_app.commands.fetch import FetchError, FetchOptions, fetch
from judge_app.engines.client import EngineError
from judge_app.engines.template import RequestTemplate

SECRET = "s3cr3t-pa55"
ENGINES = ("elasticsearch", "opensearch", "solr")


@pytest.fixture(params=ENGINES)
def engine(request):
    """An engine of each kind on 127.0.0.1, stopped after the test."""
    server = EngineServer(kind=request.param).start()
    yield server
    server.stop()


def expected(server: EngineServer, depth: int = 3) -> list[tuple]:
    """The run the engine's own ranking makes of the campaign's queries."""
    return [
        ("live", query_id, doc_id, rank, score)
        for query_id, text in sorted(QUERIES.items())
        for rank, (doc_id, score) in enumerate(server.ranked(text, depth), start=1)
    ]


def test_each_engine_s_hits_become_a_run_with_its_documents(engine, tmp_path):
    path = campaign(tmp_path)
    summary = fetched(path, engine)
    assert stored_results(path) == expected(engine)
    documents = {doc_id for _, _, doc_id, _, _ in expected(engine)}
    assert summary.sentence() == (
        f'run "live": {len(expected(engine))} results for 3 queries; {len(documents)} documents new'
    )
    rows = stored(path, "SELECT external_id, title, url, body FROM document ORDER BY 1")
    titles = {doc_id: DOCUMENTS[doc_id]["title"] for doc_id in documents}
    assert rows == [
        (d, titles[d], DOCUMENTS[d]["url"], DOCUMENTS[d]["body"]) for d in sorted(documents)
    ]  # Solr's multi-valued title (a list of one) is its one value
    sent = [seen.body for seen in engine.seen]
    if engine.kind == "solr":
        assert sent[0]["params"] == {
            "q": "pizza dough",
            "fl": "*,score",
            "rows": 3,
            "hl": "true",
            "hl.fl": "body",
        }
        assert all(seen.path == "/solr/products/select" for seen in engine.seen)
    else:
        assert sent[0]["query"] == {"match": {"body": "pizza dough"}} and sent[0]["size"] == 3
        assert all(seen.path == "/products/_search" for seen in engine.seen)
    assert all(seen.headers["content-type"] == "application/json" for seen in engine.seen)
    ((description,),) = stored(path, "SELECT description FROM run")
    assert description.startswith(f"Fetched from {engine.kind} at {engine.url} on ")
    assert '"{query}"' in description and "Template (search.json):" in description


def test_highlights_are_read_where_the_engine_puts_them(engine, tmp_path):
    """Elasticsearch gives each hit its ``highlight``; Solr keeps them beside the documents,
    keyed by id, and each hit is given its own as ``highlight``: one path reads both."""
    path = campaign(tmp_path, {"q1": "pizza dough"})
    fetched(path, engine, fields={"body": "highlight.body"})
    rows = stored(path, "SELECT external_id, body FROM document ORDER BY 1")
    assert rows[0] == ("d1", "<em>pizza</em> <em>dough</em> with flour and yeast")


def test_a_query_text_that_needs_escaping_is_sent_as_it_is(engine, tmp_path):
    text = 'pizza "dough" \\ with\ttabs and ünïcode'
    path = campaign(tmp_path, {"q1": text})
    fetched(path, engine)
    body = engine.seen[0].body
    assert (
        body["params"]["q"] if engine.kind == "solr" else body["query"]["match"]["body"]
    ) == text


def test_fetching_again_makes_a_new_run_and_keeps_the_first(engine_server, tmp_path):
    """A run is a snapshot: the second day's answer is another run, the first unchanged, and
    a name in use is refused before anything is asked."""
    path = campaign(tmp_path)
    fetched(path, engine_server, run_name="monday")
    monday = stored_results(path)
    engine_server.documents["d6"] = {
        "title": "Pizza dough again",
        "url": "u",
        "body": "pizza dough pizza dough",
    }
    summary = fetched(path, engine_server, run_name="tuesday")
    assert summary.documents_added == 1
    assert [row for row in stored_results(path) if row[0] == "monday"] == monday
    tuesday = [row for row in stored_results(path) if row[0] == "tuesday"]
    assert tuesday[0][1:4] == ("q1", "d6", 1)
    asked = len(engine_server.seen)
    with pytest.raises(Exception, match="has a run 'monday' already; a fetch makes a new run"):
        fetched(path, engine_server, run_name="monday")
    assert len(engine_server.seen) == asked
    assert [name for (name,) in stored(path, "SELECT name FROM run ORDER BY id")] == [
        "monday",
        "tuesday",
    ]


def test_known_documents_keep_their_text_and_get_what_they_lack(engine_server, tmp_path):
    path = campaign(tmp_path, {"q1": "pizza dough"})
    with sqlite3.connect(path) as connection:
        connection.execute("INSERT INTO document (external_id, title) VALUES ('d1', 'Our title')")
    summary = fetched(path, engine_server)
    assert summary.documents_added == 2  # d2, d3
    assert stored(path, "SELECT title, body FROM document WHERE external_id = 'd1'") == [
        ("Our title", DOCUMENTS["d1"]["body"])
    ]


def test_credentials_come_from_the_environment_and_are_stored_nowhere(
    engine_server, tmp_path, monkeypatch
):
    engine_server.auth = "ApiKey " + SECRET
    path = campaign(tmp_path)
    monkeypatch.setenv("JUDGE_APP_ENGINE_AUTH", "ApiKey " + SECRET)
    url = engine_server.url.replace("http://", "http://elastic:" + SECRET + "x@") + "?key=" + SECRET
    fetched(path, engine_server, url=url)
    assert all(seen.headers["authorization"] == "ApiKey " + SECRET for seen in engine_server.seen)
    assert SECRET.encode() not in database_bytes(path)
    ((description,),) = stored(path, "SELECT description FROM run")
    assert f"at {engine_server.url} on" in description


def test_user_and_password_are_sent_as_basic(engine_server, tmp_path, monkeypatch):
    engine_server.auth = "Basic ZWxhc3RpYzpjaGFuZ2VtZQ=="  # elastic:changeme
    monkeypatch.setenv("SEARCH_LOGIN", "elastic:changeme")
    summary = fetched(campaign(tmp_path), engine_server, auth_env="SEARCH_LOGIN")
    assert summary.queries == 3


def test_refused_credentials_stop_the_fetch_and_say_where_they_come_from(
    engine_server, tmp_path, monkeypatch
):
    engine_server.auth = "ApiKey " + SECRET
    monkeypatch.delenv("JUDGE_APP_ENGINE_AUTH", raising=False)
    path = campaign(tmp_path)
    with pytest.raises(EngineError, match="refused the credentials .HTTP 401: security_exception: "
                       "missing authentication credentials.*JUDGE_APP_ENGINE_AUTH is not set"):  # fmt: skip
        fetched(path, engine_server)
    assert len(engine_server.seen) == 1 and stored(path, "SELECT * FROM run") == []


def test_a_redirect_to_another_host_does_not_carry_the_credentials(
    engine_server, tmp_path, monkeypatch
):
    """httpx drops the Authorization header when a redirect leaves the origin (host, port or
    scheme); the other host answers, and its hits are kept."""
    other = EngineServer(host="127.0.0.2").start()
    try:
        engine_server.script["pizza"] = [Redirect(other.base, 307)]
        monkeypatch.setenv("JUDGE_APP_ENGINE_AUTH", "Bearer " + SECRET)
        summary = fetched(campaign(tmp_path), engine_server)
        assert engine_server.seen[0].headers["authorization"] == "Bearer " + SECRET
        assert len(other.seen) == 1 and "authorization" not in other.seen[0].headers
        assert other.seen[0].body["query"] == {
            "match": {"body": "pizza dough"}
        }  # 307 keeps the POST
        assert summary.queries == 3 and not summary.failed
    finally:
        other.stop()


def test_a_redirect_that_turns_the_search_into_a_get_fails_its_query(engine_server, tmp_path):
    engine_server.script["pizza"] = [Redirect(engine_server.base, 302)]
    summary = fetched(campaign(tmp_path), engine_server)
    assert summary.failed == {
        "q1": f"HTTP 302 redirects to {engine_server.url}, which turns the search into a GET "
        "without its query: give that address"
    }
    assert summary.queries == 2


@pytest.mark.parametrize(
    "kind, reason",
    [
        ("elasticsearch", "HTTP 400: parsing_exception: unknown query [matc]"),
        ("opensearch", "HTTP 400: parsing_exception: unknown query [matc]"),
        ("solr", "HTTP 400: undefined field nosuch"),
    ],
)
def test_a_query_the_engine_refuses_is_named_and_the_rest_kept(kind, reason, tmp_path):
    server = EngineServer(kind=kind, script={"tomato": [Status(400)]}).start()
    try:
        path = campaign(tmp_path)
        summary = fetched(path, server)
    finally:
        server.stop()
    assert summary.failed == {"q2": reason}
    assert {row[1] for row in stored_results(path)} == {"q1", "q3"}
    assert summary.sentence().endswith(f"\n1 queries failed: q2 ({reason})")
    ((description,),) = stored(path, "SELECT description FROM run")
    assert "the top 3 hits of 2 queries; 1 failed: q2." in description


def test_429_waits_as_retry_after_asks_and_5xx_backs_off_doubling(engine_server, tmp_path):
    engine_server.script["pizza"] = [Status(429, retry_after="7"), Status(503), Status(503)]
    time = FakeTime()
    path = campaign(tmp_path)
    summary = fetched(path, engine_server, time=time, rate=0)
    assert summary.retried == 3 and not summary.failed
    assert time.waits[0] == 7.0
    # --backoff 0.5 doubled at each attempt: 1.0 after the second, 2.0 after the third, ±25%
    assert 0.75 <= time.waits[1] <= 1.25 and 1.5 <= time.waits[2] <= 2.5
    assert len(engine_server.seen) == 3 + 3


def test_retries_are_heard_with_their_reason(engine_server, tmp_path):

    engine_server.script["bread"] = [Status(429, retry_after="1")]
    heard: list[tuple[int, str, float]] = []
    time = FakeTime()
    options = FetchOptions(engine="elasticsearch", url=engine_server.url, run_name="x",
                           template=RequestTemplate('{"query": {"match": {"body": "{query}"}}}'))  # fmt: skip
    fetch(
        str(campaign(tmp_path)),
        options,
        retrying=lambda *a: heard.append(a),
        clock=time.clock,
        wait=time.wait,
    )
    assert heard == [
        (
            1,
            "HTTP 429: es_rejected_execution_exception: rejected execution of coordinating operation",
            1.0,
        )
    ]


def test_a_query_still_failing_after_its_retries_is_named(engine_server, tmp_path):
    engine_server.script["pizza"] = [Status(500)] * 3
    summary = fetched(campaign(tmp_path), engine_server, retries=2)
    assert summary.failed == {
        "q1": "HTTP 500: search_phase_execution_exception: all shards failed (after 3 attempts)"
    }
    assert summary.queries == 2


def test_a_timeout_and_a_dropped_connection_are_tried_again(engine_server, tmp_path):
    engine_server.script["pizza"] = [Sleep(1.0)]
    engine_server.script["tomato"] = [Drop()]
    heard: list[str] = []
    time = FakeTime()

    options = FetchOptions(engine="elasticsearch", url=engine_server.url, run_name="live", depth=3, timeout=0.3,
                           template=RequestTemplate(ELASTIC_TEMPLATE))  # fmt: skip
    path = campaign(tmp_path)
    summary = fetch(
        str(path),
        options,
        retrying=lambda _n, why, _p: heard.append(why),
        clock=time.clock,
        wait=time.wait,
    )
    assert heard[0] == "no answer within 0.3 s"
    assert heard[1].startswith("the connection failed: ")
    assert summary.queries == 3 and not summary.failed
    assert stored_results(path) == expected(engine_server)


def test_requests_keep_to_the_rate_on_the_clock(engine_server, tmp_path):
    """At 4 requests a second each request goes 0.25 s after the one before (retries too):
    read on the fetch's own clock, which moves only when it waits."""
    engine_server.script["tomato"] = [Status(429, retry_after="0")]
    time = FakeTime()
    fetched(campaign(tmp_path), engine_server, time=time, rate=4)
    assert len(engine_server.seen) == 4
    assert time.waits == [0.25, 0.25, 0.25]  # the retry asked for no pause: the pace's alone
    (tmp_path / "unpaced").mkdir()
    time = FakeTime()
    fetched(campaign(tmp_path / "unpaced"), engine_server, time=time, rate=0)
    assert time.waits == []


def test_cancel_stops_asking_and_stores_nothing(engine_server, tmp_path):
    path = campaign(tmp_path)
    done: list[int] = []

    options = FetchOptions(engine="elasticsearch", url=engine_server.url, run_name="live",
                           template=RequestTemplate(ELASTIC_TEMPLATE))  # fmt: skip
    time = FakeTime()
    summary = fetch(str(path), options, progress=lambda d, _t: done.append(d), cancelled=lambda: len(done) >= 2,
                    clock=time.clock, wait=time.wait)  # fmt: skip
    assert (
        summary.cancelled
        and summary.sentence() == "cancelled after 2 of 3 queries: nothing was stored"
    )
    assert len(engine_server.seen) == 2 and stored(path, "SELECT * FROM run") == []


def test_cancel_cuts_a_pause_before_a_retry_short(engine_server, tmp_path):
    engine_server.script["pizza"] = [Status(429, retry_after="30")]
    path = campaign(tmp_path)

    class CancelledWait(FakeTime):
        def wait(self, seconds: float) -> bool:
            super().wait(seconds)
            return True  # cancelled while it waited

    summary = fetched(path, engine_server, time=CancelledWait())
    assert summary.cancelled and len(engine_server.seen) == 1
    assert stored(path, "SELECT * FROM run") == []


def test_an_index_that_does_not_exist_stops_everything(engine_server, tmp_path):
    engine_server.script["pizza"] = [Status(404)]
    path = campaign(tmp_path)
    with pytest.raises(EngineError, match=r"/products/_search has no such index, core or path "
                       r"\(HTTP 404: index_not_found_exception: no such index \[products\]\)"):  # fmt: skip
        fetched(path, engine_server)
    assert stored(path, "SELECT * FROM run") == [] and len(engine_server.seen) == 1


def test_nothing_listening_stops_everything(tmp_path):
    server = EngineServer().start()
    url = server.url
    server.stop()  # the port is free again: nothing answers there
    path = campaign(tmp_path)
    with pytest.raises(EngineError, match="cannot connect to http://127.0.0.1:.*after 2 attempts"):
        fetched(path, server, url=url, retries=1)
    assert stored(path, "SELECT * FROM run") == []


def test_every_query_failing_stores_nothing_and_says_why(engine_server, tmp_path):
    engine_server.script = {word: [Status(400)] for word in ("pizza", "tomato", "bread")}
    path = campaign(tmp_path)
    with pytest.raises(FetchError, match=r"no query was answered: nothing was stored\n3 queries failed: "
                       r"q1 \(HTTP 400: parsing_exception"):  # fmt: skip
        fetched(path, engine_server)
    assert stored(path, "SELECT * FROM run") == []


def test_an_answer_without_hits_where_the_mapping_says_stops_at_the_first_query(
    engine_server, tmp_path
):
    engine_server.script["pizza"] = [Raw({"results": [], "total": 0})]
    path = campaign(tmp_path)
    with pytest.raises(FetchError, match="query q1: the hits path 'hits.hits' finds no list of hits "
                       r"in the answer \(its keys: results, total\): nothing was stored"):  # fmt: skip
        fetched(path, engine_server)
    assert len(engine_server.seen) == 1


def test_a_field_path_of_the_user_s_that_finds_nothing_stores_nothing(engine_server, tmp_path):
    path = campaign(tmp_path)
    with pytest.raises(
        FetchError, match=r"title=_source.titel: found nothing in any of the 5 hits"
    ):
        fetched(path, engine_server, fields={"title": "_source.titel"})
    assert stored(path, "SELECT * FROM run") == [] and stored(path, "SELECT * FROM document") == []


def test_a_hit_without_an_id_fails_its_query_once_others_were_mapped(engine_server, tmp_path):
    engine_server.script["tomato"] = [Raw({"hits": {"hits": [{"_score": 1.0, "_source": {}}]}})]
    summary = fetched(campaign(tmp_path), engine_server)
    assert summary.failed == {"q2": "hit 1 has no document id at '_id' (its keys: _score, _source)"}


def test_a_generic_json_service_through_its_own_paths(tmp_path):
    """``http``: any JSON answer, read by the paths given (nested, a list joined, a number
    as id)."""
    answer = {"data": {"items": [
        {"key": 17, "name": {"en": "Pizza"}, "links": {"self": "https://x/17"}, "tags": ["a", "b"], "relevance": "2.5"},
        {"key": 18, "name": {"en": "Dough"}, "links": {}, "tags": [], "relevance": None},
    ]}}  # fmt: skip
    server = EngineServer(kind="elasticsearch", script={"pizza": [Raw(answer)]}).start()
    try:
        path = campaign(tmp_path, {"q1": "pizza"})
        fields = {"hits": "data.items", "id": "key", "title": "name.en", "url": "links.self",
                  "body": "tags", "score": "relevance"}  # fmt: skip
        fetched(path, server, engine="http", fields=fields)
    finally:
        server.stop()
    assert stored_results(path) == [("live", "q1", "17", 1, 2.5), ("live", "q1", "18", 2, None)]
    assert stored(path, "SELECT external_id, title, url, body FROM document ORDER BY 1") == [
        ("17", "Pizza", "https://x/17", "a … b"), ("18", "Dough", None, None),
    ]  # fmt: skip


def test_a_document_twice_in_one_answer_is_kept_at_its_first_rank(engine_server, tmp_path):
    hits = [
        {"_id": d, "_score": s, "_source": DOCUMENTS[d]}
        for d, s in (("d1", 3.0), ("d2", 2.0), ("d1", 1.0), ("d3", 0.5))
    ]
    engine_server.script["pizza"] = [Raw({"hits": {"hits": hits}})]
    path = campaign(tmp_path, {"q1": "pizza"})
    fetched(path, engine_server)
    assert stored_results(path) == [
        ("live", "q1", "d1", 1, 3.0),
        ("live", "q1", "d2", 2, 2.0),
        ("live", "q1", "d3", 3, 0.5),
    ]


@pytest.mark.postgres
def test_a_fetch_on_postgresql_writes_the_same_run(pg_url, engine_server, tmp_path):
    """The run goes through the bulk writer's COPY on PostgreSQL, as a lead's login."""
    from sqlalchemy import text

    from judge_app.commands.importing import ImportOptions, import_files
    from judge_app.store import open_database

    file = tmp_path / "queries.csv"
    file.write_text("query_id,text\n" + "".join(f"{q},{t}\n" for q, t in QUERIES.items()))
    import_files(pg_url, ImportOptions(queries=file))
    options = FetchOptions(engine="elasticsearch", url=engine_server.url, run_name="live",
                           depth=3, template=RequestTemplate(ELASTIC_TEMPLATE))  # fmt: skip
    time = FakeTime()
    summary = fetch(pg_url, options, clock=time.clock, wait=time.wait)
    assert summary.queries == 3 and summary.results == len(expected(engine_server))
    with open_database(pg_url) as database, database.reading() as session:
        rows = session.execute(text(
            "SELECT run.name, query.external_id, document.external_id, rank, score FROM result "
            "JOIN run ON run.id = run_id JOIN query ON query.id = query_id "
            "JOIN document ON document.id = document_id ORDER BY query.external_id, rank"
        )).all()  # fmt: skip
    assert [tuple(row) for row in rows] == expected(engine_server)
