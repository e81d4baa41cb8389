"""`kifu validate` answers a contestant's questions: every penalty with the finding that explains it, only
the matches a player played, how a Kakomimasu or CHaser game ended, links to the dashboard, and names
from logs kept inert in text, Markdown and JSON."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kifu.cli import main
from common.safe import markdown, terminal
from tests.conftest import REPO, early_timeout_log, fixture_path, ingest, query

MISBEHAVER = "P-00000006"
PENALTY_LINE = re.compile(r"^      round +(\d+) turn +(\d+) seq +(\d+): (.*) · (http\S+)$")
BAD_WORDS = re.compile(r"\b(nan|NaN|None)\b")


@pytest.fixture(autouse=True)
def _no_dashboard_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KIFU_DASHBOARD_URL", raising=False)


Capture = pytest.CaptureFixture[str]


def run(capsys: Capture, *argv: str) -> tuple[int, str, str]:
    code = main(["validate", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def table_penalties(db: Path, player: str = MISBEHAVER) -> dict[int, tuple[Any, ...]]:
    """seq -> (round, turn, cause, cards, explaining codes) straight from the tables."""
    rows = query(db, """
        select x.seq, x.round_no, x.turn_no, x.cause, x.cards_received,
               (select string_agg(distinct v.code, ', ' order by v.code) from violations v
                 where v.match_id = x.match_id and v.penalty_seq = x.seq and v.player = x.player
                   and v.family = 'player-rule')
        from penalties x where x.player = ?""", [player])  # fmt: skip
    return {r[0]: r[1:] for r in rows}


def params(url: str) -> tuple[str, dict[str, str]]:
    parts = urlsplit(url)
    return parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()}


# ---- every penalty, one by one ----------------------------------------------------------------------


def test_json_lists_every_penalty_as_the_tables_hold_it(sample_db: Path, capsys: Capture) -> None:
    code, out, _ = run(capsys, "--db", str(sample_db), "--player", "Misbehaver", "--format", "json")
    assert code == 0
    (match,) = json.loads(out)
    (bot,) = match["players"]
    want = table_penalties(sample_db)
    assert len(want) == 118 and len(bot["penalties"]) == 118
    assert [p["seq"] for p in bot["penalties"]] == sorted(want)  # in the order they were given
    for p in bot["penalties"]:
        assert {"round", "turn", "seq", "cause", "explained_by", "cause_title", "explained_by_title",
                "finding", "cards", "url"} <= set(p)  # fmt: skip
        assert (p["round"], p["turn"], p["cause"], p["cards"], p["explained_by"]) == want[p["seq"]]
        assert p["explained_by"] and p["finding"] and p["explained_by_title"] and p["cause_title"]
        assert p["cause_title"] != p["cause"]
        assert p["url"].startswith("http://127.0.0.1:8501/round_browser?")
        want_query = {"match": match["match_id"], "round": str(p["round"]), "seq": str(p["seq"])}
        assert params(p["url"]) == ("/round_browser", want_query)
    titles = {p["cause"]: p["cause_title"] for p in bot["penalties"]}
    assert titles["timeout"] == "Too slow (5 seconds)" and titles["Card play invalid."] == "Not a real card"


def test_text_lists_every_penalty_one_line_each_first(sample_db: Path, capsys: Capture) -> None:
    code, out, _ = run(capsys, "--db", str(sample_db), "--player", "Misbehaver")
    assert code == 0
    lines = out.splitlines()
    found = [(i, PENALTY_LINE.match(line)) for i, line in enumerate(lines)]
    hits = [(i, m) for i, m in found if m]
    want = table_penalties(sample_db)
    assert len(hits) == 118
    for _i, m in hits:
        r, t, s = (int(x) for x in m.group(1, 2, 3))
        round_no, turn_no, cause, cards, codes = want[s]
        assert (r, t) == (round_no, turn_no)
        assert f'("{cause}")' in m.group(4) and f"[{codes}]" in m.group(4)
        want_query = {"match": "M-e1ca5f3cc1f5494f", "round": str(r), "seq": str(s)}
        assert params(m.group(5)) == ("/round_browser", want_query)
    first, last = hits[0][0], hits[-1][0]
    assert last - first == 117  # one line each, together
    assert lines.index("  Misbehaver (P-00000006): 118 penalties, 236 findings · http://127.0.0.1:8501/"
                       "player_rounds?match=M-e1ca5f3cc1f5494f&player=P-00000006") < first
    later = "\n".join(lines[last:])
    for part in ("think time:", "penalties by the dealer's cause:", "findings by check:"):
        assert part in later
    # a penalty in words: the dealer's cause, the finding that explains it and what the bot sent
    timeout = (r"seq +1940: Too slow \(5 seconds\) \(\"timeout\"\), 2 cards → No move within 5 seconds "
               r"\[response-time\]: P-00000006 did not act within 5 s \(timeout\) · ")
    assert any(re.search(timeout, line) for line in lines)


def test_markdown_lists_every_penalty_as_a_table_row(sample_db: Path, capsys: Capture) -> None:
    code, out, _ = run(capsys, "--db", str(sample_db), "--player", "Misbehaver", "--format", "markdown")
    assert code == 0
    rows = [line for line in out.splitlines() if re.match(r"^\| \d+ \| \d+ \| \d+ \| ", line)]
    want = table_penalties(sample_db)
    assert len(rows) == 118
    for row in rows:
        r, t, s = (int(x) for x in re.match(r"^\| (\d+) \| (\d+) \| (\d+) \| ", row).groups())
        assert (r, t) == want[s][:2]
        assert markdown(want[s][4]) in row and f"&round={r}&seq={s})" in row
    assert "<" not in out


def test_think_time_says_why_timeouts_are_not_in_it(sample_db: Path, capsys: Capture) -> None:
    # the data: a timed-out turn has no action of the bot between its clock's start and the timeout
    timeouts = query(sample_db, """
        select p.seq,
               (select count(*) from think_times t
                where t.match_id = p.match_id and t.player = p.player and t.seq < p.seq
                  and t.seq > (select max(e.seq) from events e
                               where e.match_id = p.match_id and e.seq < p.seq and e.event = 'next-player'))
        from penalties p where p.player = ? and p.cause in ('timeout', 'color-of-wild timeout')""",
                     [MISBEHAVER])  # fmt: skip
    assert len(timeouts) == 4 and all(n == 0 for _, n in timeouts)
    late = "select count(*) from think_times where player = ? and think_ms > 5000"
    assert query(sample_db, late, [MISBEHAVER]) == [(0,)]
    code, out, _ = run(capsys, "--db", str(sample_db), "--player", "Misbehaver")
    (line,) = [x for x in out.splitlines() if "think time:" in x]
    assert "0 over 5 s — the 4 timeouts (no action within 5 s) are counted as penalties, not here" in line
    code, out, _ = run(capsys, "--db", str(sample_db), "--player", "JS Demo")
    (line,) = [x for x in out.splitlines() if "think time:" in x]
    assert "timeout" not in line  # no timeout: nothing to explain
    code, out, _ = run(capsys, "--db", str(sample_db), "--player", "Misbehaver", "--format", "json")
    assert json.loads(out)[0]["players"][0]["think_time"]["timeouts"] == 4


def test_dashboard_url_option_and_environment(sample_db: Path, capsys: Capture,
                                              monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    code, out, _ = run(capsys, "--db", str(sample_db), "--player", "Misbehaver", "--format", "json",
                       "--dashboard-url", "https://kifu.example.org/team/")  # fmt: skip
    urls = [p["url"] for p in json.loads(out)[0]["players"][0]["penalties"]]
    assert code == 0 and all(u.startswith("https://kifu.example.org/team/round_browser?match=") for u in urls)
    monkeypatch.setenv("KIFU_DASHBOARD_URL", "http://10.0.0.7:8600")
    code, out, _ = run(capsys, "--db", str(sample_db), "--player", "Misbehaver")
    assert code == 0 and "http://10.0.0.7:8600/round_browser?match=M-e1ca5f3cc1f5494f&round=" in out
    assert "127.0.0.1:8501" not in out
    for bad in ("javascript:alert(1)", "http://x/ onerror", "http://x/)[y](z", "ftp://x", "http://x/\x1b[2J"):
        code, out, err = run(capsys, "--db", str(sample_db), "--dashboard-url", bad)
        assert code == 2 and out == "" and "--dashboard-url" in err and "\x1b" not in err


# ---- a player's matches only; Kakomimasu and CHaser results ---------------------------------------------


def played(db: Path, player: str) -> set[str]:
    rows = query(db, "select match_id from players where ? in (player_name, player_code)", [player])
    return {r[0] for r in rows}


@pytest.mark.parametrize("player", ["Misbehaver", "hanako", "greedy_c", "P-00000006"])
def test_player_without_match_reports_only_the_matches_it_played(
    mixed_db: Path, player: str, capsys: Capture
) -> None:
    games = {r[0] for r in query(mixed_db, "select distinct game from matches")}
    assert games == {"algori-uno", "kakomimasu", "chaser"}
    code, out, _ = run(capsys, "--db", str(mixed_db), "--player", player, "--format", "json")
    assert code == 0
    report = json.loads(out)
    want = played(mixed_db, player)
    assert want and {m["match_id"] for m in report} == want
    for m in report:  # the player is there, even where it has nothing to report
        assert any(player in (p["player"], p["code"]) for p in m["players"])
    code, text, _ = run(capsys, "--db", str(mixed_db), "--player", player)
    headers = [line for line in text.splitlines() if line and not line.startswith(" ")]
    assert len(headers) == len(want) and "  no findings" not in text.splitlines()


def test_kakomimasu_blocks_lead_with_the_result_in_turns(mixed_db: Path, capsys: Capture) -> None:
    games = query(mixed_db, """
        select m.match_id, m.winner, w.player_name, g.decided_by, g.turns_logged, g.total_turn
        from matches m join kakomimasu_games g using (match_id)
        left join players w on w.match_id = m.match_id and w.player_code = m.winner""")  # fmt: skip
    assert len(games) >= 10
    for match_id, winner, winner_name, decided_by, logged, total in games:
        for fmt in ("text", "markdown", "json"):
            code, out, _ = run(capsys, "--db", str(mixed_db), "--match", match_id, "--format", fmt)
            assert code == 0
            if fmt != "json":
                assert not re.search(r"\bround", out, re.I) and not BAD_WORDS.search(out), (match_id, fmt)
        (m,) = json.loads(out)
        assert m["result"]["winner_code"] == winner and m["result"]["winner"] == winner_name
        code, text, _ = run(capsys, "--db", str(mixed_db), "--match", match_id)
        lines = text.splitlines()
        assert lines[0].startswith("Kakomimasu · ") and match_id in lines[0]
        if logged:
            assert f"{logged} of {total} turns" in lines[0]
        else:  # a 2020 log holding one snapshot: the final board, no turn to replay
            assert f"{total} turns (the log keeps the final board only)" in lines[0] and winner is not None
        assert lines[1].startswith("  result: ")
        if winner is not None:
            who, _, how = lines[1].removeprefix("  result: ").partition(" wins on ")
            assert who.startswith(winner_name) and how.startswith(("total points", "wall points"))
        else:
            assert decided_by == "draw" or f"not finished: {logged} of {total} turns logged" in lines[1]
        scores = query(mixed_db, "select final_score from players where match_id = ?", [match_id])
        assert all(f" {s} " in lines[1] + " " for (s,) in scores)
        encoded = match_id.replace(":", "%3A")
        assert lines[2] == f"  dashboard: http://127.0.0.1:8501/kakomimasu_board?match={encoded}"
        for f in (f for p in m["players"] for f in p["findings"]):
            path, q = params(f["url"])
            assert path == "/kakomimasu_board" and q == {"match": match_id, "turn": str(f["example_turn"])}


def test_chaser_blocks_lead_with_the_result_in_turns(mixed_db: Path, capsys: Capture) -> None:
    games = query(mixed_db, """
        select m.match_id, c.sentence, w.player_name, c.end_turn, c.turns
        from matches m join chaser_games c using (match_id)
        left join players w on w.match_id = m.match_id and w.player_code = m.winner""")  # fmt: skip
    assert len(games) >= 10
    for match_id, sentence, winner_name, end_turn, turns in games:
        for fmt in ("text", "markdown"):
            code, out, _ = run(capsys, "--db", str(mixed_db), "--match", match_id, "--format", fmt)
            assert code == 0
            assert not re.search(r"\bround", out, re.I) and not BAD_WORDS.search(out), (match_id, fmt)
        code, text, _ = run(capsys, "--db", str(mixed_db), "--match", match_id)
        lines = text.splitlines()
        assert lines[0].startswith("CHaser · ") and f"ended at turn {end_turn} of {turns}" in lines[0]
        assert lines[1].startswith("  result: ") and sentence in lines[1] and "items: " in lines[1]
        if winner_name is not None:
            assert lines[1].startswith(f"  result: {winner_name} (")
        code, out, _ = run(capsys, "--db", str(mixed_db), "--match", match_id, "--format", "json")
        (m,) = json.loads(out)
        assert m["result"]["sentence"] == sentence and m["result"]["winner"] == winner_name
        for f in (f for p in m["players"] for f in p["findings"]):
            path, q = params(f["url"])
            assert path == "/chaser_board" and q == {"match": match_id, "seq": str(f["example_seq"])}
    code, text, _ = run(capsys, "--db", str(mixed_db), "--match", "chaser:20261122045745-85aa0761c7f6b89e")
    assert "  result: greedy_c (Cool) wins: baddir_h sent an action without a valid direction at turn 9" \
        in text
    assert "e.g. turn 9 (action 18): HOT sent Walk" in text


def test_unknown_match_lists_every_game_by_a_label(mixed_db: Path, capsys: Capture) -> None:
    code, out, err = run(capsys, "--db", str(mixed_db), "--match", "nope")
    assert code == 2 and out == "" and not BAD_WORDS.search(err)
    known = err.splitlines()[1:]
    assert len(known) == query(mixed_db, "select count(*) from matches")[0][0]
    assert len(set(known)) == len(known)  # a person can tell them apart
    assert ("  Kakomimasu · 対AI戦：hanako vs AI(a3) · board island-4 · "
            "kakomimasu:d8242f4e-4a76-4a19-b49f-082b56072c08") in known
    assert "  CHaser · greedy_c vs greedy_h · map 交流大会2024-決勝 · chaser:20261122045541-d4922b0d91b7fbbd" \
        in known
    assert "  ALGORI UNO · misbehave-bind2-40 · D-00000003 · M-e1ca5f3cc1f5494f" in known
    code, out, err = run(capsys, "--db", str(mixed_db), "--player", "nobody at all")
    assert code == 2 and "no player 'nobody at all' in any match" in err
    assert "hanako" in err and "greedy_c" in err and "Misbehaver (P-00000006)" in err


# ---- untrusted text stays inert -------------------------------------------------------------------------

EVIL = "\x1b[31mevil\x1b]0;pwned\x07\x1b[2J<img src=x onerror=alert(1)>"


def test_hostile_kakomimasu_name(tmp_path: Path, capsys: Capture) -> None:
    doc = json.loads((REPO / "tests/data/kakomimasu/game22_A-2.json").read_text(encoding="utf-8"))
    doc["players"][0]["id"] = EVIL
    (tmp_path / "km.json").write_text(json.dumps(doc), encoding="utf-8")
    db = tmp_path / "k.duckdb"
    ingest(db, tmp_path / "km.json")
    assert query(db, "select count(*) from players where player_name = ?", [EVIL]) == [(1,)]
    code, text, _ = run(capsys, "--db", str(db))
    assert code == 0 and terminal(EVIL) in text and all(line.isprintable() for line in text.splitlines())
    assert "\x1b" not in text and "\x07" not in text
    code, md, _ = run(capsys, "--db", str(db), "--format", "markdown")
    assert code == 0 and "<" not in md and markdown(EVIL) in md
    assert "&lt;img src=x onerror=alert\\(1\\)&gt;" in md
    assert all(line.isprintable() for line in md.splitlines())
    code, out, _ = run(capsys, "--db", str(db), "--player", EVIL, "--format", "json")
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    (m,) = json.loads(out)
    assert [p["player"] for p in m["players"]] == [EVIL]
    assert EVIL in [s["player"] for s in m["result"]["scores"]]
    for argv in (["--player", EVIL + "?"], ["--match", EVIL]):
        code, out, err = run(capsys, "--db", str(db), *argv)
        assert code == 2 and out == "" and "\x1b" not in err and "\x07" not in err
        assert terminal(EVIL) in err and all(line.isprintable() for line in err.splitlines())


PIECES = ["\x1b[31m", "\x1b]0;pwned\x07", "\x07", "\x00", "\x9b2J", "\x85", "\x7f", "\r", "\n", "\t",
          "\u2028", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
          "\u200b", "<img src=x onerror=alert(1)>", "<script>", "&amp;", "# ", "**x**", "_y_",
          "[a](http://e)", "|", "`", "\\", "$x$", ":red[r]", "https://evil.example", "www.evil.example",
          "me@evil.example", "ハナコ"]  # fmt: skip
names = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=4)), min_size=1, max_size=6).map(
    lambda parts: "N" + "".join(parts))  # "N": never empty, never another player's name by chance
PLACEHOLDERS = ("Kifuplaceholderalgori", "Kifuplaceholderdealer", "Kifuplaceholderkakomimasu",
                "Kifuplaceholdergame", "Kifuplaceholderchaser", "Kifuplaceholdermap")  # fmt: skip
EXAMPLES = int(os.environ.get("KIFU_HYPOTHESIS_EXAMPLES") or (6 if os.environ.get("CI") else 20))


class Small:
    """One small database of every game, whose names a test sets (DuckDB parameters, no re-ingest)."""

    def __init__(self, path: Path) -> None:
        self.path = path

        def one(sql: str, *args: Any) -> Any:
            (row,) = query(path, sql, list(args))
            return row[0]

        self.algori = one("select match_id from matches where game = 'algori-uno'")
        self.bot = one("select distinct player from penalties where match_id = ?", self.algori)
        self.km = one("select match_id from matches where game = 'kakomimasu'")
        self.ch = one("select match_id from matches where game = 'chaser'")
        km_code = one("select player_code from players where match_id = ? and join_order = 1", self.km)
        self.codes = {"algori": (self.algori, self.bot), "kakomimasu": (self.km, km_code),
                      "chaser": (self.ch, "COOL")}  # fmt: skip
        get = "select player_name from players where match_id = ? and player_code = ?"
        self.original = {k: one(get, *v) for k, v in self.codes.items()}
        self.sentence = one("select sentence from chaser_games where match_id = ?", self.ch)
        self.messages = query(path, "select rowid, message from violations where match_id = ?", [self.km])

    def rename(self, algori: str, dealer: str, kakomimasu: str, game: str, chaser: str, board: str) -> None:
        con = duckdb.connect(str(self.path))
        try:
            for key, name in (("algori", algori), ("kakomimasu", kakomimasu), ("chaser", chaser)):
                con.execute("update players set player_name = $n where match_id = $m and player_code = $c",
                            {"n": name, "m": self.codes[key][0], "c": self.codes[key][1]})  # fmt: skip
            con.execute("update matches set dealer_name = ? where match_id = ?", [dealer, self.algori])
            con.execute("update kakomimasu_games set name = ? where match_id = ?", [game, self.km])
            con.execute("update chaser_games set map_name = ?, map_key = null, sentence = ? "
                        "where match_id = ?",
                        [board, self.sentence.replace(self.original["chaser"], chaser), self.ch])  # fmt: skip
            for rowid, message in self.messages:  # the validator's messages name the team too
                con.execute("update violations set message = ? where rowid = ?",
                            [message.replace(self.original["kakomimasu"], kakomimasu), rowid])  # fmt: skip
        finally:
            con.close()


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Small:
    d = tmp_path_factory.mktemp("report-small")
    db = d / "kifu.duckdb"
    ingest(db, fixture_path("speciallogic_timeout_probe_2"), REPO / "tests/data/kakomimasu/game22_A-2.json",
           REPO / "tests/data/chaser/put_on.txt")  # fmt: skip
    return Small(db)


def lines_of(text: str) -> Counter[str]:
    return Counter(text.splitlines())


@pytest.fixture(scope="module")
def placeholder_reports(small: Small) -> dict[str, str]:
    """The text and Markdown reports with plain placeholder names: a hostile name changes nothing but
    itself."""
    import contextlib
    import io

    small.rename(*PLACEHOLDERS)
    out = {}
    for fmt in ("text", "markdown"):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(["validate", "--db", str(small.path), "--format", fmt]) == 0
        out[fmt] = buf.getvalue()
    assert all(p in out["text"] for p in PLACEHOLDERS), "every placeholder is shown"
    return out


def visible(line: str) -> bool:
    """Printable but for the word joiner (U+2060, invisible) common.safe.markdown puts where a renderer would
    otherwise turn a name's URL or e-mail address into a link."""
    return line.replace("\u2060", "").isprintable()


