"""One identity for every record, whatever the cut.

A log cut anywhere and ingested in any order and any combination of parts, wholes and
MongoDB/download shapes must end with exactly the tables of one whole-file ingest; matches
whose dealer code and name collide stay apart even interleaved line by line.  Tables are
compared row by row, leaving out only lineage (which run, file and line a row came from).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import PHYSICAL, SAMPLE, derived_states, ingest, query, read_lines, table_rows, table_snapshot, write_lines

LINEAGE = {"run_id", "source", "line", "first_run_id", "last_run_id"}
M40 = read_lines(SAMPLE)  # 5,887 lines, 40 rounds


def content(db: Path, leave_out: frozenset[str] = frozenset()) -> dict[str, list[tuple[Any, ...]]]:
    """Every data table, lineage columns (and ``leave_out``) left out, rows sorted."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        tables = [r[0] for r in con.execute("select table_name from information_schema.tables").fetchall()]
        for t in sorted(tables):
            if t in ("load_runs", "load_issues", "kifu_meta") or t in PHYSICAL:
                continue
            cols, rows = table_rows(con, t)
            keep = [i for i, c in enumerate(cols) if c not in LINEAGE and f"{t}.{c}" not in leave_out]
            out[t] = sorted((tuple(row[i] for i in keep) for row in rows), key=repr)
        if "board_keyframes" in tables:
            out["states"] = derived_states(con)
        return out
    finally:
        con.close()


def diff(a: dict[str, list[Any]], b: dict[str, list[Any]]) -> dict[str, tuple[int, int]]:
    return {t: (len(a[t]), len(b.get(t, []))) for t in a if a[t] != b.get(t)}


@pytest.fixture(scope="module")
def whole_m40(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Any]]:
    d = tmp_path_factory.mktemp("whole")
    ingest(d / "k.duckdb", write_lines(d / "m40.jsonl", M40))
    return content(d / "k.duckdb")


def parts(tmp_path: Path, lines: list[bytes], cuts: list[int], prefix: str = "p") -> list[Path]:
    bounds = [0, *cuts, len(lines)]
    return [write_lines(tmp_path / f"{prefix}{i}.jsonl", lines[a:b]) for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]


@pytest.mark.parametrize("order", ["h1,h2,whole", "h2,h1,whole", "h1,h2", "h2,h1", "whole,h2", "h2,whole,h1"])
def test_a_log_split_in_two_is_one_match(tmp_path: Path, whole_m40: dict[str, list[Any]], order: str) -> None:
    """`head -n 3001` and `tail -n +3002`: the tail used to become a match of its own."""
    h1, h2 = parts(tmp_path, M40, [3001], "h")
    files = {"h1": h1, "h2": h2, "whole": write_lines(tmp_path / "whole.jsonl", M40)}
    db = tmp_path / "k.duckdb"
    for name in order.split(","):
        ingest(db, files[name])
    assert query(db, "select count(*), max(n_events) from matches") == [(1, 5887)]
    assert diff(content(db), whole_m40) == {}


def test_split_after_line_two_does_not_shift_seq(tmp_path: Path, whole_m40: dict[str, list[Any]]) -> None:
    h1, h2 = parts(tmp_path, M40, [2], "h")
    db = tmp_path / "k.duckdb"
    ingest(db, h1)
    ingest(db, h2)
    ingest(db, write_lines(tmp_path / "whole.jsonl", M40))
    assert diff(content(db), whole_m40) == {}


def test_a_tail_uploaded_into_the_whole_adds_nothing(tmp_path: Path, whole_m40: dict[str, list[Any]]) -> None:
    db = tmp_path / "k.duckdb"
    ingest(db, write_lines(tmp_path / "whole.jsonl", M40))
    _, h2 = parts(tmp_path, M40, [3001], "h")
    report = ingest(db, h2)
    assert report.ingested == 0
    assert diff(content(db), whole_m40) == {}


