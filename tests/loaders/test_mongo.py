"""The MongoDB loader, against mongomock always and a real server when one is configured.

Set ``KIFU_TEST_MONGODB_URI`` (e.g. ``mongodb://uno:uno@localhost:27017``) to run the same
tests against a real MongoDB; each test then works in its own throw-away database.
"""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bson import json_util

from loaders.core.mongo import MongoSource, redact_uri
from loaders.pipeline import ingest
from loaders.core.sources import SourceError
from tests.conftest import fixture_path, query, read_lines
from tests.conftest import ingest as ingest_files

pytestmark = pytest.mark.mongo
REAL_URI = os.environ.get("KIFU_TEST_MONGODB_URI")
EVENT_COLS = "match_id, seq, round_no, turn_no, event, actor, target, card_color, card_number, card_special, n_cards, chosen_color, yell_uno, draw_reason"


@pytest.fixture(params=["mongomock", "real"])
def mongo(request: pytest.FixtureRequest) -> Iterator[tuple[Any, str, str]]:
    """(client, uri, database name) of an empty database."""
    name = f"kifu_test_{uuid.uuid4().hex[:8]}"
    if request.param == "mongomock":
        import mongomock

        yield mongomock.MongoClient(), "mongodb://mongomock", name
        return
    if not REAL_URI:
        pytest.skip("no real MongoDB: set KIFU_TEST_MONGODB_URI to run these tests against a server")
    import pymongo

    client: Any = pymongo.MongoClient(REAL_URI, serverSelectionTimeoutMS=3000)
    try:
        yield client, REAL_URI, name
    finally:
        client.drop_database(name)
        client.close()


def load_stored(client: Any, database: str, *matches: str, shuffle: bool = False) -> int:
    docs = []
    for match in matches:
        docs += [json_util.loads(line) for line in read_lines(fixture_path(match, "stored"))]
    if shuffle:
        random.Random(7).shuffle(docs)
    client[database]["activities"].insert_many(docs)
    return len(docs)


def test_mongo_activities_match_the_downloaded_file(tmp_path: Path, mongo: tuple[Any, str, str]) -> None:
    client, uri, name = mongo
    n = load_stored(client, name, "misbehave_bind2_40", shuffle=True)
    db = tmp_path / "mongo.duckdb"
    report = ingest([MongoSource(uri, name, client=client, batch_size=500)], db)
    assert report.ingested == n and report.quarantined == 0
    ref = tmp_path / "file.duckdb"
    ingest_files(ref, fixture_path("misbehave_bind2_40"))
    # log order restored from dateCreated/_id although documents were inserted shuffled
    assert query(db, f"select {EVENT_COLS} from events order by seq") == query(
        ref, f"select {EVENT_COLS} from events order by seq"
    )
    assert query(db, "select cause, count(*) from penalties group by all order by all") == query(
        ref, "select cause, count(*) from penalties group by all order by all"
    )
    # and the file, ingested after MongoDB, adds nothing
    again = ingest_files(db, fixture_path("misbehave_bind2_40"))
    assert again.ingested == 0 and again.duplicates == n


def test_dealer_filters(tmp_path: Path, mongo: tuple[Any, str, str]) -> None:
    client, uri, name = mongo
    load_stored(client, name, "speciallogic_timeout_probe_2", "noprogress_hoard4_3")
    db = tmp_path / "k.duckdb"
    ingest([MongoSource(uri, name, client=client, dealer_code="D-00000004")], db)
    assert query(db, "select dealer_code, dealer_name, n_events from matches") == [
        ("D-00000004", "speciallogic-timeout-probe-2", 341)
    ]
    db2 = tmp_path / "k2.duckdb"
    ingest([MongoSource(uri, name, client=client, dealer="noprogress-hoard4-3")], db2)
    assert query(db2, "select dealer_code, n_events from matches") == [("D-00000002", 779)]


def test_bad_documents_are_quarantined(tmp_path: Path, mongo: tuple[Any, str, str]) -> None:
    client, uri, name = mongo
    load_stored(client, name, "speciallogic_timeout_probe_2")
    col = client[name]["activities"]
    col.insert_one({"dealer": "speciallogic-timeout-probe-2", "turn": "x", "dateCreated": 0})
    db = tmp_path / "k.duckdb"
    report = ingest([MongoSource(uri, name, client=client)], db)
    assert report.ingested == 341 and report.quarantined == 1
    ((line, reason, raw),) = query(db, "select line, reason, raw from load_issues")
    assert line == 1 and "event" in reason and '"turn": "x"' in raw


def test_unreachable_server_is_a_one_line_error_without_password() -> None:
    src = MongoSource("mongodb://uno:s3cret-pw@127.0.0.1:9/", timeout_ms=200)
    with pytest.raises(SourceError) as err:
        list(src.records())
    text = str(err.value)
    assert "unreachable" in text and "s3cret-pw" not in text and "\n" not in text
    assert "uno:***@127.0.0.1:9" in text


