/* Kakomimasu (囲みマス) field for the Kifu replayer.
 *
 * frame.board = {cells: one char per cell ('.' neutral, 'A'.. wall of team 0.., 'a'.. area of team 0..),
 *                agents: [[ [x, y], ... ] per team], actions: [{p, a, t, x, y, fx, fy, ok, u, text}],
 *                points: [[area, wall] per team], logged: [[area, wall] | null per team]}
 * data.field = {w, h, points}. Texts go through textContent; SVG is built with createElementNS.
 * The field takes the width it is given (square cells, capped in replayer.css).  Nothing needs a hover:
 * a legend is always shown, and a tap (or click) on a cell shows that cell in words under the field
 * (the cell stays chosen while stepping).
 */
(() => {
  const NS = "http://www.w3.org/2000/svg";
  const S = 30;  // cell size in SVG units
  const PUT = 1, MOVE = 3, REMOVE = 4;
  //: English fallbacks of labels a payload may lack (the page sends them translated).
  const DEFAULTS = {
    legend_wall: "wall", legend_area: "area (enclosed)", legend_agent: "agent (its number)", legend_put: "put",
    legend_move: "move", legend_remove: "remove", legend_failed: "failed (red, dashed)",
    legend_negative: "negative cell (violet)", tap_cell: "Tap a cell to see it in words.",
    cell_points: "{n} points", wall_of: "wall of {team}", area_of: "area of {team}", agent_n: "agent {n}",
    acts_here: "actions aimed here", zoom: "Zoom", zoom_in: "Zoom in", zoom_out: "Zoom out", zoom_fit: "Fit",
  };
  const chosen = {};  // game id -> [x, y] of the cell tapped last
  //: The field's zoom levels (1: the column's width). A phone's 20×20 field is 18 px a cell at 1; 2 makes its
  //: numbers readable, and the field then scrolls sideways inside its own box (the page never does).
  const ZOOMS = [1, 1.5, 2, 2.5, 3];
  const zoomAt = {};  // game id -> index in ZOOMS (kept while stepping)
  const scrolled = {};  // game id -> [left, top] of the field's box (kept while stepping)

  function svg(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function shade(v) {
    // neutral cells: grey by value; negative cells a distinct violet, darker for larger magnitude
    const m = Math.min(Math.abs(v), 16) / 16;
    if (v < 0) return `hsl(275, 45%, ${92 - m * 22}%)`;
    return `hsl(210, 8%, ${98 - m * 20}%)`;
  }

  function render(frame, ctx) {
    const { el, data, labels } = ctx;
    const fmt = ctx.fmt || ((t, v) => String(t).replace(/\{(\w+)\}/g, (m, k) => (k in v ? String(v[k]) : m)));
    const L = (k) => (labels && labels[k]) || DEFAULTS[k] || k;
    const f = data.field || { w: 0, h: 0, points: [] };
    const b = frame.board || {};
    const teams = data.players || [];
    const color = (p) => (teams[p] && teams[p].color) || "#777";
    const wrap = el("div", "km");
    const box = svg("svg", { viewBox: `-2 -2 ${f.w * S + 4} ${f.h * S + 4}`, class: "km-field", role: "img" });
    box.appendChild(svg("title", {}, L("field") + " " + f.w + "×" + f.h));
    const defs = svg("defs", {});
    teams.forEach((t, p) => {
      const m = svg("marker", { id: `km-arrow-${p}`, viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse" });
      m.appendChild(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: color(p) }));
      defs.appendChild(m);
    });
    const mx = svg("marker", { id: "km-arrow-x", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse" });
    mx.appendChild(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#B3261E" }));
    defs.appendChild(mx);
    box.appendChild(defs);
    const cells = b.cells || "";
    for (let y = 0; y < f.h; y++) {
      for (let x = 0; x < f.w; x++) {
        const i = y * f.w + x;
        const v = f.points[i];
        const c = cells[i] || ".";
        const g = svg("g", { class: "km-cell", "data-x": x, "data-y": y });
        g.appendChild(svg("rect", { x: x * S, y: y * S, width: S, height: S, fill: shade(v), stroke: "#c9d1d9", "stroke-width": 0.5 }));
        let owner = -1, wall = false;
        if (c !== ".") {
          const code = c.charCodeAt(0);
          wall = code < 97;
          owner = code - (wall ? 65 : 97);
          g.appendChild(svg("rect", {
            x: x * S + (wall ? 1 : 0), y: y * S + (wall ? 1 : 0), width: S - (wall ? 2 : 0), height: S - (wall ? 2 : 0),
            fill: color(owner), "fill-opacity": wall ? 0.9 : 0.3, rx: wall ? 3 : 0,
            class: wall ? "km-wall" : "km-area",
          }));
        }
        const t = svg("text", { x: x * S + S / 2, y: y * S + S / 2 + 4, "text-anchor": "middle",
          class: "km-pt" + (v < 0 ? " neg" : "") + (wall ? " on-wall" : "") }, v);
        g.appendChild(t);
        const who = owner >= 0 ? (teams[owner] ? teams[owner].name : "") : "";
        g.appendChild(svg("title", {}, `(${x}, ${y}) ${v} · ` + (owner < 0 ? L("neutral") : (wall ? L("wall") : L("area")) + " " + who)));
        box.appendChild(g);
      }
    }
    // actions of this turn (the chosen team only, when one is chosen)
    const persp = ctx.perspective;
    const acts = (b.actions || []).filter((a) => !a.u && (!persp || (teams[a.p] && teams[a.p].code === persp)));
    for (const a of acts) {
      if (a.x < 0 || a.y < 0 || a.x >= f.w || a.y >= f.h) continue;
      const cx = a.x * S + S / 2, cy = a.y * S + S / 2;
      const stroke = a.ok ? color(a.p) : "#B3261E";
      const g = svg("g", { class: "km-act" + (a.ok ? "" : " failed"), "data-p": a.p, "data-a": a.a, "data-x": a.x, "data-y": a.y });
      g.appendChild(svg("title", {}, (teams[a.p] ? teams[a.p].name + " · " : "") + a.text));
      if (a.t === MOVE && a.fx >= 0) {
        const fx = a.fx * S + S / 2, fy = a.fy * S + S / 2;
        g.appendChild(svg("line", { x1: fx, y1: fy, x2: fx + (cx - fx) * 0.8, y2: fy + (cy - fy) * 0.8, stroke, "stroke-width": 3,
          "stroke-dasharray": a.ok ? "" : "4 3", "marker-end": `url(#${a.ok ? "km-arrow-" + a.p : "km-arrow-x"})` }));
      } else if (a.t === PUT) {
        g.appendChild(svg("rect", { x: cx - 8, y: cy - 8, width: 16, height: 16, transform: `rotate(45 ${cx} ${cy})`,
          fill: "none", stroke, "stroke-width": 2.5, "stroke-dasharray": a.ok ? "" : "3 2" }));
      } else if (a.t === REMOVE) {
        g.appendChild(svg("path", { d: `M${cx - 8},${cy - 8} L${cx + 8},${cy + 8} M${cx + 8},${cy - 8} L${cx - 8},${cy + 8}`,
          stroke: a.ok ? "#111" : "#B3261E", "stroke-width": 3, "stroke-dasharray": a.ok ? "" : "3 2" }));
      }
      if (!a.ok && a.t !== REMOVE) {  // struck through: a red cross at the target
        g.appendChild(svg("path", { d: `M${cx - 5},${cy - 5} L${cx + 5},${cy + 5} M${cx + 5},${cy - 5} L${cx - 5},${cy + 5}`,
          stroke: "#B3261E", "stroke-width": 2 }));
      }
      box.appendChild(g);
    }
    // agents
    (b.agents || []).forEach((row, p) => row.forEach((xy, i) => {
      if (!xy || xy[0] < 0) return;
      const cx = xy[0] * S + S / 2, cy = xy[1] * S + S / 2;
      const g = svg("g", { class: "km-agent", "data-p": p, "data-a": i, "data-x": xy[0], "data-y": xy[1] });
      g.appendChild(svg("circle", { cx, cy, r: S * 0.34, fill: "#fff", stroke: color(p), "stroke-width": 3.5 }));
      g.appendChild(svg("text", { x: cx, y: cy + 4, "text-anchor": "middle", class: "km-agent-id" }, i));
      g.appendChild(svg("title", {}, (teams[p] ? teams[p].name : "") + " · " + L("agent") + " " + i + ` (${xy[0]}, ${xy[1]})`));
      box.appendChild(g);
    }));
    const field = el("div", "km-fieldbox");
    const scroller = el("div", "km-scroll");
    scroller.appendChild(box);
    field.append(zoomBar(data.id, box, scroller, L, el), scroller);
    scroller.addEventListener("scroll", () => { scrolled[data.id] = [scroller.scrollLeft, scroller.scrollTop]; },
      { passive: true });
    setZoom(data.id, box, scroller, zoomAt[data.id] || 0, false);
    // the chosen cell in words (a tap, no hover needed)
    const detail = el("div", "km-detail");
    detail.setAttribute("aria-live", "polite");
    const mark = svg("rect", { class: "km-chosen", width: S, height: S, fill: "none", stroke: "#111", "stroke-width": 3,
      "pointer-events": "none", visibility: "hidden" });
    box.appendChild(mark);
    const choose = (xy) => {
      detail.replaceChildren();
      if (!xy || xy[0] < 0 || xy[1] < 0 || xy[0] >= f.w || xy[1] >= f.h) {
        detail.appendChild(el("span", "km-hint", L("tap_cell")));
        mark.setAttribute("visibility", "hidden");
        return;
      }
      const [x, y] = xy;
      mark.setAttribute("x", x * S); mark.setAttribute("y", y * S); mark.setAttribute("visibility", "visible");
      const i = y * f.w + x, c = cells[i] || ".";
      const line = el("div", "km-detail-cell");
      line.appendChild(el("b", null, `(${x}, ${y})`));
      line.appendChild(document.createTextNode(" · " + fmt(L("cell_points"), { n: f.points[i] }) + " · "));
      if (c === ".") line.appendChild(document.createTextNode(L("neutral")));
      else {
        const code = c.charCodeAt(0), wall = code < 97, p = code - (wall ? 65 : 97);
        const [before, after] = fmt(L(wall ? "wall_of" : "area_of"), { team: "\u0000" }).split("\u0000");
        line.append(document.createTextNode(before || ""), team(p), document.createTextNode(after || ""));
      }
      (b.agents || []).forEach((row, p) => row.forEach((a, n) => {
        if (a && a[0] === x && a[1] === y) {
          line.append(document.createTextNode(" · "), team(p), document.createTextNode(" " + fmt(L("agent_n"), { n })));
        }
      }));
      detail.appendChild(line);
      const here = (b.actions || []).filter((a) => a.x === x && a.y === y);
      if (here.length) {
        const ul = el("ul");
        for (const a of here) ul.appendChild(actionItem(a));
        detail.append(el("div", "km-actions-title", L("acts_here")), ul);
      }
    };
    /** One action in words, with its team's colour; failed ones marked (text only: no log text as HTML). */
    function actionItem(a) {
      const li = el("li", a.u ? "unknown" : (a.ok ? "ok" : "failed"));
      const sw = el("span", "km-swatch"); sw.style.background = color(a.p);
      li.append(sw, document.createTextNode(a.text));
      return li;
    }
    const team = (p) => {
      const sp = el("span", "km-who");
      const sw = el("span", "km-swatch"); sw.style.background = color(p);
      sp.append(sw, ctx.name ? ctx.name(teams[p] ? teams[p].name : "?") : document.createTextNode(teams[p] ? teams[p].name : "?"));
      return sp;
    };
    box.addEventListener("click", (e) => {
      const g = e.target.closest && e.target.closest("[data-x]");
      if (!g) return;
      const xy = [parseInt(g.getAttribute("data-x"), 10), parseInt(g.getAttribute("data-y"), 10)];
      const same = chosen[data.id] && chosen[data.id][0] === xy[0] && chosen[data.id][1] === xy[1];
      chosen[data.id] = same ? null : xy;  // a second tap on the same cell clears it
      choose(chosen[data.id]);
    });
    choose(chosen[data.id]);
    field.append(legend(L, color, el), detail);
    // scores
    const score = el("table", "km-score");
    const head = el("tr");
    for (const h of ["team", "area", "wall", "total"]) head.appendChild(el("th", null, L(h)));
    score.appendChild(head);
    teams.forEach((t, p) => {
      const pt = (b.points || [])[p] || [0, 0];
      const lg = (b.logged || [])[p];
      const tr = el("tr");
      const name = el("td", "km-team");
      const sw = el("span", "km-swatch"); sw.style.background = color(p);
      name.append(sw, ctx.name ? ctx.name(t.name) : document.createTextNode(t.name));
      tr.append(name, el("td", "n", pt[0]), el("td", "n", pt[1]), el("td", "n total", pt[0] + pt[1]));
      if (lg && (lg[0] !== pt[0] || lg[1] !== pt[1])) {
        tr.classList.add("mismatch");
        tr.title = L("logged") + ": " + lg[0] + " + " + lg[1];
      }
      score.appendChild(tr);
    });
    // actions in words
    const list = el("div", "km-actions");
    list.appendChild(el("div", "km-actions-title", L("actions")));
    const all = (b.actions || []).filter((a) => !persp || (teams[a.p] && teams[a.p].code === persp));
    if (!all.length) list.appendChild(el("div", "km-none", L("no_actions")));
    const ul = el("ul");
    for (const a of all) ul.appendChild(actionItem(a));
    list.appendChild(ul);
    const side = el("div", "km-side");
    side.append(score, list);
    wrap.append(field, side);
    return wrap;
  }

  /** The field at ZOOMS[k] of the column's width; ``keepCentre``: the cell in the middle of the view stays there. */
  function setZoom(id, box, scroller, k, keepCentre) {
    k = Math.max(0, Math.min(ZOOMS.length - 1, k));
    const cx = scroller.scrollWidth ? (scroller.scrollLeft + scroller.clientWidth / 2) / scroller.scrollWidth : 0.5;
    zoomAt[id] = k;
    box.style.width = ZOOMS[k] * 100 + "%";
    (scroller.parentElement || scroller).querySelectorAll("[data-zoom]")
      .forEach((b) => {
        const d = b.dataset.zoom;
        b.disabled = (d === "-1" && k === 0) || (d === "+1" && k === ZOOMS.length - 1) || (d === "0" && k === 0);
        if (d === "level") b.textContent = Math.round(ZOOMS[k] * 100) + "%";
      });
    const restore = () => {
      if (keepCentre) scroller.scrollLeft = cx * scroller.scrollWidth - scroller.clientWidth / 2;
      else if (scrolled[id]) scroller.scrollLeft = scrolled[id][0];
    };
    restore();
    requestAnimationFrame(restore);  // a new field is laid out once it is on the page
  }

  /** − 100% + Fit: the field's zoom, above it (a tap each; the level stays while stepping). */
  function zoomBar(id, box, scroller, L, el) {
    const bar = el("div", "km-zoom");
    bar.setAttribute("role", "group");
    bar.setAttribute("aria-label", L("zoom"));
    bar.appendChild(el("span", "km-zoom-label", L("zoom")));
    const button = (d, text, label) => {
      const b = el("button", "km-zoom-btn", text);
      b.type = "button";
      b.dataset.zoom = d;
      if (label) { b.title = label; b.setAttribute("aria-label", label); }
      return b;
    };
    const level = el("span", "km-zoom-level", "100%");
    level.dataset.zoom = "level";
    bar.append(button("-1", "−", L("zoom_out")), level, button("+1", "+", L("zoom_in")), button("0", L("zoom_fit")));
    bar.addEventListener("click", (e) => {
      const b = e.target.closest && e.target.closest("button[data-zoom]");
      if (!b) return;
      e.stopPropagation();
      const k = zoomAt[id] || 0;
      setZoom(id, box, scroller, b.dataset.zoom === "0" ? 0 : k + parseInt(b.dataset.zoom, 10), true);
      scrolled[id] = [scroller.scrollLeft, scroller.scrollTop];
    });
    return bar;
  }

  /** What the drawing means, always visible (no hover on phones). */
  function legend(L, color, el) {
    const row = el("div", "km-legend");
    const icon = (draw) => {
      const s = svg("svg", { viewBox: "0 0 20 20", width: 16, height: 16, "aria-hidden": "true" });
      draw(s);
      return s;
    };
    const c0 = color(0);
    const items = [
      ["legend_wall", (s) => s.appendChild(svg("rect", { x: 2, y: 2, width: 16, height: 16, rx: 3, fill: c0, "fill-opacity": 0.9 }))],
      ["legend_area", (s) => s.appendChild(svg("rect", { x: 1, y: 1, width: 18, height: 18, fill: c0, "fill-opacity": 0.3 }))],
      ["legend_agent", (s) => { s.appendChild(svg("circle", { cx: 10, cy: 10, r: 7, fill: "#fff", stroke: c0, "stroke-width": 3 }));
        s.appendChild(svg("text", { x: 10, y: 13.5, "text-anchor": "middle", "font-size": 10, "font-weight": 700 }, "0")); }],
      ["legend_put", (s) => s.appendChild(svg("rect", { x: 5, y: 5, width: 10, height: 10, transform: "rotate(45 10 10)", fill: "none", stroke: c0, "stroke-width": 2.5 }))],
      ["legend_move", (s) => s.appendChild(svg("path", { d: "M2,10 L13,10 M10,5 L16,10 L10,15", fill: "none", stroke: c0, "stroke-width": 2.5 }))],
      ["legend_remove", (s) => s.appendChild(svg("path", { d: "M4,4 L16,16 M16,4 L4,16", stroke: "#111", "stroke-width": 2.5 }))],
      ["legend_failed", (s) => s.appendChild(svg("path", { d: "M2,10 L18,10", stroke: "#B3261E", "stroke-width": 3, "stroke-dasharray": "4 3" }))],
      ["legend_negative", (s) => s.appendChild(svg("rect", { x: 1, y: 1, width: 18, height: 18, fill: shade(-8), stroke: "#c9d1d9" }))],
    ];
    for (const [key, draw] of items) {
      const it = el("span", "km-legend-item");
      it.append(icon(draw), document.createTextNode(L(key)));
      row.appendChild(it);
    }
    return row;
  }

  KifuReplayer.renderers["kakomimasu"] = render;
})();

/* The Kakomimasu graph: each team's points (area + wall) over the game. */
KifuReplayer.series["kakomimasu"] = {
  modes: [["graph_km", "graph_km"]],
  values(frame, mode, data) {
    const pts = (frame.board || {}).points || [];
    return (data.players || []).map((p, i) => (Array.isArray(pts[i]) ? pts[i][0] + pts[i][1] : null));
  },
};
