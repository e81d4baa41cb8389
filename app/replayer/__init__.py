"""The round replayer: a round's frames sent to the browser once, stepped there.

The replayer is game-neutral (controls, headline, findings, event list, keys, autoplay); each
game registers a board renderer in JavaScript (``KifuReplayer.renderers[game]``, see
``uno.js``).  In the dashboard it is a Streamlit v2 component (our own HTML/JS/CSS, bundled
here, no CDN); :func:`standalone_html` puts the same code and one round's data into a single
file that opens with no server and no network.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
#: Board renderers bundled with Kifu, one JavaScript file per game.
RENDERERS = {"algori-uno": "uno.js", "kakomimasu": "kakomimasu.js", "chaser": "chaser.js"}


def _read(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")


@cache
def script() -> str:
    """The replayer core followed by every game's board renderer (plain script, no modules)."""
    return "\n".join([_read("replayer.js"), *(_read(f) for f in RENDERERS.values())])


@cache
def style() -> str:
    return _read("replayer.css")


_MOUNT = """
export default function (component) {
  const { data, parentElement, setStateValue } = component;
  let host = parentElement.querySelector(".kifu-replayer-host");
  if (!host) {
    host = document.createElement("div");
    host.className = "kifu-replayer-host";
    parentElement.appendChild(host);
  }
  if (!host.__kifu) {
    host.__kifu = KifuReplayer.mount(host, data, (seq) => setStateValue("seq", seq),
      (dir, kind) => setStateValue("cross", dir + ":" + (kind || "") + ":" + Date.now()));
  } else {
    host.__kifu.update(data);
  }
  return () => { if (host.__kifu) { host.__kifu.destroy(); host.__kifu = null; } };
}
"""


@cache
def _component() -> Callable[..., Any]:
    import streamlit as st

    return st.components.v2.component("kifu_replayer", js=script() + _MOUNT, css=style())  # type: ignore[no-any-return]


def show(payload: dict[str, Any], *, key: str) -> int | None:
    """Mount the replayer; returns the seq the user last stepped to (None before any step)."""
    return board(payload, key=key)[0]


def board(payload: dict[str, Any], *, key: str,
          on_cross: Callable[[int, str], None] | None = None) -> tuple[int | None, tuple[int, str] | None]:  # fmt: skip
    """Mount the replayer; returns the seq the user last stepped to (None before any step) and, in the run
    right after the user stepped past the round's last (first) event, ``(+1 or -1, kind)``: go on into the next
    (previous) round (``payload["cross"]`` says which ways there are) — at its first (last) event, or with a
    marker ``kind`` (finding, penalty, refused: the key found none left in this round) at the first (last)
    event of that kind in the rounds that way.  ``on_cross(way, kind)`` is called before that run instead (a
    callback: the run draws the new round at once), and the run then returns None for it."""
    import streamlit as st

    def _crossed() -> None:
        value = st.session_state.get(key)
        cross = value.get("cross") if hasattr(value, "get") else getattr(value, "cross", None)
        way = _new_cross(key, cross)
        if way is not None and on_cross is not None:
            on_cross(*way)

    result = _component()(data=payload, key=key, default={"seq": None, "cross": None}, on_seq_change=lambda: None,
                          on_cross_change=_crossed)  # fmt: skip
    seq = getattr(result, "seq", None)
    return int(seq) if isinstance(seq, int | float) else None, _new_cross(key, getattr(result, "cross", None))


#: The marker kinds a step past the round's end may look for.
CROSS_KINDS = ("finding", "penalty", "refused")


def _new_cross(key: str, cross: Any) -> tuple[int, str] | None:
    """(+1/-1, kind) for a step past the round's end not handled yet (``"<1|-1>:<kind>:<stamp>"``, each once)."""
    import streamlit as st

    if not isinstance(cross, str) or cross == st.session_state.get(f"{key}.cross"):
        return None
    st.session_state[f"{key}.cross"] = cross
    way, _sep, rest = cross.partition(":")
    kind = rest.partition(":")[0]
    if way not in ("1", "-1"):
        return None
    return int(way), kind if kind in CROSS_KINDS else ""


def json_for_script(payload: Any) -> str:
    """JSON that is safe inside a <script> element (no '</script>', no HTML comment openers)."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")  # fmt: skip


#: Data larger than this goes into the file gzip-compressed (base64), unpacked by the browser's own
#: DecompressionStream: a whole match is ~10x smaller that way.
COMPRESS_ABOVE = 512 * 1024


def _data_element(payload: Any) -> str:
    text = json_for_script(payload)
    if len(text) <= COMPRESS_ABOVE:
        return f'<script id="kifu-data" type="application/json">{text}</script>'
    import base64
    import gzip

    packed = base64.b64encode(gzip.compress(json.dumps(payload, ensure_ascii=False).encode("utf-8"), 6)).decode("ascii")
    return f'<script id="kifu-data" type="application/x-kifu-gzip-base64">{packed}</script>'


def standalone_html(payload: dict[str, Any], *, title: str, lang: str = "en") -> str:
    """One self-contained HTML file: the replayer, its styles and this round's (or match's) data."""
    from html import escape

    return f"""<!doctype html>
<html lang="{escape(lang)}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>body {{ margin: 12px; background: #fff; }}
h1 {{ font: 600 18px system-ui, sans-serif; margin: 0 0 8px 0; overflow-wrap: anywhere; }}
#kifu-replay > select {{ max-width: 100%; font: inherit; margin-bottom: 6px; }}
{style()}</style></head>
<body><h1>{escape(title)}</h1><div id="kifu-replay"></div>
{_data_element(payload)}
<script>
{script()}
async function kifuData() {{
  const el = document.getElementById("kifu-data");
  if (el.type === "application/json") return JSON.parse(el.textContent);
  const bytes = Uint8Array.from(atob(el.textContent), (c) => c.charCodeAt(0));
  const text = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
  return JSON.parse(text);
}}
kifuData().then((data) => {{
  const host = document.getElementById("kifu-replay");
  const rounds = Array.isArray(data.rounds) ? data.rounds : [data];
  if (rounds.length === 1) {{ KifuReplayer.mount(host, rounds[0], null); return; }}
  const pick = document.createElement("select");
  pick.setAttribute("aria-label", rounds[0].labels.round || "round");
  rounds.forEach((r, i) => {{ const o = document.createElement("option"); o.value = String(i);
    o.textContent = KifuReplayer.fmt(r.labels.round_n || "Round {{n}}", {{ n: r.round }}); pick.appendChild(o);
    r.cross = {{ prev: i > 0, next: i < rounds.length - 1 }}; }});
  const box = document.createElement("div");
  host.append(pick, box);
  let player = null;
  // stepping past a round's last (first) event continues with the next (previous) round
  const open = (i, atEnd) => {{
    if (player) player.destroy();
    box.replaceChildren();
    const r = rounds[i], fs = r.frames || [];
    r.jump = {{ seq: fs.length ? fs[atEnd ? fs.length - 1 : 0].seq : null, token: Date.now() }};
    pick.value = String(i);
    player = KifuReplayer.mount(box, r, null, (dir) => open(i + dir, dir < 0));
  }};
  open(0, false);
  pick.addEventListener("change", () => {{ open(parseInt(pick.value, 10), false);
    pick.blur(); }});  // ←/→ step the new round (a focused <select> would take them)
}});
</script></body></html>
"""
