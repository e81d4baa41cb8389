"""`kifu ingest` stores violations and states; `kifu validate` reports them per bot."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from kifu.cli import main
from common.safe import markdown
from rules.uno.ruleset import VERSION
from tests.conftest import SAMPLE, ingest, query


@pytest.fixture(autouse=True)
def _restore_serve_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """``kifu serve`` sets variables for the server it starts: undo them after each test."""
    for name in ("KIFU_DB", "KIFU_UPLOAD", "KIFU_UPLOAD_TOKEN"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("validate") / "kifu.duckdb"
    ingest(path, SAMPLE)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_every_penalty_in_the_database_is_explained(db: Path) -> None:
    rows = query(db, """
        select count(*) from penalties p
        where not exists (select 1 from violations v where v.match_id = p.match_id and v.penalty_seq = p.seq
                          and v.player = p.player and v.family = 'player-rule')""")  # fmt: skip
    assert rows == [(0,)]
    assert query(db, "select count(*) from penalties") == [(118,)]
    assert query(db, "select distinct ruleset, ruleset_version from violations") == [("algori-2023/bind_2", VERSION)]
    assert query(db, "select count(*) from violations where family = 'consistency' and severity = 'error'") == [(0,)]


def test_states_follow_the_dealers_board(db: Path) -> None:
    """The board after every event (derived from the keyframes) shows what the dealer's desk shows."""
    import duckdb

    from queries.boards import match_boards

    con = duckdb.connect(str(db), read_only=True)
    try:
        (match,), = con.execute("select match_id from matches").fetchall()
        boards = match_boards(con, match)
        nexts = {s for (s,) in con.execute("select seq from events where event = 'next-player'").fetchall()}
        n_events = con.execute("select count(*) from events").fetchone()[0]
    finally:
        con.close()
    assert len(boards) == n_events and boards["seq"].tolist() == list(range(1, n_events + 1))
    lines = gzip.open(SAMPLE, "rt").read().splitlines()
    checked = 0
    for seq, hands_json, top, draw in boards[boards["seq"].isin(nexts)][["seq", "hands", "top", "draw_pile"]].head(200).itertuples(index=False):
        desk = json.loads(lines[seq - 1])["desk"]
        hands = json.loads(hands_json)
        for player, cards in desk["card_of_player"].items():
            want = Counter(f"{c['color']}-{c.get('number', c.get('special'))}" for c in cards)
            assert Counter(hands[player]) == want, (seq, player)
        b = desk["before_card_play"]
        assert top == f"{b['color']}-{b.get('number', b.get('special'))}"
        assert draw == desk["draw_desk_number"]
        checked += 1
    assert checked == 200