def unescaped_pipes(line: str) -> int:
    """Cell delimiters of a GFM table row: pipes not escaped by a backslash."""
    return sum(1 for m in re.finditer(r"(\\*)\|", line) if len(m.group(1)) % 2 == 0)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.tuples(names, names, names, names, names, names))
def test_names_from_logs_stay_inert(small: Small, placeholder_reports: dict[str, str], capsys: Capture,
                                    hostile: tuple[str, ...]) -> None:  # fmt: skip
    small.rename(*hostile)
    db = str(small.path)
    # text: nothing non-printable; the names shown through terminal() and nothing else changed
    code, text, err = run(capsys, "--db", db)
    assert code == 0 and err == ""
    assert all(line.isprintable() for line in text.splitlines())
    want = placeholder_reports["text"]
    for placeholder, name in zip(PLACEHOLDERS, hostile, strict=True):
        want = want.replace(placeholder, terminal(name))
    assert lines_of(text) == lines_of(want)
    # Markdown: no raw "<", nothing non-printable, names only through markdown(), tables keep their columns
    code, md, _ = run(capsys, "--db", db, "--format", "markdown")
    assert code == 0 and "<" not in md and all(visible(line) for line in md.splitlines())
    want = placeholder_reports["markdown"]
    for placeholder, name in zip(PLACEHOLDERS, hostile, strict=True):
        want = want.replace(placeholder, markdown(name))
    assert lines_of(md) == lines_of(want)
    columns = 0
    for line in md.splitlines():
        if line.startswith("|"):
            columns = columns or unescaped_pipes(line)
            assert unescaped_pipes(line) == columns, line
        else:
            columns = 0
    # JSON: every name back exactly as the log had it
    code, out, _ = run(capsys, "--db", db, "--format", "json")
    assert code == 0 and all(line.isprintable() for line in out.splitlines())
    report = {m["match_id"]: m for m in json.loads(out)}
    algori, dealer, kakomimasu, game, chaser, board = hostile
    assert report[small.algori]["dealer_name"] == dealer and report[small.km]["game_name"] == game
    assert report[small.ch]["board"] == board
    for key, name in (("algori", algori), ("kakomimasu", kakomimasu), ("chaser", chaser)):
        match, code_ = small.codes[key]
        assert {s["code"]: s["player"] for s in report[match]["result"]["scores"]}[code_] == name
    assert {p["code"]: p["player"] for p in report[small.algori]["players"]}[small.bot] == algori
    # stderr: the hints of an unknown --player and --match, with the names they list and the text typed
    for argv in (["--player", chaser + "\x1b?"], ["--match", game + "\u202e"]):
        code, out, err = run(capsys, "--db", db, *argv)
        assert code == 2 and out == "" and all(line.isprintable() for line in err.splitlines())
    assert terminal(game) in err and terminal(board) in err and terminal(dealer) in err


