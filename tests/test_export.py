"""``kifu export``: every table as a Hive-partitioned Parquet (or CSV) lake, read back by pyarrow and by
Kifu's own SQL (``queries.lake.connect_lake``), re-exported match by match."""

from __future__ import annotations

import json
import math
import re
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import duckdb
import numpy as np
import pandas as pd
import pyarrow.dataset as ds
import pytest

import queries
from kifu.cli import main
from kifu.export import ExportError, export
from queries import dashboard, standings, validation
from queries.lake import META_FILE, NULL_PARTITION, UNKNOWN_GAME, LakeError, connect_lake
from tests.conftest import REPO, SAMPLE, SHARED, fixture_path, ingest

PARTITION = re.compile(r"game=[^/]+/match_id=[^/]+/part-\d+\.(parquet|csv)")


# ---- fixtures --------------------------------------------------------------------------------------------


def _sources() -> list[Path]:
    sources = [SAMPLE, fixture_path("speciallogic_timeout_probe_2"), fixture_path("noprogress_hoard4_3"),
               SHARED / "fixtures" / "kakomimasu" / "v1_games", SHARED / "fixtures" / "chaser",
               REPO / "samples" / "kakomimasu_island-4_hanako-vs-a3.json.gz", REPO / "samples" / "chaser_greedy-vs-greedy.txt"]  # fmt: skip
    missing = [p for p in sources if not p.exists()]
    if missing:
        pytest.skip(f"real logs not found at {missing[0]} (tests/fixtures/ is part of the repository)")
    return sources


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ALGORI matches, Kakomimasu games and CHaser games (with maps) in one database (read-only)."""
    path = tmp_path_factory.mktemp("export-db") / "kifu.duckdb"
    report = ingest(path, *_sources(), jobs=1)
    assert report.quarantined == 0
    return path


@pytest.fixture(scope="module")
def lake(db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The database exported once, as Parquet (read-only: tests that write export their own)."""
    out = tmp_path_factory.mktemp("lake") / "lake"
    report = export(db, out)
    assert report.files > 0 and report.tables == len(_tables(db))
    return out


@pytest.fixture()
def dbcon(db: Path) -> Any:
    con = queries.connect(db, read_only=True)
    yield con
    con.close()


@pytest.fixture()
def lakecon(lake: Path) -> Any:
    con = connect_lake(lake)
    yield con
    con.close()


# ---- helpers ---------------------------------------------------------------------------------------------


def _tables(db: Path) -> dict[str, list[tuple[str, str]]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("select table_name, column_name, data_type from information_schema.columns "
                           "where table_schema = 'main' order by table_name, ordinal_position").fetchall()  # fmt: skip
    finally:
        con.close()
    out: dict[str, list[tuple[str, str]]] = {}
    for t, c, k in rows:
        out.setdefault(t, []).append((c, k))
    return out


def _plain(v: Any) -> Any:
    """A cell as comparable plain data (NaN equal to NaN; pandas' missing values as None)."""
    if v is None or v is pd.NaT:
        return None
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, pd.Timestamp):
        return v.to_pydatetime()
    if isinstance(v, (list, tuple, np.ndarray)):
        return tuple(_plain(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _plain(x)) for k, x in v.items()))
    if hasattr(v, "item") and not isinstance(v, (str, bytes, datetime)):
        return _plain(v.item())
    try:
        if pd.isna(v):
            return None
    except (TypeError, ValueError):
        pass
    return v


def _sorted_rows(rows: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple(_plain(v) for v in r) for r in rows), key=repr)


def _db_rows(db: Path, table: str) -> list[tuple[Any, ...]]:
    """A table's rows as the lake holds them: by content (every raw line's text in ``raw_activities``;
    ``raw_blocks``, the packed bytes of those lines, empty)."""
    from tests.conftest import table_rows

    if table == "raw_blocks":
        return []
    con = duckdb.connect(str(db), read_only=True)
    try:
        return _sorted_rows(table_rows(con, table)[1])
    finally:
        con.close()


def _arrow_rows(lake: Path, table: str, columns: list[str], fmt: str = "parquet") -> list[tuple[Any, ...]]:
    data = ds.dataset(lake / table, format=fmt, partitioning="hive").to_table()
    if data.num_rows == 0:
        return []
    return _sorted_rows(zip(*(data.column(c).to_pylist() for c in columns)))


