"""The board link vocabulary (app/links.py): read with the old aliases, built keeping the bot, refusals worded."""

from __future__ import annotations

import pytest

from app import i18n, links


def test_read_takes_the_new_names_and_the_old_aliases() -> None:
    assert links.read({"match": "m1", "round": "5", "event": "650"}) == links.Link("m1", "5", None, "650", None)
    assert links.read({"match": "m1", "round": "5", "seq": "650"}).event == "650"  # old UNO/CHaser links
    assert links.read({"seq": "3", "event": "4"}).event == "4"  # the new name wins
    assert links.read({"turn": "20", "bot": "b-1"}) == links.Link(None, None, "20", None, "b-1")
    assert links.read({"round": "  "}).round is None and not links.read({"bot": "x"}).names_position


@pytest.mark.parametrize(("text", "n"), [("12", 12), ("0", 0), ("-1", None), ("1.5", None), ("１２", None), ("abc", None),
                                         (None, None), ("9" * 30, None)])  # fmt: skip
def test_numbers_are_plain_digits(text: str | None, n: int | None) -> None:
    assert links.number(text) == n


def test_build_keeps_the_chosen_bot_and_writes_the_vocabulary() -> None:
    assert links.build({"bot": "b-7", "lang": "ja"}, match="m", round=3, event=41) == \
        {"match": "m", "round": "3", "event": "41", "bot": "b-7"}  # fmt: skip
    assert links.build(None, match="m", turn=2.0) == {"match": "m", "turn": "2"}
    assert links.query({"bot": "a&b"}, match="m x") == "?match=m+x&bot=a%26b"
    with pytest.raises(ValueError):
        links.build(None, seq=3)  # the old name is read, never written


def test_write_sets_the_position_and_keeps_everything_else() -> None:
    params = {"match": "m", "seq": "9", "turn": "2", "bot": "b", "lang": "ja"}
    links.write(params, match="m2", round=4, event=77)
    assert params == {"match": "m2", "round": "4", "event": "77", "bot": "b", "lang": "ja"}
    links.forget(params)
    assert params == {"match": "m2", "bot": "b", "lang": "ja"}


def test_locate_in_games_without_rounds() -> None:
    frames = [{"seq": 0, "turn": None}, *({"seq": s, "turn": (s + 1) // 2} for s in range(1, 9))]
    # CHaser: event = an action, turn = the first action of that turn
    assert links.locate(links.read({"event": "5"}), frames, by_turn=False) == (5, None)
    assert links.locate(links.read({"seq": "5"}), frames, by_turn=False) == (5, None)
    assert links.locate(links.read({"turn": "3"}), frames, by_turn=False) == (5, None)
    assert links.locate(links.read({}), frames, by_turn=False) == (None, None)
    seq, why = links.locate(links.read({"turn": "999"}), frames, by_turn=False)
    assert seq is None and why == "This game has no turn 999 (its turns are 1–4). The link names nothing to show."
    seq, why = links.locate(links.read({"event": "x<b>"}), frames, by_turn=False, quote=lambda s: s.replace("<", "&lt;"))
    assert seq is None and why is not None and "action x&lt;b>" in why and "0–8" in why
    # Kakomimasu: the steps are its turns
    assert links.locate(links.read({"turn": "0"}), frames, by_turn=True) == (0, None)
    assert links.locate(links.read({"turn": "9"}), frames, by_turn=True)[0] is None


def test_refusals_are_translated() -> None:
    with i18n.using("ja"):
        text = links.missing("round", "999", [1, 2, 40])
    assert "999" in text and "1–40" in text and "round" not in text


#: The names of a board link, and the old one (read, never written).
LINK_NAMES = {*links.PARAMS, *links.ALIASES}


def test_pages_build_their_links_through_the_one_vocabulary() -> None:
    """No page writes a link's query by hand (a dict of link names, an f-string with ``seq=``/``turn=``…): every
    page link and page switch takes ``ui.link_params`` (``links.build``), which keeps the bot and never writes
    ``seq``."""
    import ast
    import re

    from tests.conftest import REPO

    by_hand = re.compile(r"[?&](" + "|".join(sorted(LINK_NAMES)) + r")=")
    found: list[str] = []
    for path in sorted((REPO / "app").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(REPO)}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.keyword) and node.arg == "query_params" and isinstance(node.value, ast.Dict):
                keys = {k.value for k in node.value.keys if isinstance(k, ast.Constant)}
                if keys & LINK_NAMES:
                    found.append(f"{where}: query_params={{{', '.join(sorted(keys & LINK_NAMES))}: …}}")
            if isinstance(node, ast.JoinedStr):
                text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
                if by_hand.search(text):
                    found.append(f"{where}: f-string {text!r}")
    for path in sorted((REPO / "app" / "replayer").glob("*.js")):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if by_hand.search(line) and not line.lstrip().startswith(("//", "*", "/*")):
                found.append(f"{path.relative_to(REPO)}:{i}: {line.strip()}")
    assert not found, "\n".join(found)