# ---- Markdown that reads well raw -----------------------------------------------------------------------


@pytest.mark.parametrize("ch", list("\\`*_[]()#!|~$"))
def test_markdown_escapes_what_markdown_acts_on(ch: str) -> None:
    assert markdown(f"a{ch}b") == f"a\\{ch}b"


@pytest.mark.parametrize(("ch", "entity"), [("<", "&lt;"), (">", "&gt;"), ("&", "&amp;")])
def test_markdown_writes_html_characters_as_entities(ch: str, entity: str) -> None:
    assert markdown(f"a{ch}b") == f"a{entity}b"


def test_markdown_leaves_other_punctuation_alone() -> None:
    text = "misbehave-bind2-40 (D-00000003, M-e1ca) 1. a+b=c; 'q' \"q\" ? / : % ^ { } , ."
    assert markdown(text) == "misbehave-bind2-40 \\(D-00000003, M-e1ca\\) 1. a+b=c; 'q' \"q\" ? / : % ^ { } , ."


@pytest.mark.parametrize(("text", "want"), [
    ("- a", "\\- a"), ("+ a", "\\+ a"), ("= a", "\\= a"), ("> a", "&gt; a"), ("# a", "\\# a"),
    ("1. a", "1\\. a"), ("12) a", "12\\) a"), ("2024.map", "2024\\.map"), ("1.5 x", "1\\.5 x"),
    ("a - b", "a - b"), ("a 1. b", "a 1. b"),
])  # fmt: skip
def test_markdown_escapes_a_block_marker_only_at_the_start(text: str, want: str) -> None:
    assert markdown(text) == want