def _files(lake: Path) -> dict[str, tuple[int, bytes]]:
    """Every data file of a lake: relative path → (mtime in ns, contents)."""
    return {str(p.relative_to(lake)): (p.stat().st_mtime_ns, p.read_bytes())
            for p in sorted(lake.rglob("*")) if p.is_file() and p.suffix in (".parquet", ".csv")}  # fmt: skip


def _match_of(path: str) -> str | None:
    m = re.search(r"/match_id=([^/]+)/", path)
    if m is None:
        return None
    return None if m.group(1) == NULL_PARTITION else unquote(m.group(1))


def _unordered(v: Any) -> Any:
    """A ``string_agg`` without ORDER BY (e.g. chaser/bots.sql's won_by) lists its parts in the order rows are
    scanned, which differs between the file and the lake: compared as a set of parts."""
    return tuple(sorted(v.split(", "))) if isinstance(v, str) and ", " in v else v


def _frames_equal(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Same columns, same types, same rows (in any order: ties in ORDER BY may come in another order)."""
    assert list(a.columns) == list(b.columns)
    assert [str(t) for t in a.dtypes] == [str(t) for t in b.dtypes]
    rows = [_sorted_rows(tuple(_unordered(v) for v in r) for r in df.itertuples(index=False)) for df in (a, b)]
    assert rows[0] == rows[1]


# ---- the lake's layout ------------------------------------------------------------------------------------


def test_every_table_is_in_the_lake_with_its_columns_and_the_schema_version(db: Path, lake: Path) -> None:
    tables = _tables(db)
    meta = json.loads((lake / META_FILE).read_text(encoding="utf-8"))
    assert meta["schema_version"] == queries.SCHEMA_VERSION == _db_scalar(db, "select value from kifu_meta where key = 'schema_version'")
    assert meta["format"] == "parquet" and meta["kifu_version"]
    datetime.fromisoformat(meta["exported_at"])
    assert meta["tables"] == {t: [{"name": c, "type": k} for c, k in cols] for t, cols in tables.items()}
    assert {"matches", "events", "violations", "kakomimasu_games", "chaser_games", "load_runs", "kifu_meta"} <= set(tables)
    for table, cols in tables.items():
        files = sorted(str(p.relative_to(lake / table)) for p in (lake / table).rglob("*") if p.is_file())
        if table == "raw_blocks":  # the lines' packed bytes: their text is in raw_activities.raw
            assert files == [] and _db_scalar(db, "select count(*) from raw_activities where raw is null") > 1000
        elif any(c == "match_id" for c, _ in cols):
            assert all(PARTITION.fullmatch(f) for f in files), (table, files[:3])
            matches = {_match_of("/" + f) for f in files}
            assert len(matches) == len(files), f"{table}: more than one file for a match"
            assert matches == {r[0] for r in _db_query(db, f'select distinct match_id from "{table}"')}
        else:
            assert files == ["part-0.parquet"], table
    assert not [p for p in lake.iterdir() if p.name.startswith(".kifu-export-")], "a staging folder was left"


def test_partitions_are_by_the_games_of_the_matches_table(db: Path, lake: Path) -> None:
    games = dict(_db_query(db, "select match_id, game from matches"))
    assert set(games.values()) == {"algori-uno", "kakomimasu", "chaser"}
    for path in (lake / "events").rglob("*.parquet"):
        game = path.parent.parent.name.removeprefix("game=")
        assert games[_match_of(str(path))] == game
    assert {p.name for p in (lake / "players").iterdir()} == {"game=algori-uno", "game=kakomimasu", "game=chaser"}


# ---- read back -------------------------------------------------------------------------------------------


def test_pyarrow_reads_every_table_as_the_database_holds_it(db: Path, lake: Path) -> None:
    for table, cols in _tables(db).items():
        names = [c for c, _ in cols]
        expected = _db_rows(db, table)
        assert _arrow_rows(lake, table, names) == expected, table
    assert len(_db_rows(db, "events")) > 1000  # the comparison is over real rows


def test_the_lake_views_have_the_tables_columns_types_and_rows(db: Path, dbcon: Any, lakecon: Any) -> None:
    for table in _tables(db):
        assert [r[:2] for r in lakecon.execute(f'describe "{table}"').fetchall()] == \
            [r[:2] for r in dbcon.execute(f'describe "{table}"').fetchall()], table  # fmt: skip
        assert _sorted_rows(lakecon.execute(f'select * from "{table}"').fetchall()) == _db_rows(db, table), table


@pytest.mark.parametrize("name", ["matches", "validation_counts", "validation_causes", "validation_penalties",
                                  "validation_matches", "think_time_stats", "known_players"])  # fmt: skip
def test_kifus_report_queries_give_the_same_results_on_the_lake(dbcon: Any, lakecon: Any, name: str) -> None:
    text = queries.sql(name)
    params = {p: None for p in set(re.findall(r"\$([a-z_]+)", text))}
    a, b = dbcon.execute(text, params).df(), lakecon.execute(text, params).df()
    assert len(a) > 0
    pd.testing.assert_frame_equal(a, b)


def test_penalties_per_bot_are_the_same_on_the_lake(dbcon: Any, lakecon: Any) -> None:
    per_bot = ("select p.player_name, count(*) as n, sum(x.cards_received) as cards from penalties x "
               "join players p on p.match_id = x.match_id and p.player_code = x.player group by all order by all")  # fmt: skip
    a, b = dbcon.execute(per_bot).fetchall(), lakecon.execute(per_bot).fetchall()
    assert len(a) >= 2 and a == b
    pd.testing.assert_frame_equal(validation.report_penalties(dbcon), validation.report_penalties(lakecon))


def _examples(con: Any) -> dict[str, dict[str, Any]]:
    """One match of every game, and values for the queries' parameters."""
    out = {}
    for game in ("algori-uno", "kakomimasu", "chaser"):
        (match,) = con.execute("select min(match_id) from matches where game = ?", [game]).fetchone()
        (player,) = con.execute("select min(player_name) from players where match_id = ?", [match]).fetchone()
        out[game] = {"match": match, "player": None, "bot": player, "game": game, "matches": None, "round": 1,
                     "seq": 5, "first": 1, "last": 40, "limit": 1000, "family": None, "severity": None}  # fmt: skip
    return out


#: Queries that read how raw lines are stored, not what they say: their callers (``dashboard.raw_event``,
#: ``match_records``, ``queries.boards``) are compared instead.
STORAGE_QUERIES = {"raw/unpacked", "raw/blocks", "raw/block_starts", "raw/unpacked_seqs", "board/raw_event", "match_records"}


def test_every_read_query_gives_the_same_result_on_the_lake(dbcon: Any, lakecon: Any) -> None:
    """Every ``queries/sql`` file (the ones added later too), with one match of every game for ``$match``."""
    ran = 0
    for path in sorted((queries.SQL_DIR).rglob("*.sql")):
        name = str(path.relative_to(queries.SQL_DIR).with_suffix(""))
        if name in STORAGE_QUERIES:  # how raw lines are stored (packed in the database, text in the lake)
            continue
        text = queries.sql(name)
        wanted = set(re.findall(r"\$([a-z_]+)", re.sub(r"--[^\n]*", "", text)))
        for game, values in _examples(dbcon).items():
            params = {p: values.get(p) for p in wanted}
            try:
                a = dbcon.execute(text, params).df()
            except duckdb.Error as exc:  # a query that needs other parameters: the lake must fail alike
                with pytest.raises(duckdb.Error):
                    lakecon.execute(text, params).df()
                print(f"{name} ({game}): {exc.__class__.__name__} on both")
                continue
            b = lakecon.execute(text, params).df()
            _frames_equal(a, b)
            ran += 1
            if not wanted & {"match", "bot", "game"}:
                break
    assert ran >= 40


def test_the_dashboards_query_functions_give_the_same_frames(dbcon: Any, lakecon: Any) -> None:
    ex = _examples(dbcon)
    uno, kako, chaser = ex["algori-uno"]["match"], ex["kakomimasu"]["match"], ex["chaser"]["match"]
    uno_matches = list(dbcon.execute("select match_id from matches where game = 'algori-uno' order by 1").fetchall())
    uno_matches = [m for (m,) in uno_matches]
    calls = [
        lambda c: dashboard.match_list(c), lambda c: dashboard.match_list(c, "chaser"),
        lambda c: dashboard.bot_stats(c), lambda c: dashboard.standings(c, uno_matches),
        lambda c: dashboard.game_results(c, "kakomimasu"), lambda c: dashboard.game_results(c, "chaser"),
        lambda c: dashboard.penalties(c), lambda c: dashboard.violations(c, severity="error"),
        lambda c: dashboard.scoreboard(c, uno), lambda c: dashboard.round_index(c, uno),
        lambda c: dashboard.round_events(c, uno, 1), lambda c: dashboard.match_summary(c, kako),
        lambda c: dashboard.player_rounds(c, uno), lambda c: dashboard.live_matches(c),
        lambda c: standings.preliminary_group(dashboard.standings(c, uno_matches)),
        lambda c: standings.final_stage(dashboard.standings(c, uno_matches), uno),
        lambda c: validation.report_matches(c, chaser), lambda c: validation.report_scores(c),
    ]  # fmt: skip
    for call in calls:
        a, b = call(dbcon), call(lakecon)
        pd.testing.assert_frame_equal(a, b)
    assert len(dashboard.penalties(lakecon)) > 0 and len(dashboard.game_results(lakecon, "chaser")) > 0
    assert dashboard.games_present(dbcon) == dashboard.games_present(lakecon)
    assert sorted(dashboard.games_present(lakecon)) == ["algori-uno", "chaser", "kakomimasu"]
    assert dashboard.player_names(dbcon, chaser) == dashboard.player_names(lakecon, chaser)
    assert dashboard.match_records(dbcon, kako) == dashboard.match_records(lakecon, kako)
    assert dashboard.match_records(dbcon, chaser) == dashboard.match_records(lakecon, chaser)
    (seq, raw), = dbcon.execute("select max(seq), 1 from events where match_id = ?", [uno]).fetchall()
    assert dashboard.raw_event(dbcon, uno, seq) == dashboard.raw_event(lakecon, uno, seq)
    assert dashboard.raw_event(lakecon, uno, seq)["raw"].startswith("{")
    assert dashboard.rulesets(dbcon) == dashboard.rulesets(lakecon)


def test_match_ids_with_a_colon_survive_the_round_trip(db: Path, lake: Path, lakecon: Any) -> None:
    ids = {m for (m,) in _db_query(db, "select match_id from matches")}
    prefixed = {m for m in ids if m.startswith(("kakomimasu:", "chaser:"))}
    assert any(m.startswith("kakomimasu:") for m in prefixed) and any(m.startswith("chaser:") for m in prefixed)
    folders = {p.name for p in (lake / "matches").glob("game=*/match_id=*")}
    assert {f"match_id={m.replace(':', '%3A')}" for m in prefixed} <= folders  # the colon is encoded in the folder
    assert {m for (m,) in lakecon.execute("select match_id from matches").fetchall()} == ids
    arrow = ds.dataset(lake / "matches", format="parquet", partitioning="hive").to_table()
    assert set(arrow.column("match_id").to_pylist()) == ids
    for m in prefixed:  # and a lookup by the id finds the match's rows
        n = lakecon.execute("select count(*) from events where match_id = ?", [m]).fetchone()
        assert n == _db_query(db, "select count(*) from events where match_id = ?", [m])[0]


# ---- writing into an existing lake --------------------------------------------------------------------------


def test_reexporting_one_match_replaces_only_its_folders(db: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    export(db, lake)
    kako = _db_scalar(db, "select min(match_id) from matches where game = 'kakomimasu'")
    stale = next((lake / "kakomimasu_actions").glob(f"game=*/match_id={kako.replace(':', '%3A')}"))
    shutil.copy(stale / "part-0.parquet", stale / "part-7.parquet")  # a left-over file of that match
    before = _files(lake)
    report = export(db, lake, matches=[kako.removeprefix("kakomimasu:")])  # the game id without Kifu's prefix
    assert report.matches == 1
    after = _files(lake)
    assert set(after) == set(before) - {str((stale / "part-7.parquet").relative_to(lake))}
    mine = [f for f in after if _match_of(f) == kako]
    others = [f for f in after if f not in mine and "/game=" in f]
    assert len(mine) >= 5 and len(others) > 100
    assert all(after[f] == before[f] for f in others), "another match's file changed"
    assert all(after[f][0] != before[f][0] for f in mine), "the match's files were not written again"
    for table, cols in _tables(db).items():
        assert _arrow_rows(lake, table, [c for c, _ in cols]) == _db_rows(db, table), table


def test_exporting_twice_gives_the_same_lake(db: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    first = export(db, lake)
    files = _files(lake)
    second = export(db, lake)
    assert (second.files, second.matches, second.tables) == (first.files, first.matches, first.tables)
    again = _files(lake)
    assert set(again) == set(files) and len(again) == first.files
    con = connect_lake(lake)
    try:
        for table in _tables(db):
            assert _sorted_rows(con.execute(f'select * from "{table}"').fetchall()) == _db_rows(db, table), table
    finally:
        con.close()


def test_game_and_match_restrict_what_is_written(db: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    report = export(db, lake, games=["chaser"])
    chaser = {m for (m,) in _db_query(db, "select match_id from matches where game = 'chaser'")}
    assert report.matches == len(chaser) > 5
    assert {p.name for p in (lake / "matches").iterdir()} == {"game=chaser"}
    con = connect_lake(lake)
    try:
        assert {m for (m,) in con.execute("select match_id from matches").fetchall()} == chaser
        assert con.execute("select count(*) from chaser_actions").fetchone() == \
            _db_query(db, "select count(*) from chaser_actions")[0]  # fmt: skip
        assert con.execute("select count(*) from load_runs").fetchone()[0] >= 1  # whole tables every time
        assert con.execute("select count(*) from chaser_maps").fetchone() == _db_query(db, "select count(*) from chaser_maps")[0]
    finally:
        con.close()
    uno = _db_scalar(db, "select min(match_id) from matches where game = 'algori-uno'")
    assert export(db, lake, matches=[uno]).matches == 1
    assert {p.name for p in (lake / "matches").iterdir()} == {"game=chaser", "game=algori-uno"}
    with pytest.raises(ExportError, match="no match 'nope'"):
        export(db, lake, matches=["nope"])
    with pytest.raises(ExportError, match="no match of game 'uno'.*algori-uno"):
        export(db, lake, games=["uno"])


# ---- hostile ids -------------------------------------------------------------------------------------------

HOSTILE = ["kakomimasu:a/b", "chaser:x=1&y=2", "50% off", "日本語 の 試合", "..", "a\\b", "tab\there", "'; drop table x; --",
           "#1?[*]", "__unknown__"]  # fmt: skip


def test_any_match_id_and_rows_without_a_match_survive_the_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "hostile.duckdb"
    con = duckdb.connect(str(path))
    queries.apply_schema(con)
    for i, m in enumerate(HOSTILE):
        game = None if m == "50% off" else "chaser" if i % 2 else "kakomimasu"
        con.execute("insert into matches (match_id, game, status, n_events) values (?, ?, 'finished', ?)", [m, game, i])
        con.execute("insert into players (match_id, player_code, player_name) values (?, 'COOL', ?)", [m, f"bot/{i}"])
    # findings of a match with no matches row, and of none
    con.execute("insert into violations (match_id, code, message) values ('ghost:1', 'c', 'no match row'), "
                "(null, 'c', 'no match at all')")  # fmt: skip
    con.close()
    lake = tmp_path / "lake"
    export(path, lake, fmt="parquet")
    assert (lake / "violations" / f"game={UNKNOWN_GAME}" / "match_id=ghost%3A1" / "part-0.parquet").is_file()
    assert (lake / "violations" / f"game={UNKNOWN_GAME}" / f"match_id={NULL_PARTITION}" / "part-0.parquet").is_file()
    assert all(len(list(p.iterdir())) == 1 for p in (lake / "matches").glob("game=*/match_id=*"))
    assert len(list((lake / "matches").glob("game=*/match_id=*"))) == len(HOSTILE)
    # a match whose game is NULL: its own row under the NULL folder, its players' under __unknown__
    assert (lake / "matches" / f"game={NULL_PARTITION}" / "match_id=50%25%20off").is_dir()
    assert (lake / "players" / f"game={UNKNOWN_GAME}" / "match_id=50%25%20off").is_dir()
    lc = connect_lake(lake)
    try:
        assert sorted(m for (m,) in lc.execute("select match_id from matches").fetchall()) == sorted(HOSTILE)
        assert lc.execute("select match_id from matches where game is null").fetchall() == [("50% off",)]
        assert lc.execute("select match_id, player_name from players order by 2").fetchall() == \
            sorted(((m, f"bot/{i}") for i, m in enumerate(HOSTILE)), key=lambda r: r[1])  # fmt: skip
        assert sorted(lc.execute("select match_id, message from violations").fetchall(), key=repr) == \
            sorted([("ghost:1", "no match row"), (None, "no match at all")], key=repr)  # fmt: skip
    finally:
        lc.close()
    arrow = ds.dataset(lake / "matches", format="parquet", partitioning="hive").to_table()
    assert sorted(arrow.column("match_id").to_pylist()) == sorted(HOSTILE)
    # re-exporting one of them replaces just its folder
    before = _files(lake)
    export(path, lake, matches=["kakomimasu:a/b"])
    after = _files(lake)
    assert set(after) == set(before)
    changed = {f for f in after if after[f][0] != before[f][0] and "/game=" in f}
    assert {_match_of(f) for f in changed} == {"kakomimasu:a/b"}


# ---- CSV ---------------------------------------------------------------------------------------------------


def test_csv_lake_reads_back_the_same_rows(db: Path, tmp_path: Path) -> None:
    lake = tmp_path / "csv"
    assert main(["export", "--db", str(db), "--to", str(lake), "--format", "csv", "--no-progress"]) == 0
    assert not list(lake.rglob("*.parquet"))
    meta = json.loads((lake / META_FILE).read_text(encoding="utf-8"))
    assert meta["format"] == "csv"
    events = next((lake / "events").rglob("part-0.csv"))
    header = events.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header == [c for c, _ in _tables(db)["events"] if c != "match_id"]
    assert (lake / "load_runs" / "part-0.csv").read_text(encoding="utf-8").startswith("run_id,")
    con = connect_lake(lake)
    try:
        for table in _tables(db):
            assert _sorted_rows(con.execute(f'select * from "{table}"').fetchall()) == _db_rows(db, table), table
        pd.testing.assert_frame_equal(con.execute(queries.sql("matches")).df(), _db_df(db, queries.sql("matches")))
    finally:
        con.close()
    assert main(["export", "--db", str(db), "--to", str(lake), "--no-progress"]) == 2  # parquet into a CSV lake


# ---- refusals ----------------------------------------------------------------------------------------------


def test_a_lake_of_another_schema_version_is_refused(db: Path, lake: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    old = tmp_path / "old"
    shutil.copytree(lake, old)
    meta = json.loads((old / META_FILE).read_text(encoding="utf-8"))
    meta["schema_version"] = "6"
    (old / META_FILE).write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(LakeError, match=f"schema 6, this Kifu reads schema {queries.SCHEMA_VERSION}"):
        connect_lake(old)
    before = _files(old)
    assert main(["export", "--db", str(db), "--to", str(old), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "schema 6" in err and f"schema {queries.SCHEMA_VERSION}" in err
    assert _files(old) == before
    # an empty lake of another version is written afresh
    for entry in old.iterdir():
        if entry.is_dir():
            shutil.rmtree(entry)
    assert main(["export", "--db", str(db), "--to", str(old), "--no-progress"]) == 0
    assert json.loads((old / META_FILE).read_text(encoding="utf-8"))["schema_version"] == queries.SCHEMA_VERSION
    with pytest.raises(LakeError, match="not a Kifu lake"):
        connect_lake(tmp_path)


def test_a_missing_or_foreign_database_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def run(db: Path, to: Path) -> str:
        assert main(["export", "--db", str(db), "--to", str(to), "--no-progress"]) == 2
        out = capsys.readouterr()
        assert out.out == ""
        lines = out.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("kifu export: ")
        return lines[0]

    assert "no such database" in run(tmp_path / "missing.duckdb", tmp_path / "lake")
    assert not (tmp_path / "lake").exists()
    foreign = tmp_path / "foreign.duckdb"
    con = duckdb.connect(str(foreign))
    con.execute("create table t (x int)")
    con.close()
    assert "not Kifu's" in run(foreign, tmp_path / "lake")
    text = tmp_path / "log.jsonl"
    text.write_text('{"event": "join-room"}\n' * 10)
    assert "not a DuckDB database" in run(text, tmp_path / "lake")
    assert "is a folder" in run(tmp_path, tmp_path / "lake")


def test_a_folder_that_is_not_a_lake_is_left_alone(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    assert main(["export", "--db", str(db), "--to", str(tmp_path), "--no-progress"]) == 2
    assert "not empty and not a Kifu lake" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


# ---- the command -------------------------------------------------------------------------------------------


def test_the_command_end_to_end(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lake = tmp_path / "out" / "lake"
    assert main(["export", "--db", str(db), "--to", str(lake)]) == 0
    out = capsys.readouterr()
    (line,) = out.out.strip().splitlines()
    n_tables, n_matches, n_files = (int(x) for x in re.match(r"exported (\d+) tables, (\d+) matches, (\d+) files, ", line).groups())
    assert n_tables == len(_tables(db))
    assert n_matches == _db_scalar(db, "select count(*) from matches")
    assert n_files == len(_files(lake))
    assert re.search(r"files, [\d.]+ [KMG]?B in [\d.]+ s", line)
    assert "export" in out.err  # the progress bar
    kako = _db_scalar(db, "select min(match_id) from matches where game = 'kakomimasu'")
    chaser = _db_scalar(db, "select min(match_id) from matches where game = 'chaser'")
    assert main(["export", "--db", str(db), "--to", str(lake), "--match", kako, chaser, "--no-progress"]) == 0
    assert re.match(r"exported \d+ tables, 2 matches, ", capsys.readouterr().out)
    assert main(["export", "--db", str(db), "--to", str(lake), "--game", "algori-uno", "--no-progress"]) == 0
    assert main(["export", "--db", str(db), "--to", str(lake), "--game", "go", "--no-progress"]) == 2
    with pytest.raises(SystemExit):
        main(["export", "--db", str(db), "--to", str(lake), "--format", "xlsx"])


# ---- small helpers on the database ---------------------------------------------------------------------------


def _db_query(db: Path, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def _db_scalar(db: Path, sql: str) -> Any:
    return _db_query(db, sql)[0][0]


def _db_df(db: Path, sql: str) -> pd.DataFrame:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).df()
    finally:
        con.close()


# ---- what cannot be written is skipped, the rest written; raw lines in bounded windows -------------------------


def test_a_match_whose_folder_cannot_be_made_is_skipped_and_listed(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Ingest takes any match id; one too long for a folder name (255 bytes once encoded) is left out of the
    lake — every other match and the rows of no match are written — listed at the end, exit 1."""
    path = tmp_path / "long.duckdb"
    long_id = "chaser:" + "é" * 200  # 400 bytes of UTF-8, 1,200 once percent-encoded
    con = duckdb.connect(str(path))
    queries.apply_schema(con)
    for m, game in (("kakomimasu:ok", "kakomimasu"), (long_id, "chaser"), ("M-short", "algori-uno")):
        con.execute("insert into matches (match_id, game, status, n_events) values (?, ?, 'finished', 1)", [m, game])
        con.execute("insert into players (match_id, player_code, player_name) values (?, 'P', 'bot')", [m])
    con.execute("insert into violations (match_id, code, message) values (null, 'c', 'no match at all')")
    con.close()
    lake = tmp_path / "lake"
    assert main(["export", "--db", str(path), "--to", str(lake), "--no-progress"]) == 1
    out, err = capsys.readouterr()
    assert re.match(r"exported \d+ tables, 2 matches, ", out)
    lines = err.strip().splitlines()
    assert len(lines) == 2 and "Traceback" not in err
    assert lines[0].startswith("kifu export: skipped match chaser:" + "é" * 33)
    assert "(207 characters)" in lines[0] and "too long for a folder name (1218 bytes once encoded; at most 255)" in lines[0]
    assert lines[1] == "kifu export: 1 match skipped, every other one written"
    lc = connect_lake(lake)
    try:
        assert sorted(m for (m,) in lc.execute("select match_id from matches").fetchall()) == ["M-short", "kakomimasu:ok"]
        assert sorted(m for (m,) in lc.execute("select match_id from players").fetchall()) == ["M-short", "kakomimasu:ok"]
        assert lc.execute("select match_id, message from violations").fetchall() == [(None, "no match at all")]
    finally:
        lc.close()
    # asked for by name, it is skipped the same way (and the lake keeps the others)
    assert main(["export", "--db", str(path), "--to", str(lake), "--match", long_id, "--no-progress"]) == 1
    assert "exported" in capsys.readouterr().out
    assert len(list((lake / "matches").glob("game=*/match_id=*"))) == 2


def test_raw_lines_are_written_window_by_window(db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``raw_activities`` is written ``RAW_WINDOW`` lines at a time (one part file each), every line's text
    the same as the whole-match write gives."""
    from kifu import export as export_module

    monkeypatch.setattr(export_module, "RAW_WINDOW", 97)
    lake = tmp_path / "lake"
    export(db, lake)
    biggest = _db_scalar(db, "select max(n) from (select count(*) as n from raw_activities group by match_id)")
    assert biggest > 97 * 3
    parts = max(len(list(f.glob("part-*.parquet"))) for f in (lake / "raw_activities").glob("game=*/match_id=*"))
    assert parts >= math.ceil(biggest / 97)
    columns = [c for c, _ in _tables(db)["raw_activities"]]
    assert _arrow_rows(lake, "raw_activities", columns) == _db_rows(db, "raw_activities")


def test_a_match_the_file_system_refuses_to_take_is_skipped_and_listed(db: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """No space left while one match's events are written, and while another's raw lines are: those two matches
    are left out of every table (listed, exit 1), every other match is written whole."""
    import errno

    from kifu import export as export_module

    full = _db_scalar(db, "select min(match_id) from matches where game = 'algori-uno'")
    raw_full = _db_scalar(db, "select max(match_id) from matches where game = 'algori-uno'")
    assert full != raw_full
    real_copy = export_module._copy
    asked: list[str] = []

    def copy(con: Any, query: str, to: Path, options: str) -> None:
        events = 'main."events"' in query
        if (events and "where match_id " not in query) or (events and f"where match_id = {export_module._literal(full)}"
                in query) or ("kifu_export_part" in query and f"match_id={export_module.folder_value(raw_full)}/"
                              in str(to)):  # fmt: skip
            asked.append(str(to))
            raise OSError(errno.ENOSPC, "No space left on device")
        real_copy(con, query, to, options)

    monkeypatch.setattr(export_module, "_copy", copy)
    lake = tmp_path / "lake"
    assert main(["export", "--db", str(db), "--to", str(lake), "--no-progress"]) == 1
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert "Traceback" not in err and len(lines) == 3, err
    assert sorted(lines[:2]) == sorted(f"kifu export: skipped match {m}: its files cannot be written (No space left "
                                       "on device)" for m in (full, raw_full))  # fmt: skip
    assert lines[2] == "kifu export: 2 matches skipped, every other one written"
    assert len(asked) == 3  # the whole table, then the one match; the raw lines of the other
    n = _db_scalar(db, "select count(*) from matches")
    assert f", {n - 2} matches, " in out
    for table, cols in _tables(db).items():
        want = [r for r in _db_rows(db, table) if table == "raw_blocks" or "match_id" not in [c for c, _ in cols]
                or r[[c for c, _ in cols].index("match_id")] not in (full, raw_full)]  # fmt: skip
        if table == "raw_blocks":
            continue
        assert _arrow_rows(lake, table, [c for c, _ in cols]) == want, table


def test_a_match_whose_old_folders_cannot_be_replaced_keeps_them(db: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Permission denied moving one match's old folder aside: that match keeps its old folders in every table
    (the moves made for it undone), every other match is replaced; listed, exit 1."""
    from kifu import export as export_module

    lake = tmp_path / "lake"
    export(db, lake)
    stuck = _db_scalar(db, "select min(match_id) from matches where game = 'chaser'")
    folder = f"match_id={export_module.folder_value(stuck)}"
    for f in (lake / "players").glob(f"game=*/{folder}/part-*.parquet"):
        f.write_bytes(f.read_bytes())  # rewritten: its mtime tells whether the export replaced it
    before = _files(lake)
    real_move = export_module._move

    def move(src: Any, dst: Any) -> None:
        if Path(src).name == folder and Path(src).parent.parent.name == "matches" and lake in Path(src).parents:
            raise PermissionError(13, "Permission denied")
        real_move(src, dst)

    monkeypatch.setattr(export_module, "_move", move)
    assert main(["export", "--db", str(db), "--to", str(lake), "--no-progress"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"kifu export: skipped match {stuck}: its folders cannot be replaced (Permission denied)",
                   "kifu export: 1 match skipped, every other one written"]  # fmt: skip
    after = _files(lake)
    assert set(after) == set(before)
    mine = [f for f in after if _match_of(f) == stuck]
    assert mine and all(after[f] == before[f] for f in mine), "the stuck match's folders changed"
    others = [f for f in after if _match_of(f) not in (stuck, None) and "/game=" in f]
    assert others and all(after[f][0] != before[f][0] for f in others), "another match was not replaced"
    assert not list(lake.glob(".kifu-export-*"))