def relabel(lines: list[bytes], code: str, name: str) -> list[bytes]:
    out = []
    for line in lines:
        doc = json.loads(line)
        doc["dealer_code"], doc["dealer"] = code, name
        out.append(json.dumps(doc, separators=(",", ":")).encode())
    return out


def test_colliding_matches_interleaved_line_by_line_stay_apart(tmp_path: Path) -> None:
    """Two matches with the same dealer code and name and the same player codes, interleaved."""
    deals = [i for i, ln in enumerate(M40) if b'"event":"first-player"' in ln]
    a = relabel(M40[: deals[10]], "D-00000001", "Dealer 1")  # join-rooms and rounds 1-10
    later = [json.loads(ln) for ln in M40[deals[20] : deals[30]]]  # rounds 21-30, renumbered 1-10
    for doc in later:
        if isinstance(doc.get("turn"), int):
            doc["turn"] -= 20
    b = relabel(M40[:4] + [json.dumps(d).encode() for d in later], "D-00000001", "Dealer 1")
    separate = tmp_path / "separate.duckdb"
    ingest(separate, write_lines(tmp_path / "a.jsonl", a))
    ingest(separate, write_lines(tmp_path / "b.jsonl", b))
    mixed: list[bytes] = []
    for i in range(max(len(a), len(b))):
        mixed.extend(x[i] for x in (a, b) if i < len(x))
    together = tmp_path / "together.duckdb"
    ingest(together, write_lines(tmp_path / "mixed.jsonl", mixed))
    assert query(together, "select count(*) from matches") == [(2,)]
    assert diff(content(together), content(separate)) == {}


def as_stored(line: bytes) -> bytes:
    """A download line as ``mongoexport`` writes the stored document: ``_id``, ``$date``,
    ``dateUpdated``, empty objects dropped, ``undefined`` fields as null."""
    doc = json.loads(line)
    out: dict[str, Any] = {"_id": {"$oid": f"{random.getrandbits(96):024x}"}}
    for k, v in doc.items():
        if v == {}:
            continue
        if k == "dateCreated":
            v = {"$date": v}
        out[k] = v
    err = out.get("contents", {}).get("error") if isinstance(out.get("contents"), dict) else None
    if isinstance(err, dict):
        err["inner"] = None
    out["dateUpdated"] = out.get("dateCreated")
    return json.dumps(out, separators=(",", ":")).encode()


SMALL = M40[:700]  # a few rounds: the property test ingests many combinations of its parts


@pytest.fixture(scope="module")
def whole_small(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Any]]:
    d = tmp_path_factory.mktemp("small")
    ingest(d / "k.duckdb", write_lines(d / "small.jsonl", SMALL))
    return content(d / "k.duckdb")


@settings(max_examples=int(__import__("os").environ.get("KIFU_CUT_EXAMPLES", "12")), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    cuts=st.lists(st.integers(1, len(SMALL) - 1), min_size=1, max_size=4, unique=True).map(sorted),
    seed=st.integers(0, 2**32 - 1),
    extra=st.sampled_from(["none", "whole-first", "whole-last", "a-part-twice", "overlapping-part"]),
    mongo=st.sets(st.integers(0, 6), max_size=3),
)
def test_random_cuts_orders_and_duplicates_end_as_the_whole(
    tmp_path_factory: pytest.TempPathFactory, whole_small: dict[str, list[Any]], cuts: list[int], seed: int,
    extra: str, mongo: set[int],
) -> None:  # fmt: skip
    tmp = tmp_path_factory.mktemp("cuts")
    files = parts(tmp, SMALL, cuts)
    for i in mongo & set(range(len(files))):  # some parts as MongoDB documents (mongoexport)
        files[i].write_bytes(b"\n".join(as_stored(ln) for ln in read_lines(files[i])) + b"\n")
    rng = random.Random(seed)
    rng.shuffle(files)
    if extra == "whole-first":
        files.insert(0, write_lines(tmp / "whole.jsonl", SMALL))
    elif extra == "whole-last":
        files.append(write_lines(tmp / "whole.jsonl", SMALL))
    elif extra == "a-part-twice":
        files.append(rng.choice(files))
    elif extra == "overlapping-part":
        a = rng.randrange(0, len(SMALL) - 10)
        files.insert(rng.randrange(len(files) + 1), write_lines(tmp / "over.jsonl", SMALL[a : a + rng.randrange(5, 300)]))
    db = tmp / "k.duckdb"
    together = rng.random() < 0.3  # sometimes several parts in one run
    if together:
        ingest(db, *files)
    else:
        for f in files:
            ingest(db, f)
    if mongo & set(range(len(cuts) + 1)):  # the stored text of a record is the shape it came in
        expected = dict(whole_small)
        raw_free = content(db, frozenset({"raw_activities.raw"}))
        expected["raw_activities"] = sorted([r[:2] + r[3:] for r in whole_small["raw_activities"]], key=repr)
        assert diff(raw_free, expected) == {}, (cuts, seed, extra, together)
    else:
        assert diff(content(db), whole_small) == {}, (cuts, seed, extra, together)