def test_validate_text(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--db", str(db))
    assert code == 0
    assert "misbehave-bind2-40 (D-00000003" in out
    assert "penalties: 118, explained by a player-rule finding: 118" in out
    assert "Misbehaver (P-00000006)" in out and "special-logic-valid" in out


def test_validate_json_filters_by_player(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--db", str(db), "--player", "Misbehaver", "--format", "json")
    assert code == 0
    (match,) = json.loads(out)
    assert [p["player"] for p in match["players"]] == ["Misbehaver"]
    errors = sum(f["n"] for f in match["players"][0]["findings"] if f["severity"] == "error")
    assert errors == 118
    by_code = {f["code"]: f for f in match["players"][0]["findings"]}
    assert by_code["response-time"]["n"] == 4 and by_code["response-time"]["with_penalty"] == 4


def test_validate_markdown_escapes_untrusted_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = gzip.open(SAMPLE, "rt").read().splitlines()
    evil = "<img src=x onerror=alert(1)>|*bold*"
    text = "\n".join(lines).replace('"player_name":"Misbehaver"', json.dumps({"player_name": evil})[1:-1])
    log = tmp_path / "evil.jsonl"
    log.write_text(text + "\n")
    db = tmp_path / "k.duckdb"
    ingest(db, log)
    code, out, _ = run(capsys, "validate", "--db", str(db), "--format", "markdown")
    assert code == 0
    assert "<" not in out
    assert markdown(evil) in out and "&lt;img src=x onerror=alert\\(1\\)&gt;\\|\\*bold\\*" in out
    assert f"### {markdown(evil)} \\(P-00000006\\)" in out.splitlines()  # the heading too
    assert "## ALGORI UNO · misbehave-bind2-40 \\(D-00000003, M-" in out  # readable raw: no "\\-", "\\,"


def test_validate_errors(tmp_path: Path, db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "validate", "--db", str(tmp_path / "none.duckdb"))
    assert code == 1 and "no such database" in err
    code, _, err = run(capsys, "validate", "--db", str(db), "--match", "D-99999999")
    assert code == 2 and "no match 'D-99999999'" in err
    assert "known:\n  ALGORI UNO · misbehave-bind2-40 · D-00000003 · M-" in err
    code, out, err = run(capsys, "validate", "--db", str(db), "--player", "Misbehavr")  # misspelled
    assert code == 2 and out == "" and "no player 'Misbehavr'" in err
    assert "Misbehaver (P-00000006)" in err and "JS Demo (P-00000005)" in err


def test_every_figure_follows_the_player(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--db", str(db), "--player", "JS Demo", "--format", "json")
    (match,) = json.loads(out)
    assert code == 0 and match["penalties"] == 0 and match["penalties_explained"] == 0
    assert [p["player"] for p in match["players"]] == ["JS Demo"]
    code, out, _ = run(capsys, "validate", "--db", str(db), "--player", "P-00000006", "--format", "json")
    (match,) = json.loads(out)
    assert match["penalties"] == match["penalties_explained"] == 118


def test_penalties_grouped_by_the_dealers_cause(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--db", str(db), "--player", "Misbehaver", "--format", "json")
    causes = {c["cause"]: c for c in json.loads(out)[0]["players"][0]["penalty_causes"]}
    assert sum(c["n"] for c in causes.values()) == 118
    # one check code, several dealer causes
    card_object = [k for k, c in causes.items() if c["explained_by"] == "card-object-valid"]
    assert sorted(card_object) == sorted(["Card play is required.", "Param card play invalid.", "Special card play invalid.",
                                          "Color card play invalid.", "Number card play invalid.", "Card play invalid."])
    assert causes["timeout"]["n"] == 4 and causes["timeout"]["explained_by"] == "response-time"
    code, text, _ = run(capsys, "validate", "--db", str(db), "--player", "Misbehaver")
    assert "penalties by the dealer's cause:" in text and "Param yell uno invalie." in text


def test_think_times_per_bot(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--db", str(db), "--format", "json")
    players = {p["player"]: p for p in json.loads(out)[0]["players"] if p["code"]}
    assert set(players) == {"Misbehaver", "JS Demo", "Alternative 3", "Alternative 4"}
    for p in players.values():
        t = p["think_time"]
        assert t["actions"] > 100 and 0 <= t["p50_ms"] <= t["p95_ms"] <= t["max_ms"] and t["over_limit"] == 0
    # independent count: every timed action of the bot has a think time
    (n,) = query(db, "select count(*) from think_times where player = 'P-00000006'")[0]
    assert n == players["Misbehaver"]["think_time"]["actions"]


def test_fail_on_sets_the_exit_status(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "validate", "--db", str(db), "--player", "Misbehaver", "--fail-on", "error")
    assert code == 1 and "118 player-rule finding(s) of severity error or worse" in err
    code, _, _ = run(capsys, "validate", "--db", str(db), "--player", "JS Demo", "--fail-on", "error")
    assert code == 0
    code, _, err = run(capsys, "validate", "--db", str(db), "--player", "JS Demo", "--fail-on", "warning")
    assert code == 0, err


def test_terminal_output_escapes_control_characters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = gzip.open(SAMPLE, "rt").read().splitlines()
    text = "\n".join(lines).replace('"player_name":"Misbehaver"', '"player_name":"Mis\\u001b[31mbehaver"')
    log = tmp_path / "esc.jsonl"
    log.write_text(text + "\n")
    db = tmp_path / "k.duckdb"
    ingest(db, log)
    code, out, _ = run(capsys, "validate", "--db", str(db))
    assert code == 0 and "\x1b" not in out and "Mis\\x1b[31mbehaver" in out


@pytest.mark.parametrize("host,warned", [("127.0.0.1", False), ("localhost", False), ("0.0.0.0", True), ("192.0.2.7", True)])
def test_serve_hides_exception_details_and_warns_beyond_loopback(
    host: str, warned: bool, db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    from streamlit.web import cli as stcli

    seen: list[list[str]] = []
    monkeypatch.setattr(stcli, "main", lambda: seen.append(list(sys.argv)) or 0)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setenv("KIFU_DB", "x.duckdb")  # cmd_serve sets it for the server: restored after the test
    assert main(["serve", "--db", str(db), "--host", host]) == 0
    err = capsys.readouterr().err
    assert "--client.showErrorDetails=none" in seen[0] and f"--server.address={host}" in seen[0]
    assert ("WARNING" in err and "reverse proxy" in err) is warned
    assert main(["serve", "--db", str(db), "--show-errors"]) == 0
    assert "--client.showErrorDetails=full" in seen[1]


@pytest.mark.parametrize(
    ("host", "extra", "token", "policy"),
    [
        ("127.0.0.1", [], None, "open"),
        ("0.0.0.0", [], None, "off"),
        ("0.0.0.0", ["--allow-upload"], None, "open"),
        ("0.0.0.0", [], "s3cret-token", "token"),
    ],
    ids=["loopback", "public", "public-allowed", "public-token"],
)
def test_serve_turns_uploads_off_beyond_loopback_unless_allowed(
    host: str, extra: list[str], token: str | None, policy: str, tmp_path: Path, db: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    import sys

    from streamlit.web import cli as stcli

    from app import uploads

    monkeypatch.setattr(stcli, "main", lambda: 0)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setenv("KIFU_DB", "x.duckdb")
    if token:
        (tmp_path / "token").write_text(token + "\n")
        extra = [*extra, "--upload-token-file", str(tmp_path / "token")]
    assert main(["serve", "--db", str(db), "--host", host, *extra]) == 0
    assert uploads.policy() == policy
    err = capsys.readouterr().err
    if policy == "off":
        assert "uploads are off" in err
    if token:
        assert token not in err and uploads.token_ok(token) and not uploads.token_ok("guess")


def test_serve_refuses_a_short_upload_token(tmp_path: Path, db: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    monkeypatch.setenv("KIFU_DB", "x.duckdb")
    (tmp_path / "token").write_text("abc\n")
    assert main(["serve", "--db", str(db), "--upload-token-file", str(tmp_path / "token")]) == 1
    assert "at least 8 characters" in capsys.readouterr().err


def test_validate_db_that_is_a_log_or_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A log passed as --db (whatever its name) is named as such, with the ingest command that loads it; a
    folder is refused as ingest and serve refuse it, with the same exit status."""
    log = tmp_path / "a.jsonl"
    log.write_text(gzip.open(SAMPLE, "rt").readline())
    renamed = tmp_path / "a.duckdb"
    renamed.write_bytes(log.read_bytes())
    for path in (log, renamed):
        code, out, err = run(capsys, "validate", "--db", str(path))
        assert code == 1 and out == ""
        assert err == (f"kifu validate: {path} is not a DuckDB database (is it a log? ingest it with "
                       f"`kifu ingest {path} --db kifu.duckdb`)\n")  # fmt: skip
        assert "Catalog Error" not in err and "cannot open" not in err
    folder = tmp_path / "logs"
    folder.mkdir()
    code, out, err = run(capsys, "validate", "--db", str(folder))
    assert code == 2 and out == "" and "is a folder — give a database file" in err
    ingest_code, _, ingest_err = run(capsys, "ingest", "--db", str(folder), "--no-progress", str(log))
    assert ingest_code == code and ingest_err.replace("kifu ingest", "kifu validate") == err


def test_validate_help_says_what_it_does_and_its_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["validate", "--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Report, from a database made by `kifu ingest`" in out  # a description
    assert "--format {text,json,markdown} text for a terminal, json for a program" in out
    assert "Exit status: 0 when the report is printed; 1 when --fail-on" in out and "2 on a bad argument" in out


def test_player_code_in_any_case_name_exact(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "validate", "--db", str(db), "--player", "p-00000006", "--format", "json")
    assert code == 0 and err == ""
    (match,) = json.loads(out)
    assert [p["code"] for p in match["players"]] == ["P-00000006"] and match["penalties"] == 118
    code, out, err = run(capsys, "validate", "--db", str(db), "--player", "misbehaver")  # a name is exact
    assert code == 2 and out == "" and "no player 'misbehaver'" in err


def test_known_players_one_a_line_at_most_thirty(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import pandas as pd

    from kifu.cli import KNOWN_SHOWN, _known_players

    code, _, err = run(capsys, "validate", "--db", str(db), "--player", "Nobody")
    assert code == 2 and "known:\n  " in err and "\n  Misbehaver (P-00000006)\n" in err + "\n"
    many = pd.DataFrame({"player_name": [f"bot{i:02}" for i in range(45)],
                         "player_code": [f"P-{i:08}" for i in range(45)]})  # fmt: skip
    lines = _known_players(many).split("\n")[1:]
    assert len(lines) == KNOWN_SHOWN + 1 == 31
    assert lines[0] == "  bot00 (P-00000000)" and lines[-1] == "  … and 15 more"


def test_penalty_header_under_player_names_the_player(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--db", str(db), "--player", "JS Demo")
    assert code == 0 and "  penalties of JS Demo (P-00000005): 0, explained by a player-rule finding: 0" in out
    code, out, _ = run(capsys, "validate", "--db", str(db), "--player", "JS Demo", "--format", "markdown")
    assert "Penalties of JS Demo \\(P-00000005\\): 0 (0 explained" in out
    code, out, _ = run(capsys, "validate", "--db", str(db))
    assert "  penalties: 118, explained by a player-rule finding: 118" in out  # every player's
