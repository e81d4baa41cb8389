/* Kifu round replayer: steps through a round's frames in the browser, no server round trip.
 *
 * data = {id, game, labels, players: [{code, name, color}], frames: [{seq, turn, event, label, who,
 *         sentence, refused, findings: [{severity, code, text}], board}], visible: [frame index],
 *         jump: {seq, token}, speeds: [...]}
 * A game plugs in its board with KifuReplayer.renderers[game] = (frame, ctx) => Element.
 * Every text from a log goes through textContent, never innerHTML.  Names (which may be thousands of
 * characters long) are clipped with an ellipsis: the whole name is in the title (hover) and shows on a
 * tap or click (phones have no hover), see name().
 */
const KifuReplayer = (() => {
  const renderers = {};
  //: A game's numbers per player over a game or round, for the graph: series[game] = {modes: [[title, button]...],
  //: values(frame, mode, data) -> [number per data.players]} (see uno.js).
  const series = {};
  //: The marker kinds on the slider, in drawing order (a later kind is drawn over an earlier one).
  const MARKS = [["finding", (f) => f.findings && f.findings.length > 0], ["refused", (f) => !!f.refused],
    ["penalty", (f) => f.event === "penalty"]];
  //: Findings shown whole at one step before the others fold behind a "+N more" button.
  const FOLD = 2;
  const SKELETON = `
<div class="kr" tabindex="-1">
  <div class="kr-head"><div class="kr-follow" hidden></div><div class="kr-title"></div><div class="kr-sentence"></div><ul class="kr-findings"></ul></div>
  <div class="kr-controls">
    <button type="button" class="kr-first" data-act="first"></button>
    <button type="button" class="kr-back" data-act="back"></button>
    <button type="button" class="kr-next" data-act="next"></button>
    <button type="button" class="kr-last" data-act="last"></button>
    <button type="button" class="kr-play" data-act="play"></button>
    <select class="kr-speed"></select>
    <input type="range" class="kr-range" min="1" value="1">
    <span class="kr-pos"></span>
    <select class="kr-view"></select>
    <button type="button" class="kr-keys" data-act="help" aria-haspopup="dialog">?</button>
  </div>
  <div class="kr-scrub"><div class="kr-marks"></div><div class="kr-legend"></div></div>
  <div class="kr-note" role="status" aria-live="polite"></div>
  <div class="kr-help" role="dialog" hidden></div>
  <div class="kr-main"><div class="kr-board"></div><ol class="kr-list"></ol></div>
  <div class="kr-graph"></div>
</div>`;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  /** A player's (or any untrusted) name, clipped to one line with an ellipsis; the full name in the
   *  title and on a tap (the replayer's click handler toggles .open). */
  function name(text, cls) {
    const s = text === undefined || text === null ? "" : String(text);
    const e = el("span", "kr-name" + (cls ? " " + cls : ""), s);
    e.title = s;
    return e;
  }

  /** At most n characters (a long name in a <select> option, which CSS cannot clip). */
  function short(text, n) {
    const s = text === undefined || text === null ? "" : String(text);
    const chars = Array.from(s);
    return chars.length > n ? chars.slice(0, n - 1).join("") + "…" : s;
  }

  /** A label with {placeholders}, e.g. fmt("Round {n}", {n: 5}); untranslated keys fall back to English. */
  function fmt(template, values) {
    return String(template).replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  }

  //: English fallbacks of labels a payload built before they existed may lack.
  const DEFAULTS = {
    round_n: "Round {n}", turn_n: "turn {n}", step_n: "{what} {k} of {n}", seq_n: "log seq {n}",
    seq_help: "The event's sequence number in the stored log (what links and the raw log use)",
    severity_error: "error", severity_warning: "warning", severity_info: "info", tap_hint: "tap to see all",
    more_findings: "+{n} more findings", fewer_findings: "Fewer findings",
    follow_on: "● live — following the newest event", follow_paused: "Paused — switch on Follow live again to go on",
    mark_finding: "finding", mark_penalty: "penalty", mark_refused: "refused action", markers: "Marks on the slider",
    graph: "Over the round (click to jump)", think: "thought {s} s", think_help: "Time since this player was handed the turn",
    keys: "Keys", keys_title: "Keys of the board", close: "Close", key_step: "previous / next event",
    key_ends: "first / last event", key_play: "play / pause", key_finding: "next / previous finding",
    key_penalty: "next / previous penalty", key_refused: "next / previous refused action", key_help: "this help",
    key_rounds: "stepping past a round's end goes on into the next round (and back)",
    none_left: "No further {what} in this direction.",
  };

  function mount(root, data, report, cross) {
    root.innerHTML = SKELETON;
    const $ = (s) => root.querySelector(s);
    const ui = {
      box: $(".kr"), title: $(".kr-title"), sentence: $(".kr-sentence"), findings: $(".kr-findings"),
      board: $(".kr-board"), list: $(".kr-list"), range: $(".kr-range"), pos: $(".kr-pos"),
      speed: $(".kr-speed"), view: $(".kr-view"), play: $(".kr-play"),
      back: $(".kr-back"), next: $(".kr-next"), first: $(".kr-first"), last: $(".kr-last"), follow: $(".kr-follow"),
      marks: $(".kr-marks"), legend: $(".kr-legend"), graph: $(".kr-graph"), help: $(".kr-help"), keys: $(".kr-keys"),
      note: $(".kr-note"),
    };
    const st = { data: null, visible: [], at: 0, timer: null, token: null, perspective: "", items: [], reportTimer: null,
      pausedToken: null, graphMode: 0, cursor: null, noteTimer: null, allFindings: false };

    function L(k) { return (st.data.labels && st.data.labels[k]) || DEFAULTS[k] || k; }

    function setData(d) {
      if (st.data && d.follow && d.follow.on && paused() && st.data.follow.key !== d.follow.key &&
          st.data.follow.token === d.follow.token) {
        return;  // paused by the user, and the page sends the next round: stay on this one (the page stops following)
      }
      const fresh = !st.data || st.data.id !== d.id;
      const oldSeq = st.data && st.visible.length ? st.data.frames[st.visible[st.at]].seq : null;
      const oldVisible = st.visible.join(",");
      const had = !!st.data;
      // the same round with more events (a match being played): not a new round, nothing to reset
      const grew = had && fresh && !!d.follow && !!st.data.follow && d.follow.key === st.data.follow.key;
      st.data = d;
      st.visible = Array.isArray(d.visible) ? d.visible : d.frames.map((_, i) => i);
      if (had && !grew && (fresh || oldVisible !== st.visible.join(","))) takeFocus();
      if (fresh && !grew) { labelControls(); buildViewChoices(); ui.box.dataset.game = d.game || ""; }
      buildList();
      buildMarks();
      buildGraph();
      const jump = d.jump || {};
      const follow = d.follow || {};
      if (follow.on && !paused()) {  // following a match being played: the newest event, at every update
        st.token = jump.token;
        show(st.visible.length - 1, false);
      } else if (follow.on) {  // following, paused by the user: stay where the user is
        st.token = jump.token;
        goSeq(had ? oldSeq : jump.seq, false);
      } else if ((fresh && !grew) || jump.token !== st.token) {
        st.token = jump.token;
        goSeq(jump.seq, false);
      } else {
        goSeq(oldSeq, false);  // filters changed (or the round grew): keep the event when it still shows, else the nearest
      }
      showFollow();
    }

    // ---- following a match being played (data.follow = {on, key: "match/round", token}).  The page sends the
    // round again as it grows; while following, the replayer shows its newest event.  A step back (previous,
    // first, the slider, the list, autoplay) pauses following at once, remembered for this round and this
    // "Follow live" switch-on (token) in sessionStorage; the step is reported to the page, which switches
    // "Follow live" off.  Switching it on again brings a new token: following goes on.
    function pauseKey() { return "kifu-follow-paused:" + st.data.follow.key; }

    function paused() {
      const f = st.data && st.data.follow;
      if (!f || !f.on) return false;
      if (st.pausedToken === f.token) return true;
      try { return sessionStorage.getItem(pauseKey()) === String(f.token); } catch (e) { return false; }
    }

    function following() { return !!(st.data && st.data.follow && st.data.follow.on) && !paused(); }

    function pause() {
      st.pausedToken = st.data.follow.token;
      try { sessionStorage.setItem(pauseKey(), String(st.data.follow.token)); } catch (e) { /* private mode */ }
      showFollow();
    }

    function showFollow() {
      const on = !!(st.data && st.data.follow && st.data.follow.on);
      const p = on && paused();
      ui.follow.hidden = !on;
      ui.follow.textContent = on ? L(p ? "follow_paused" : "follow_on") : "";
      ui.follow.classList.toggle("paused", p);
      ui.box.dataset.follow = on ? (p ? "paused" : "on") : "off";
    }

    function takeFocus() {
      // The filter (or round) was just changed in a select outside the replayer, and the focus stayed
      // there: the arrow keys would go to that select.  Give them back to the replayer.
      const a = document.activeElement;
      if (a && a !== document.body && isSelect(a)) {
        a.blur();
        ui.box.focus({ preventScroll: true });
      }
    }

    function labelControls() {
      ui.first.textContent = "|◀"; ui.first.title = L("first") + " (Home)"; ui.first.setAttribute("aria-label", L("first"));
      ui.back.textContent = "◀ " + L("back"); ui.back.title = L("back") + " (←)";
      ui.next.textContent = L("next") + " ▶"; ui.next.title = L("next") + " (→)";
      ui.last.textContent = "▶|"; ui.last.title = L("last") + " (End)"; ui.last.setAttribute("aria-label", L("last"));
      ui.speed.replaceChildren();
      for (const s of (st.data.speeds || [0.5, 1, 2, 4, 8])) {
        const o = el("option", null, s + "×"); o.value = String(s); if (s === 2) o.selected = true; ui.speed.appendChild(o);
      }
      ui.speed.title = L("speed"); ui.speed.setAttribute("aria-label", L("speed"));
      ui.range.setAttribute("aria-label", L("event"));
      ui.keys.title = L("keys") + " (?)"; ui.keys.setAttribute("aria-label", L("keys_title"));
      buildHelp();
      setPlaying(false);
    }

    function buildViewChoices() {
      ui.view.replaceChildren();
      const all = el("option", null, L("view_all")); all.value = ""; ui.view.appendChild(all);
      for (const p of st.data.players || []) {
        const o = el("option", null, L("view_as") + " " + short(p.name, 40)); o.value = p.code; ui.view.appendChild(o);
      }
      ui.view.value = st.perspective;
      ui.view.title = L("view"); ui.view.setAttribute("aria-label", L("view"));
    }

    function buildList() {
      ui.list.replaceChildren();
      st.items = [];
      const frames = st.data.frames;
      st.visible.forEach((fi, k) => {
        const f = frames[fi];
        const li = el("li");
        li.tabIndex = -1;
        li.dataset.k = String(k);
        li.dataset.seq = String(f.seq);
        if (f.refused) li.classList.add("refused");
        const n = el("span", "n", f.turn === null || f.turn === undefined ? "–" : String(f.turn));
        const what = el("span", "what");
        const errors = f.findings.filter((x) => x.severity === "error").length;
        const warnings = f.findings.filter((x) => x.severity === "warning").length;
        if (errors) what.appendChild(el("span", "flag-error", "● "));
        else if (warnings) what.appendChild(el("span", "flag-warning", "● "));
        what.appendChild(document.createTextNode((f.label || f.event) + (f.who ? " · " + short(f.who, 60) : "")));
        li.title = f.sentence;
        li.append(n, what);
        ui.list.appendChild(li);
        st.items.push(li);
      });
      ui.range.max = String(Math.max(st.visible.length, 1));
      ui.range.disabled = st.visible.length <= 1;
    }

    function goSeq(seq, user) {
      if (!st.visible.length) { show(0, user); return; }
      let best = 0;
      if (seq !== null && seq !== undefined) {
        const frames = st.data.frames;
        let bestD = Infinity;
        st.visible.forEach((fi, k) => {
          const d = Math.abs(frames[fi].seq - seq) + (frames[fi].seq < seq ? 0.5 : 0);  // ties: the later event
          if (d < bestD) { bestD = d; best = k; }
        });
      }
      show(best, user);
    }

    function show(k, user) {
      const n = st.visible.length;
      if (!n) {
        ui.title.textContent = ""; ui.sentence.textContent = L("no_events"); ui.findings.replaceChildren();
        ui.board.replaceChildren(el("div", "kr-empty", L("no_events"))); ui.pos.textContent = "0 / 0";
        return;
      }
      k = Math.max(0, Math.min(n - 1, k));
      if (user && k < n - 1 && following()) pause();  // the user looks back: stop following
      const prevItem = st.items[st.at];
      if (prevItem) prevItem.classList.remove("current");
      st.at = k;
      const f = st.data.frames[st.visible[k]];
      // a game's start position (seq 0, before any action) is step 0: "18 / 18" after the 18th action
      const base = st.data.frames[st.visible[0]].seq === 0 ? 0 : 1;
      // headline
      ui.title.replaceChildren();
      const rounds = st.data.round !== null && st.data.round !== undefined;
      const where = [
        f.turn === null || f.turn === undefined ? L("before_first_turn") : fmt(L("turn_n"), { n: f.turn }),
        fmt(L("step_n"), { what: L("event"), k: k + base, n: n - 1 + base }),
      ];
      if (rounds) where.unshift(fmt(L("round_n"), { n: st.data.round }));  // a game without rounds: none
      ui.title.append(el("span", "kr-where", where.join(" · ")), el("span", "kr-event", f.label || f.event));
      if (rounds && f.seq !== null && f.seq !== undefined) {  // the log's own number: a small detail only
        const s = el("span", "kr-seq", fmt(L("seq_n"), { n: f.seq }));
        s.title = L("seq_help");
        ui.title.appendChild(s);
      }
      if (f.think_ms !== null && f.think_ms !== undefined) {
        const t = el("span", "kr-think", fmt(L("think"), { s: (f.think_ms / 1000).toFixed(2) }));
        t.title = L("think_help");
        if (f.think_ms > 4000) t.classList.add("slow");
        ui.title.appendChild(t);
      }
      ui.sentence.textContent = f.sentence;
      ui.sentence.title = f.sentence;
      ui.sentence.classList.remove("open");
      ui.sentence.classList.toggle("refused", !!f.refused);
      ui.findings.replaceChildren();
      f.findings.forEach((x, i) => {
        const li = el("li", x.severity + (i >= FOLD ? " fold" : ""));
        li.append(el("span", "sev", L("severity_" + x.severity)), el("span", "text", x.text),
          el("span", "code", x.code));  // the check's code: a small detail after the words
        li.title = x.text;
        ui.findings.appendChild(li);
      });
      // more than FOLD findings: the first ones whole, the others behind one button (kept open while stepping),
      // never a box cut in the middle of a line
      ui.findings.classList.toggle("all", st.allFindings);
      if (f.findings.length > FOLD) {
        const more = el("button", "kr-more");
        more.type = "button";
        more.dataset.act = "more-findings";
        more.dataset.n = String(f.findings.length - FOLD);
        moreText(more);
        const row = el("li", "kr-more-row");
        row.appendChild(more);
        ui.findings.appendChild(row);
      }
      // board
      const render = renderers[st.data.game];
      const ctx = { players: st.data.playersByCode, labels: st.data.labels, perspective: st.perspective,
        el, name, short, fmt, L, data: st.data, prev: k > 0 ? st.data.frames[st.visible[k] - 1] : null };
      ui.board.replaceChildren(render ? render(f, ctx) : el("pre", null, JSON.stringify(f.board, null, 1)));
      // controls and list
      ui.range.value = String(k + 1);
      ui.pos.textContent = (k + base) + " / " + (n - 1 + base);
      ui.back.disabled = ui.first.disabled = k === 0;
      ui.next.disabled = ui.last.disabled = k === n - 1;
      const item = st.items[k];
      if (item) {
        item.classList.add("current");
        reveal(item);
        requestAnimationFrame(() => reveal(item));  // first render: measure once laid out
        for (const ms of [250, 1000]) setTimeout(() => { if (st.items[st.at] === item) reveal(item); }, ms);  // the page above settles
      }
      ui.box.dataset.seq = String(f.seq);
      moveCursor(k, n);
      if (user) scheduleReport(f.seq);
    }

    function moreText(button) {
      button.textContent = st.allFindings ? L("fewer_findings") : fmt(L("more_findings"), { n: button.dataset.n });
      button.setAttribute("aria-expanded", st.allFindings ? "true" : "false");
    }

    function reveal(item) {
      // scroll the event list (only the list, never the page) so the current event shows
      let lr = ui.list.getBoundingClientRect();
      if (!lr.height) return;
      // a list whose top is in the window but whose end is below it (a laptop: the board's height) ends at the
      // window's edge, so the event it highlights — the last one too — is seen without scrolling the page
      const vh = window.innerHeight || 0;
      if (st.listMax === undefined) st.listMax = parseFloat(getComputedStyle(ui.list).maxHeight) || 0;
      if (vh && st.listMax && lr.top >= 0 && vh - lr.top >= 160 && lr.bottom > vh) {
        ui.list.style.maxHeight = Math.floor(Math.min(st.listMax, vh - lr.top - 8)) + "px";
        lr = ui.list.getBoundingClientRect();
      }
      const ir = item.getBoundingClientRect();
      if (ir.top < lr.top) ui.list.scrollTop -= lr.top - ir.top;
      else if (ir.bottom > lr.bottom) ui.list.scrollTop += ir.bottom - lr.bottom;
    }

    function scheduleReport(seq) {
      clearTimeout(st.reportTimer);
      if (st.crossing) return;
      if (st.timer) return;  // autoplay reports when it stops
      st.reportTimer = setTimeout(() => report && report(seq), 400);
    }

    /** Ask the page for the next (d > 0) or previous round — at its first (last) event, or at its first (last)
     *  event of a marker kind — when it has one that way; false when it has none. */
    function crossOver(d, kind) {
      const c = st.data.cross || {};
      if (!cross || !(d > 0 ? c.next : c.prev)) return false;
      if (st.crossing) return true;  // asked already: the page is drawing the other round
      setPlaying(false);
      // no report of this round may reach the page after this (it would bring this round back)
      clearTimeout(st.reportTimer);
      st.crossing = true;
      ui.box.dataset.crossing = d > 0 ? "next" : "prev";
      cross(d > 0 ? 1 : -1, kind || "");
      return true;
    }

    function step(d) {
      const n = st.visible.length;
      // past the round's last (first) event: on into the next (previous) round, when the page has one
      if ((d > 0 && st.at >= n - 1) || (d < 0 && st.at <= 0)) { if (crossOver(d)) return; }
      show(st.at + d, true);
    }

    // ---- markers on the slider: findings, refused actions, penalties (distinct shapes and colours, a legend)
    function kindsOf(f) { return MARKS.filter(([, test]) => test(f)).map(([kind]) => kind); }

    function buildMarks() {
      ui.marks.replaceChildren();
      ui.legend.replaceChildren();
      const n = st.visible.length;
      const frames = st.data.frames;
      const counts = {};
      const frag = document.createDocumentFragment();
      st.visible.forEach((fi, k) => {
        for (const kind of kindsOf(frames[fi])) {
          counts[kind] = (counts[kind] || 0) + 1;
          const m = el("span", "kr-mark " + kind);
          m.style.left = (n > 1 ? (k / (n - 1)) * 100 : 0) + "%";
          m.dataset.k = String(k);
          m.title = L("mark_" + kind) + " · " + (frames[fi].label || frames[fi].event);
          frag.appendChild(m);
        }
      });
      ui.marks.appendChild(frag);
      ui.marks.setAttribute("aria-label", L("markers"));
      const any = Object.keys(counts).length > 0;
      ui.marks.hidden = !any;
      for (const [kind] of MARKS) {
        if (!counts[kind]) continue;
        const item = el("span", "kr-legend-item " + kind);
        item.append(el("span", "kr-mark " + kind), document.createTextNode(L("mark_" + kind) + " " + counts[kind]));
        ui.legend.appendChild(item);
      }
      ui.box.dataset.marks = Object.keys(counts).sort().join(" ");
    }

    /** The next (d = 1) or previous (d = -1) shown event of a marker kind; a note when there is none. */
    function seek(kind, d) {
      const test = MARKS.find(([k]) => k === kind)[1];
      const frames = st.data.frames;
      for (let k = st.at + d; k >= 0 && k < st.visible.length; k += d) {
        if (test(frames[st.visible[k]])) { show(k, true); return; }
      }
      if (crossOver(d, kind)) return;  // the page looks for one in the rounds that way
      say(fmt(L("none_left"), { what: L("mark_" + kind) }));
    }

    function say(text) {
      ui.note.textContent = text;
      clearTimeout(st.noteTimer);
      st.noteTimer = setTimeout(() => { ui.note.textContent = ""; }, 2500);
    }

    // ---- the graph: a number per player over the round (cards in hand, points...), a click jumps there
    const SVGNS = "http://www.w3.org/2000/svg";
    function svgEl(tag, attrs) {
      const e = document.createElementNS(SVGNS, tag);
      for (const k in attrs) e.setAttribute(k, String(attrs[k]));
      return e;
    }

    function buildGraph() {
      ui.graph.replaceChildren();
      st.cursor = null;
      const ser = series[st.data.game];
      const n = st.visible.length;
      const players = st.data.players || [];
      if (!ser || n < 2 || !players.length) { ui.graph.hidden = true; return; }
      ui.graph.hidden = false;
      const modes = ser.modes || [["graph", "graph"]];  // [title, button] label keys per mode
      if (st.graphMode >= modes.length) st.graphMode = 0;
      const head = el("div", "kr-graph-head");
      head.appendChild(el("span", "kr-graph-title", L(modes[st.graphMode][0])));
      if (modes.length > 1) {
        modes.forEach((m, i) => {
          const b = el("button", "kr-graph-mode" + (i === st.graphMode ? " on" : ""), L(m[1]));
          b.type = "button"; b.dataset.mode = String(i); b.setAttribute("aria-pressed", i === st.graphMode ? "true" : "false");
          head.appendChild(b);
        });
      }
      const W = 1000, H = 120, P = 4;
      const frames = st.data.frames;
      const values = st.visible.map((fi) => ser.values(frames[fi], st.graphMode, st.data) || []);
      let hi = 1;
      for (const row of values) for (const v of row) if (typeof v === "number" && v > hi) hi = v;
      const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", class: "kr-graph-svg",
        role: "img", "aria-label": L(modes[st.graphMode][0]) });
      const x = (k) => (k / (n - 1)) * W;
      const y = (v) => H - P - (v / hi) * (H - 2 * P);
      players.forEach((p, i) => {
        const pts = [];
        values.forEach((row, k) => { const v = row[i]; if (typeof v === "number") pts.push(x(k).toFixed(1) + "," + y(v).toFixed(1)); });
        if (!pts.length) return;
        const line = svgEl("polyline", { points: pts.join(" "), fill: "none", stroke: p.color || "#777",
          "stroke-width": 2.5, "vector-effect": "non-scaling-stroke", "data-player": p.code });
        const t = document.createElementNS(SVGNS, "title"); t.textContent = p.name; line.appendChild(t);
        svg.appendChild(line);
      });
      st.cursor = svgEl("line", { x1: 0, x2: 0, y1: 0, y2: H, class: "kr-graph-cursor", "vector-effect": "non-scaling-stroke" });
      svg.appendChild(st.cursor);
      const keyRow = el("div", "kr-graph-keys");
      players.forEach((p) => {
        const item = el("span", "kr-graph-key");
        const sw = el("span", "kr-graph-swatch"); sw.style.background = p.color || "#777";
        item.append(sw, name(short(p.name, 24)));
        keyRow.appendChild(item);
      });
      ui.graph.append(head, svg, keyRow);
      ui.graph.dataset.max = String(hi);
    }

    function moveCursor(k, n) {
      if (!st.cursor || n < 2) return;
      const xx = (k / (n - 1)) * 1000;
      st.cursor.setAttribute("x1", xx.toFixed(1));
      st.cursor.setAttribute("x2", xx.toFixed(1));
    }

    function graphClick(e) {
      const mode = e.target.closest && e.target.closest(".kr-graph-mode");
      if (mode) { st.graphMode = parseInt(mode.dataset.mode, 10) || 0; buildGraph(); moveCursor(st.at, st.visible.length); return; }
      const svg = e.target.closest && e.target.closest(".kr-graph-svg");
      if (!svg) return;
      const r = svg.getBoundingClientRect();
      if (!r.width) return;
      const n = st.visible.length;
      setPlaying(false);
      show(Math.round(((e.clientX - r.left) / r.width) * (n - 1)), true);
    }

    // ---- the keys and their help ("?")
    const KEYS = [["← →", "key_step"], ["Home End", "key_ends"], ["Space", "key_play"], ["f F", "key_finding"],
      ["p P", "key_penalty"], ["r R", "key_refused"], ["?", "key_help"]];

    function buildHelp() {
      ui.help.replaceChildren();
      ui.help.setAttribute("aria-label", L("keys_title"));
      ui.help.appendChild(el("div", "kr-help-title", L("keys_title")));
      const dl = el("dl");
      // the marker keys of kinds this game has (Kakomimasu has no penalty or refused action)
      const has = (kind) => st.data.frames.some(MARKS.find(([m]) => m === kind)[1]);
      const kindOf = { key_finding: "finding", key_penalty: "penalty", key_refused: "refused" };
      for (const [k, what] of KEYS) {
        if (kindOf[what] && kindOf[what] !== "finding" && !has(kindOf[what])) continue;
        const dt = el("dt");
        for (const one of k.split(" ")) dt.appendChild(el("kbd", null, one));
        dl.append(dt, el("dd", null, L(what)));
      }
      ui.help.appendChild(dl);
      if (st.data.cross) ui.help.appendChild(el("p", null, L("key_rounds")));
      const close = el("button", "kr-help-close", L("close"));
      close.type = "button"; close.dataset.act = "help-close";
      ui.help.appendChild(close);
    }

    function toggleHelp(on) {
      ui.help.hidden = on === undefined ? !ui.help.hidden : !on;
      ui.box.dataset.help = ui.help.hidden ? "0" : "1";
      if (!ui.help.hidden) ui.help.querySelector(".kr-help-close").focus({ preventScroll: true });
      else ui.box.focus({ preventScroll: true });
    }

    function setPlaying(on) {
      const was = !!st.timer;
      clearInterval(st.timer);
      st.timer = null;
      if (on) {
        if (st.at >= st.visible.length - 1) show(0, false);
        const speed = parseFloat(ui.speed.value) || 1;
        st.timer = setInterval(() => {
          if (st.at >= st.visible.length - 1) { setPlaying(false); return; }
          show(st.at + 1, false);
        }, 1000 / speed);
      } else if (was && st.data && st.visible.length) {  // autoplay stopped: report where it stopped
        scheduleReport(st.data.frames[st.visible[st.at]].seq);
      }
      ui.play.textContent = on ? "⏸ " + L("pause") : "▶ " + L("play");
      ui.play.setAttribute("aria-pressed", on ? "true" : "false");
      ui.box.dataset.playing = on ? "1" : "0";
    }

    function onClick(e) {
      // a tap on a clipped name or sentence shows all of it (phones have no hover)
      const open = e.target.closest && e.target.closest(".kr-name, .kr-sentence, .kr-findings li:not(.kr-more-row)");
      if (open && !e.target.closest(".kr-list")) { open.classList.toggle("open"); return; }
      if (e.target.closest && e.target.closest(".kr-graph")) { graphClick(e); return; }
      const mark = e.target.closest && e.target.closest(".kr-mark[data-k]");
      if (mark) { setPlaying(false); show(parseInt(mark.dataset.k, 10), true); return; }
      const act = e.target.closest && e.target.closest("[data-act]");
      if (act) {
        const a = act.dataset.act;
        if (a === "help" || a === "help-close") { toggleHelp(a === "help" ? undefined : false); return; }
        if (a === "more-findings") {
          st.allFindings = !st.allFindings;
          ui.findings.classList.toggle("all", st.allFindings);
          moreText(act);
          return;
        }
        if (a === "back") step(-1); else if (a === "next") step(1);
        else if (a === "first") show(0, true); else if (a === "last") show(st.visible.length - 1, true);
        else if (a === "play") { if (following()) pause(); setPlaying(!st.timer); }
        return;
      }
      const li = e.target.closest && e.target.closest(".kr-list li");
      if (li) { setPlaying(false); show(parseInt(li.dataset.k, 10), true); }
    }

    function onKey(e) {
      const path = e.composedPath ? e.composedPath() : [e.target];
      const t = path[0];
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
      if (t && t !== ui.range && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName || ""))) {
        // typing goes to text fields and a native <select> keeps its own keys; Streamlit's select boxes
        // (the page's filters: an input with role=combobox) do not use ←/→ while closed
        if (!(t.tagName === "INPUT" && isSelect(t) && t.getAttribute("aria-expanded") !== "true")) return;
        if (t !== ui.range && !/^Arrow/.test(e.key)) return;  // letters and Space type into a closed select box
      }
      if (e.key === "Escape" && !ui.help.hidden) { e.preventDefault(); toggleHelp(false); return; }
      if (e.key === "?") { e.preventDefault(); toggleHelp(); return; }
      if (e.key === " " || e.key === "Spacebar") {
        // Space plays and pauses (a focused button keeps its own Space)
        if (t && t.tagName === "BUTTON") return;
        e.preventDefault(); if (following()) pause(); setPlaying(!st.timer); return;
      }
      const keys = { ArrowLeft: () => step(-1), ArrowRight: () => step(1), Home: () => show(0, true),
        End: () => show(st.visible.length - 1, true), f: () => seek("finding", 1), F: () => seek("finding", -1),
        p: () => seek("penalty", 1), P: () => seek("penalty", -1), r: () => seek("refused", 1), R: () => seek("refused", -1) };
      if (keys[e.key]) { e.preventDefault(); if (st.timer) setPlaying(false); keys[e.key](); }
    }

    root.addEventListener("click", onClick);
    ui.range.addEventListener("input", () => show(parseInt(ui.range.value, 10) - 1, true));
    const refocus = () => ui.box.focus({ preventScroll: true });  // ←/→ step again, not change the select
    ui.speed.addEventListener("change", () => { if (st.timer) setPlaying(true); refocus(); });
    ui.view.addEventListener("change", () => { st.perspective = ui.view.value; show(st.at, false); refocus(); });
    document.addEventListener("keydown", onKey);

    const api = {
      update(d) { if (!st.data || st.data.id !== d.id) st.crossing = false; setData(prepare(d)); },
      destroy() { setPlaying(false); clearTimeout(st.reportTimer); clearTimeout(st.noteTimer); document.removeEventListener("keydown", onKey); },
      state() { return { at: st.at, seq: st.visible.length ? st.data.frames[st.visible[st.at]].seq : null }; },
    };
    api.update(data);
    return api;
  }

  /** A select box: <select>, or Streamlit's (baseweb) combobox input. */
  function isSelect(e) {
    return e.tagName === "SELECT" || (e.tagName === "INPUT" && e.getAttribute("role") === "combobox");
  }

  function prepare(d) {
    d.playersByCode = {};
    for (const p of d.players || []) d.playersByCode[p.code] = p;
    return d;
  }

  return { renderers, series, mount, el, name, short, fmt };
})();