def test_cli_mongo_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kifu.cli import main

    code = main(["ingest", "--mongo-uri", "mongodb://kifu:hunter2@127.0.0.1:9/?serverSelectionTimeoutMS=200",
                 "--db", str(tmp_path / "k.duckdb"), "--no-progress"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 1
    assert "hunter2" not in err and "unreachable" in err and len(err.strip().splitlines()) == 1
    code = main(["ingest", "--mongo-uri", "not-a-uri", "--db", str(tmp_path / "k.duckdb")])
    err = capsys.readouterr().err
    assert code == 1 and "MongoDB URI" in err


def test_redact_uri() -> None:
    assert redact_uri("mongodb://uno:uno@localhost:27017/db") == "mongodb://uno:***@localhost:27017/db"
    assert redact_uri("mongodb+srv://a:b%40c@x.example/") == "mongodb+srv://a:***@x.example/"
    assert redact_uri("mongodb://localhost") == "mongodb://localhost"
    assert redact_uri("MONGODB://user:pw@h:27017/x") == "MONGODB://user:***@h:27017/x"
    assert redact_uri("mongodb://:pw@h") == "mongodb://:***@h"
    assert redact_uri("mongodb://u:p@ss@h/db") == "mongodb://u:***@h/db"
    assert redact_uri("error: Mongodb+SRV://u:s3cret@x.example/?a=b failed") == "error: Mongodb+SRV://u:***@x.example/?a=b failed"
    assert redact_uri("mongodb://user@h") == "mongodb://user@h"  # no password to hide


@pytest.mark.parametrize("how", ["flag", "file", "env"])
def test_mongo_uri_from_flag_file_or_environment(how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """The URI (with its password) need not be on the command line, where `ps` shows it."""
    from kifu.cli import main
    from loaders.core import mongo

    seen: list[str] = []

    def fake_init(self: Any, uri: str, *a: Any, **kw: Any) -> None:
        seen.append(uri)
        raise mongo.SourceError(f"MongoDB {redact_uri(uri)} unreachable (test)")

    monkeypatch.setattr(mongo.MongoSource, "__init__", fake_init)
    uri = "mongodb://uno:top-secret@127.0.0.1:1"
    argv = ["ingest", "--db", str(tmp_path / "m.duckdb"), "--no-progress"]
    monkeypatch.delenv("KIFU_MONGO_URI", raising=False)
    if how == "flag":
        argv += ["--mongo-uri", uri]
    elif how == "file":
        (tmp_path / "uri.txt").write_text(uri + "\n")
        argv += ["--mongo-uri-file", str(tmp_path / "uri.txt")]
    else:
        monkeypatch.setenv("KIFU_MONGO_URI", uri)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert seen == [uri] and "top-secret" not in err and "uno:***@" in err


def test_mongo_uri_file_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kifu.cli import main

    (tmp_path / "empty.txt").write_text("")
    for path, why in [(tmp_path / "empty.txt", "the file is empty"), (tmp_path / "none.txt", "cannot read it")]:
        assert main(["ingest", "--db", str(tmp_path / "m.duckdb"), "--mongo-uri-file", str(path)]) == 1
        assert why in capsys.readouterr().err


def _cut_after(monkeypatch: pytest.MonkeyPatch, k: int) -> None:
    """mongomock's cursors end in a network timeout after ``k`` documents (a server that stops answering)."""
    import mongomock
    import pymongo.errors

    real_find = mongomock.collection.Collection.find

    def find(self: Any, *a: Any, **kw: Any) -> Any:
        cursor = iter(real_find(self, *a, **kw))

        def docs() -> Iterator[Any]:
            for n, doc in enumerate(cursor):
                if n == k:
                    raise pymongo.errors.NetworkTimeout("timed out")
                yield doc

        return docs()

    monkeypatch.setattr(mongomock.collection.Collection, "find", find)


@pytest.mark.parametrize("k", [0, 300])
def test_a_timeout_mid_read_keeps_what_was_read_and_the_other_sources(tmp_path: Path, k: int,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    import mongomock

    from loaders.core.sources import FileSource

    client: Any = mongomock.MongoClient()
    n = load_stored(client, "d", "misbehave_bind2_40")
    assert n > k
    _cut_after(monkeypatch, k)
    src = MongoSource("mongodb://u:secret@h", "d", client=client, batch_size=100, timeout_ms=1500)
    sample = Path(__file__).parents[2] / "samples" / "chaser_greedy-vs-greedy.txt"
    db = tmp_path / "k.duckdb"
    report = ingest([src, FileSource(sample)], db)  # the run goes on: the file after it is ingested
    said = "MongoDB mongodb://u:***@h: gave no complete answer in 1.5 s (--mongo-timeout)"
    assert src.cut_short == f"{said}; {k:,} document(s) read before, the rest not"
    assert report.sources[0].read == k + 1 and report.sources[0].accepted == k
    assert query(db, "select count(*) from events where match_id in (select match_id from matches "
                     "where game = 'algori-uno')") == [(k,)]  # fmt: skip
    assert query(db, "select game from matches where game = 'chaser'") == [("chaser",)]
    assert query(db, "select source, line, reason from load_issues") == [
        (src.name, k + 1, f"{said}: this document and the ones after it were not read")]
    assert "secret" not in src.name
    again = ingest([MongoSource("mongodb://u:secret@h", "d", client=client)], db)  # read again later: the rest
    assert again.quarantined == 1 and again.duplicates == k


def test_kifu_ingest_says_a_read_cut_short_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    import mongomock
    import pymongo

    from kifu.cli import main

    client: Any = mongomock.MongoClient()
    load_stored(client, "uno-local", "misbehave_bind2_40")
    _cut_after(monkeypatch, 300)
    monkeypatch.setattr(pymongo, "MongoClient", lambda *a, **kw: client)
    code = main(["ingest", "--mongo-uri", "mongodb://h", "--db", str(tmp_path / "k.duckdb"), "--no-progress",
                 "--jobs", "1", "--mongo-timeout", "2"])  # fmt: skip
    err = capsys.readouterr().err.splitlines()
    assert code == 0
    assert err == ["kifu ingest: MongoDB mongodb://h: gave no complete answer in 2 s (--mongo-timeout); 300 document(s) "
                   "read before, the rest not — run again to read the rest"]  # fmt: skip
    assert query(tmp_path / "k.duckdb", "select count(*) from events") == [(300,)]
