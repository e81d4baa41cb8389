"""The replayer's data: refused moves worded as attempts, penalty cards marked, the shareable file."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import duckdb
import pytest

from app import frames, i18n, replayer
from app.describe import ACTIONS
from queries import dashboard as q
from tests.conftest import SAMPLE, fixture_path, ingest

ATTEMPT = {"en": " tries to ", "ja": "しようとしたが拒否された"}


def _rounds(db: Path) -> list[tuple[dict[str, Any], Any]]:
    """Every round of every match of ``db`` as replayer payloads, with the raw event rows."""
    con = duckdb.connect(str(db), read_only=True)
    out = []
    try:
        for match in q.match_list(con)["match_id"]:
            names = q.player_names(con, match)
            for r in q.round_index(con, match)["round_no"]:
                events = q.round_events(con, match, int(r))
                payload = frames.uno_round(events, q.round_info(con, match, int(r)) or {}, names, {},
                                           q.round_findings(con, match, int(r)), match=match, round_no=int(r))  # fmt: skip
                out.append((payload, events))
    finally:
        con.close()
    return out


def _check_attempts(db: Path, lang: str) -> int:
    """Every action followed by a penalty on the same player is worded as an attempt; no other is."""
    refused = 0
    with i18n.using(lang):
        for payload, events in _rounds(db):
            rows = events.to_dict("records")
            for i, (row, frame) in enumerate(zip(rows, payload["frames"], strict=True)):
                nxt = rows[i + 1] if i + 1 < len(rows) else None
                followed = (row["event"] in ACTIONS and nxt is not None and nxt["event"] == "penalty"
                            and isinstance(row["actor"], str) and nxt["target"] == row["actor"])  # fmt: skip
                assert (ATTEMPT[lang] in frame["sentence"]) == followed, (row["seq"], frame["sentence"])
                assert frame["refused"] == followed
                if followed:
                    refused += 1
                    if row["event"] == "play-card" and isinstance(row["card_color"], str):
                        assert frame["attempt"], row["seq"]  # the attempted card, shown crossed out
                    pen = payload["frames"][i + 1]
                    n = int(nxt["n_cards"] or 0)
                    got = len(pen["gained"].get(row["actor"], []))
                    assert got == n or (got < n and len(pen["board"]["hands"].get(row["actor"], [])) >= 25), nxt["seq"]
    return refused


@pytest.fixture(scope="module")
def misbehave_dbs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    d = tmp_path_factory.mktemp("refused")
    out["sample"] = d / "sample.duckdb"
    ingest(out["sample"], SAMPLE)
    return out


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_refused_actions_are_worded_as_attempts_in_the_sample(misbehave_dbs: dict[str, Path], lang: str) -> None:
    assert _check_attempts(misbehave_dbs["sample"], lang) > 100  # the misbehaving bot is refused often


def test_refused_actions_are_worded_as_attempts_in_every_misbehaving_fixture(tmp_path: Path) -> None:
    for name in ("misbehave_bind2_40", "misbehave_skipbind2_80"):
        db = tmp_path / f"{name}.duckdb"
        ingest(db, fixture_path(name))
        assert _check_attempts(db, "en") > 100


def test_finding_sentences_name_players(misbehave_dbs: dict[str, Path]) -> None:
    texts = [f["text"] for payload, _ in _rounds(misbehave_dbs["sample"]) for fr in payload["frames"] for f in fr["findings"]]
    assert texts and not any(re.search(r"P-\d{8}", t) for t in texts)
    assert any("Misbehaver" in t for t in texts)


def test_standalone_file_has_everything_and_no_network(misbehave_dbs: dict[str, Path]) -> None:
    payload, _ = _rounds(misbehave_dbs["sample"])[4]
    payload["players"][0]["name"] = "</script><img src=x onerror=alert(1)>"
    page = replayer.standalone_html(payload, title="<b>round</b>")
    assert "<b>round</b>" not in page and "&lt;b&gt;round&lt;/b&gt;" in page
    assert "</script><img" not in page  # the data cannot close its script element
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)  # nothing fetched from the network
    data = json.loads(re.search(r'<script id="kifu-data" type="application/json">(.*?)</script>', page, re.S).group(1))
    assert data["frames"] == json.loads(json.dumps(payload["frames"]))
    assert "KifuReplayer.renderers[\"algori-uno\"]" in page


def test_visible_filters() -> None:
    fr = [{"actor": "a", "gained": {}, "findings": [], "event": "play-card", "refused": False},
          {"actor": "b", "gained": {"a": ["red-1"]}, "findings": [{"severity": "error"}], "event": "penalty", "refused": False},
          {"actor": "b", "gained": {}, "findings": [{"severity": "info"}], "event": "play-card", "refused": True}]  # fmt: skip
    assert frames.visible(fr, "all", None) == [0, 1, 2]
    assert frames.visible(fr, "all", "a") == [0, 1]
    assert frames.visible(fr, "findings", None) == [1, 2]
    assert frames.visible(fr, "errors", None) == [1]
    assert frames.visible(fr, "penalties", None) == [1]
    assert frames.visible(fr, "refused", "b") == [2]


# ---- links to a round, turn or event that does not exist: refused (tests/app/test_board_replayer.py)


def test_replayer_labels_are_translated() -> None:
    """Everything the replayer's JavaScript shows comes from the labels, translated (none left in English)."""
    with i18n.using("ja"):
        got = frames.labels()
    english = {k: v for k, v in (frames.COMMON_LABELS | frames.LABELS).items()}
    same = [k for k, v in got.items() if v == english[k] and re.search("[a-z]{3}", re.sub(r"\{\w+\}", "", v))]
    assert not same, same
    assert got["round_n"].format(n=5) == "第 5 対戦" and got["severity_error"] == "エラー"