@pytest.mark.parametrize(("text", "want"), [
    ("see https://evil.example", "see https\u2060://evil.example"),
    ("HTTP://x", "HTTP\u2060://x"),
    ("www.evil.example", "www\u2060.evil.example"),
    ("me@evil.example", "me\u2060@evil.example"),
])  # fmt: skip
def test_markdown_breaks_autolinks_with_a_word_joiner(text: str, want: str) -> None:
    assert markdown(text) == want


# ---- a cut-off CHaser log, every player, the server, codes and ids as typed -----------------------------


def test_cut_chaser_log_says_where_the_log_stops(tmp_path: Path, capsys: Capture) -> None:
    log = tmp_path / "cut.txt"
    log.write_bytes(b"\n".join((REPO / "tests/data/chaser/put_on.txt").read_bytes().split(b"\n")[:56]) + b"\n")
    db = tmp_path / "kifu.duckdb"
    ingest(db, log)
    code, text, _ = run(capsys, "--db", str(db))
    assert code == 0
    header = text.splitlines()[0]
    assert " · log stops at turn 5 of 100 · " in header and "ended at" not in header and "?" not in header
    assert "  result: not finished: the log stops before the end of the game" in text
    assert "e.g. turn 5: the log stops at turn 5" in text and "action ?" not in text
    code, md, _ = run(capsys, "--db", str(db), "--format", "markdown")
    assert "log stops at turn 5 of 100" in md and "action ?" not in md


