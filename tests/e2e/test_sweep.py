"""The page sweep: every page × {English, Japanese} × {desktop, phone} × {the `make demo` database, a
database of every game with many matches and JUA matches of 2, 4 and 10 players, an empty database}, in
Debian's chromium; and the UNO pages of each JUA match (the 10-player one in both languages on both screens).

On every visit: no exception, no error box, no browser console error, no request beyond the
server; on Japanese pages no text of Kifu's own (or Streamlit's) left in English; every chart label
inside its chart; on a phone nothing wider than the screen.  One game or one language is how a
page comes to crash for the users nobody tried.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from tests.conftest import JUA_MATCHES, ingest, query
from tests.e2e.conftest import screenshot, serve, wait_for_app
from tests.untranslated import left_in_english

ALGORI_PAGES = ["", "round_browser", "player_rounds", "penalties", "challenges", "special_logic", "violations",
                "players", "standings"]  # fmt: skip
GAME_PAGES = {"kakomimasu": ["kakomimasu_board", "kakomimasu_analysis"], "chaser": ["chaser_board", "chaser_games"]}
ALL_PAGES = [*ALGORI_PAGES, *GAME_PAGES["kakomimasu"], *GAME_PAGES["chaser"], "upload"]
#: database -> pages it has (an empty database shows ALGORI's pages and how to fill them)
#: JUA UNO's own page (a database with JUA matches), and a path no page has (Kifu's "page not found" page).
JUA_ONLY, UNKNOWN = ["jua_rules"], "no_such_page"
PAGES_OF = {"demo": [*ALL_PAGES, UNKNOWN], "mixed": [*ALL_PAGES, *JUA_ONLY], "empty": [*ALGORI_PAGES, "upload", UNKNOWN]}
SIZES = {"desktop": (1440, 900), "phone": (390, 844)}

_SERVERS: dict[str, str] = {}
#: The JUA matches of the "mixed" database: dealer -> match id.
_JUA: dict[str, str] = {}


@pytest.fixture(scope="session")
def sweep_urls(demo_db: Path, jua_db: Path, empty_db: Path) -> Iterator[dict[str, str]]:
    """One `kifu serve` per database, started once for the whole sweep (per worker process with pytest-xdist).
    The databases are the session's own, which the headless sweep reads too (tests/conftest.py): the
    `make demo` one, every real log with the JUA matches (:func:`mixed_sources`, :func:`jua_sources`), an
    empty one."""
    dbs = {"demo": demo_db, "mixed": jua_db, "empty": empty_db}
    _JUA.update({dealer: str(m) for dealer, m in query(dbs["mixed"], "select dealer_name, match_id from matches "
                                                       "where ruleset like 'jua-%'")})  # fmt: skip
    with serve(dbs["demo"]) as demo, serve(dbs["mixed"]) as mixed, serve(dbs["empty"]) as empty:
        yield {"demo": demo, "mixed": mixed, "empty": empty}


@pytest.fixture
def page(shared_tab: Any) -> Any:
    """The sweep's visits share one browser tab (tests/e2e/conftest.py's ``shared_tab``; each visit a page load
    of its own URL, at its own size): a new tab per visit costs about twice the visit."""
    return shared_tab


_VISIBLE_TEXT = """() => {
  const hide = document.createElement('style');
  hide.textContent = "[data-testid='stIconMaterial']{display:none !important}";
  document.head.appendChild(hide);
  const texts = document.querySelector("[data-testid='stApp']").innerText.split('\\n');
  hide.remove();
  for (const host of document.querySelectorAll('*')) {
    if (!host.shadowRoot) continue;
    for (const el of host.shadowRoot.querySelectorAll('*')) {
      if (el.children.length === 0 && el.offsetParent !== null) texts.push(el.textContent);
    }
  }
  for (const t of document.querySelectorAll('.js-plotly-plot text')) texts.push(t.textContent);
  return texts.map(t => t.trim()).filter(t => t);
}"""

_CHART_LABELS_OUTSIDE = """() => {
  const out = [];
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const box = plot.getBoundingClientRect();
    const sel = '.gtitle, .xtitle, .ytitle, .xtick text, .ytick text, .legendtext, .annotation-text';
    for (const t of plot.querySelectorAll(sel)) {
      const r = t.getBoundingClientRect();
      if (r.width === 0 || !t.textContent.trim()) continue;
      if (r.left < box.left - 2 || r.right > box.right + 2 || r.top < box.top - 2 || r.bottom > box.bottom + 2)
        out.push(`${t.textContent.slice(0, 40)} [${Math.round(r.left)}..${Math.round(r.right)} of ${Math.round(box.left)}..${Math.round(box.right)}]`);
    }
  }
  return out;
}"""


#: Streamlit's frontend, opened on a page's own URL (``/penalties``), first looks for its server under
#: that path (``/penalties/_stcore/health``, ``…/host-config``) and gets a 404 before it finds the root:
#: Streamlit's own probe, not a broken resource of Kifu's.
_BASE_PATH_PROBE = re.compile(r"^https?://[^/]+/[a-z_]+/_stcore/(health|host-config)$")


def _visit(page: Any, url: str) -> dict[str, list[str]]:
    """Open ``url`` and wait for the page and its charts; what went wrong on the way, by kind."""
    seen: dict[str, list[str]] = {"console": [], "requests": [], "failed": []}
    page.on("response", lambda r: seen["failed"].append(f"{r.status} {r.url}")
            if r.status >= 400 and not _BASE_PATH_PROBE.match(r.url) else None)  # fmt: skip
    page.on("console", lambda m: seen["console"].append(f"{m.text} ({m.location.get('url', '')})")
            if m.type == "error" and not _BASE_PATH_PROBE.match(m.location.get("url", "")) else None)  # fmt: skip
    page.on("pageerror", lambda e: seen["console"].append(str(e)))
    page.on("request", lambda r: seen["requests"].append(r.url)
            if urlparse(r.url).hostname not in ("127.0.0.1", "localhost") and not r.url.startswith(("data:", "blob:"))
            else None)  # fmt: skip
    page.goto(url)
    wait_for_app(page)
    page.wait_for_function("() => !document.querySelector(\"[data-testid='stSkeleton']\")", timeout=30_000)
    page.wait_for_timeout(600)  # charts and the replayer draw after the script run ends
    wait_for_app(page)
    return seen


def problems_on(page: Any, seen: dict[str, list[str]], lang: str, size: str) -> list[str]:
    """Everything wrong with the page as it stands: exceptions, error boxes, console, network, English, layout."""
    problems = []
    if page.locator("[data-testid='stException']").count():
        problems.append("exception: " + page.locator("[data-testid='stException']").first.inner_text()[:300])
    if page.locator("[data-testid='stAlertContentError']").count():
        problems.append("error box: " + page.locator("[data-testid='stAlertContentError']").first.inner_text()[:300])
    dialogs = page.locator("[role='dialog']:visible")  # a help overlay kept hidden until asked for is no dialog
    if dialogs.count():  # e.g. Streamlit's own English "Page not found"
        problems.append("a dialog over the page: " + dialogs.first.inner_text()[:200])
    problems += [f"console error: {c[:200]}" for c in seen["console"]]
    problems += [f"failed request: {r[:160]}" for r in seen["failed"]]
    problems += [f"request beyond the server: {u[:120]}" for u in seen["requests"]]
    if lang == "ja":
        problems += [f"English on a Japanese page: {t}" for t in left_in_english(page.evaluate(_VISIBLE_TEXT))]
    problems += [f"chart label outside its chart: {t}" for t in page.evaluate(_CHART_LABELS_OUTSIDE)]
    if size == "phone":
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        if overflow > 1:
            problems.append(f"page {overflow} px wider than the phone's screen")
    return problems


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize(("db", "path"), [(db, p) for db, pages in PAGES_OF.items() for p in pages])
def test_page_sweep(page: Any, sweep_urls: dict[str, str], db: str, path: str, lang: str, size: str) -> None:
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    seen = _visit(page, f"{sweep_urls[db]}/{path}?lang={lang}")
    name = f"sweep-{db}-{path or 'matches'}-{lang}-{size}"
    problems = problems_on(page, seen, lang, size)
    if problems:
        screenshot(page, name)
    assert not problems, f"{name}:\n" + "\n".join(problems)


#: The JUA visits: the 10-player match in both languages on both screens, the 2- and 4-player ones in Japanese on
#: a phone and English on a desktop (CI time).
JUA_VISITS = [(d, lang, size) for d, n, *_ in JUA_MATCHES for lang in ("en", "ja") for size in SIZES
              if n == 10 or (lang, size) in (("ja", "phone"), ("en", "desktop"))]  # fmt: skip


@pytest.mark.parametrize(("dealer", "lang", "size"), JUA_VISITS)
@pytest.mark.parametrize("path", ALGORI_PAGES)
def test_uno_pages_on_every_jua_match(page: Any, sweep_urls: dict[str, str], path: str, dealer: str, lang: str,
                                      size: str) -> None:  # fmt: skip
    """2, 4 and 10 players: the card table, the charts, the tables and the scoreboard fit, in both languages."""
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    seen = _visit(page, f"{sweep_urls['mixed']}/{path}?lang={lang}&match={_JUA[dealer]}")
    name = f"sweep-jua-{dealer}-{path or 'matches'}-{lang}-{size}"
    problems = problems_on(page, seen, lang, size)
    if path == "round_browser" and not page.locator(".kr-board .ut .ut-seat").count():
        problems.append("no card table")
    if problems:
        screenshot(page, name)
    assert not problems, f"{name}:\n" + "\n".join(problems)


def test_sweep_covers_every_page_of_the_dashboard() -> None:
    """A page added to the navigation is swept too (its url_path is in the sweep's list)."""
    entry = (Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py").read_text(encoding="utf-8")
    declared = set(re.findall(r'url_path="([a-z_]+)"', entry)) - {"home", "matches", "not_found"}
    assert declared and declared <= set(ALL_PAGES + JUA_ONLY), declared - set(ALL_PAGES + JUA_ONLY)


URL_NAME = "https://evil.example/x"
LONG_NAME = "L" * 3000


@pytest.fixture(scope="module")
def hostile_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A database of every game whose names hold URLs, an e-mail address, markup and a 3,000-character name."""
    import gzip
    import json

    from tests.conftest import REPO, SAMPLE

    d = tmp_path_factory.mktemp("sweep-hostile")
    text = gzip.open(SAMPLE, "rt").read()
    text = text.replace('"player_name":"Misbehaver"', '"player_name":' + json.dumps(URL_NAME + " <b>x</b>"))
    text = text.replace('"player_name":"JS Demo"', '"player_name":' + json.dumps(LONG_NAME))
    text = text.replace('"dealer":"misbehave-bind2-40"', '"dealer":"www.evil.example"')
    (d / "uno.jsonl").write_text(text)
    chaser = (REPO / "tests/data/chaser/put_on.txt").read_text(encoding="utf-8")
    (d / "chaser.txt").write_text(chaser.replace("Name = hunter_c ,", f"Name = {URL_NAME} ,"), encoding="utf-8")
    doc = json.loads((REPO / "tests/data/kakomimasu/game22_A-2.json").read_text())
    doc["players"][0]["id"] = "mail@evil.example"
    doc["players"][1]["id"] = LONG_NAME
    (d / "km.json").write_text(json.dumps(doc))
    db = d / "kifu.duckdb"
    ingest(db, d / "uno.jsonl", d / "chaser.txt", d / "km.json")
    with serve(db) as url:
        yield url


@pytest.mark.parametrize(("lang", "size"), [("en", "desktop"), ("ja", "phone")])
@pytest.mark.parametrize("path", ALL_PAGES)
def test_hostile_names_stay_text_on_every_page(page: Any, hostile_url: str, path: str, lang: str, size: str) -> None:
    """A URL or an address in a name is no link; a 3,000-character name does not widen the page."""
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    seen = _visit(page, f"{hostile_url}/{path}?lang={lang}")
    problems = problems_on(page, seen, lang, "phone")  # at any width: no wider than the screen
    problems += [f"a link out of a name: {h}" for h in page.evaluate(
        """() => [...document.querySelectorAll("[data-testid='stMain'] a[href]")]
            .map(a => a.href).filter(h => !h.startsWith(location.origin))""")]  # fmt: skip
    problems += [f"a dialog opened: {d}" for d in dialogs]
    if problems:
        screenshot(page, f"sweep-hostile-{path or 'matches'}-{lang}-{size}")
    assert not problems, "\n".join(problems)