def test_download_head_and_mongodb_tail_are_one_match(tmp_path: Path) -> None:
    """The real MongoDB copy (timestamps a few ms apart) completes a downloaded head."""
    from tests.conftest import fixture_path

    stored = read_lines(fixture_path("misbehave_bind2_40", "stored"))
    assert len(stored) == len(M40)
    db = tmp_path / "k.duckdb"
    ingest(db, write_lines(tmp_path / "h1.jsonl", M40[:3001]))
    ingest(db, write_lines(tmp_path / "h2.json", stored[3001:]))
    whole = tmp_path / "whole.duckdb"
    ingest(whole, write_lines(tmp_path / "whole.jsonl", M40))
    timing = "select match_id, seq from {} order by 2"
    assert query(db, "select count(*), max(n_events) from matches") == [(1, 5887)]
    for table in ("events", "violations", "penalties"):
        assert query(db, timing.format(table)) == query(whole, timing.format(table)), table
    assert table_snapshot(db, exclude=("load_runs", "raw_activities"))["states"] == \
        table_snapshot(whole, exclude=("load_runs", "raw_activities"))["states"]  # fmt: skip


@pytest.mark.parametrize("copies", [2, 3, 70])
def test_the_same_log_concatenated_many_times_is_one_match(tmp_path: Path, copies: int) -> None:
    """Copies of one log back to back (a download appended to itself): one match, nothing doubled."""
    from tests.conftest import REPO

    head = read_lines(REPO / "tests" / "data" / "probe_head.jsonl")
    db = tmp_path / "k.duckdb"
    ingest(db, write_lines(tmp_path / "x.jsonl", head * copies))
    array = tmp_path / "x.json"
    array.write_bytes(b"[" + b",".join(head * copies) + b"]")
    ingest(db, array)
    assert query(db, "select count(*), max(n_events) from matches") == [(1, len(head))]


def test_a_database_of_an_older_schema_is_refused_saying_why(tmp_path: Path) -> None:
    """Schema 8 stores boards as keyframes and lines packed: a file written by schema 7 or older is
    refused (nothing written to it), with what to do."""
    from loaders.pipeline import ingest as run_ingest
    from loaders.core.sources import FileSource
    from queries import DatabaseError

    db = tmp_path / "kifu.duckdb"
    ingest(db, SAMPLE)
    con = duckdb.connect(str(db))
    con.execute("update kifu_meta set value = '7' where key = 'schema_version'")
    con.close()
    before = table_snapshot(db)
    with pytest.raises(DatabaseError, match=r"older Kifu \(schema 7; this Kifu uses 8.*ingest the logs again into a new --db"):
        run_ingest([FileSource(SAMPLE)], db)
    assert table_snapshot(db) == before