def test_where_leaves_out_what_the_log_does_not_give() -> None:
    from kifu.report import _where

    assert _where("chaser", None, 57, None) == "turn 57"
    assert _where("chaser", None, 9, 18) == "turn 9 (action 18)"
    assert _where("kakomimasu", None, None, None) == "the whole game"
    assert _where("algori-uno", 3, None, 17) == "round 3 seq 17"


def test_json_lists_every_player_of_every_match(mixed_db: Path, capsys: Capture) -> None:
    code, out, _ = run(capsys, "--db", str(mixed_db), "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert {m["game"] for m in report} == {"algori-uno", "kakomimasu", "chaser"}
    servers = 0
    for m in report:
        bots = [p for p in m["players"] if p["kind"] == "bot"]
        assert [p["code"] for p in bots] == [s["code"] for s in m["result"]["scores"]], m["match_id"]
        for p in m["players"]:
            assert {"penalties", "findings", "penalty_causes"} <= p.keys()
            if p["code"] is None:
                assert p["kind"] == {"kakomimasu": "server", "chaser": "server"}.get(m["game"], "dealer")
                servers += p["kind"] == "server"
    assert servers  # the Kakomimasu server has findings in these logs
    chaser = [m for m in report if m["game"] == "chaser"]
    assert all(len(m["players"]) >= 2 for m in chaser)  # no "players": [] in a clean game


def test_chaser_side_and_ids_as_a_person_types_them(mixed_db: Path, capsys: Capture) -> None:
    ids = query(mixed_db, "select match_id from matches where game in ('kakomimasu', 'chaser') order by 1")
    for (full,) in ids[:1] + ids[-1:]:
        bare = full.split(":", 1)[1]
        code, out, err = run(capsys, "--db", str(mixed_db), "--match", bare, "--format", "json")
        assert code == 0 and err == "" and [m["match_id"] for m in json.loads(out)] == [full]
    chaser = next(m for (m,) in ids if m.startswith("chaser:"))
    for typed in ("Cool", "cool", "COOL"):
        code, out, err = run(capsys, "--db", str(mixed_db), "--match", chaser, "--player", typed, "--format", "json")
        assert code == 0 and err == ""
        assert [p["code"] for p in json.loads(out)[0]["players"]] == ["COOL"]


def test_a_code_naming_different_bots_is_said_once(mixed_db: Path, capsys: Capture) -> None:
    code, out, err = run(capsys, "--db", str(mixed_db), "--player", "P-00000005")
    assert code == 0 and "Hoarder1 (P-00000005)" in out and "JS Demo (P-00000005)" in out
    assert err == ("kifu validate: P-00000005 is a different bot in different matches (Hoarder1, JS Demo): "
                   "give --match or a name\n")  # fmt: skip
    code, out, err = run(capsys, "--db", str(mixed_db), "--player", "JS Demo")
    assert code == 0 and err == ""


def test_a_penalty_the_log_contradicts_is_reported_as_the_dealers_fault(tmp_path: Path, capsys: Capture) -> None:
    """A timeout written 300 ms after the hand-over: the report names the dealer, not the bot."""
    log, seq = early_timeout_log(fixture_path("misbehave_bind2_40"), tmp_path / "early-timeout.jsonl")
    db = tmp_path / "kifu.duckdb"
    ingest(db, log)
    code, out, _ = run(capsys, "--db", str(db), "--player", "Misbehaver", "--format", "json")
    assert code == 0
    (match,) = json.loads(out)
    (bot,) = [p for p in match["players"] if p["code"] == MISBEHAVER]
    (pen,) = [x for x in bot["penalties"] if x["seq"] == seq]
    assert pen["explained_by"] is None and "penalty-unjustified" in pen["dealer_fault"]
    assert pen["dealer_fault_title"] and pen["dealer_finding"]
    code, text, _ = run(capsys, "--db", str(db), "--player", "Misbehaver")
    line = next(x for x in text.splitlines() if f" seq {seq:>5}:" in x or f" seq {seq}:" in x)
    assert "not the bot's fault — the dealer's:" in line and "[penalty-unjustified" in line
    code, md, _ = run(capsys, "--db", str(db), "--player", "Misbehaver", "--format", "markdown")
    assert "not the bot's fault" in md
    # the aggregates too: the timeout is counted under its cause as the dealer's fault, not in the bot's timeouts
    (timeouts,) = [c for c in bot["penalty_causes"] if c["cause"] == "timeout"]
    assert timeouts["dealer_fault"] >= 1 and bot["think_time"]["timeouts"] == timeouts["n"] - timeouts["dealer_fault"]
    assert f"{timeouts['dealer_fault']} the dealer's fault: the log contradicts them" in text
