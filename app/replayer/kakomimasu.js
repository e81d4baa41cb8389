/* Kakomimasu (囲みマス) field for the Kifu replayer.
 *
 * frame.board = {cells: one char per cell ('.' neutral, 'A'.. wall of team 0.., 'a'.. area of team 0..),
 *                agents: [[ [x, y], ... ] per team], actions: [{p, a, t, x, y, fx, fy, ok, u, text}],
 *                points: [[area, wall] per team], logged: [[area, wall] | null per team]}
 * data.field = {w, h, points}. Texts go through textContent; SVG is built with createElementNS.
 */
(() => {
  const NS = "http://www.w3.org/2000/svg";
  const S = 30;  // cell size in SVG units
  const PUT = 1, MOVE = 3, REMOVE = 4;

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
    const L = (k) => (labels && labels[k]) || k;
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
      const g = svg("g", { class: "km-act" + (a.ok ? "" : " failed"), "data-p": a.p, "data-a": a.a });
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
      const g = svg("g", { class: "km-agent", "data-p": p, "data-a": i });
      g.appendChild(svg("circle", { cx, cy, r: S * 0.34, fill: "#fff", stroke: color(p), "stroke-width": 3.5 }));
      g.appendChild(svg("text", { x: cx, y: cy + 4, "text-anchor": "middle", class: "km-agent-id" }, i));
      g.appendChild(svg("title", {}, (teams[p] ? teams[p].name : "") + " · " + L("agent") + " " + i + ` (${xy[0]}, ${xy[1]})`));
      box.appendChild(g);
    }));
    const field = el("div", "km-fieldbox");
    field.appendChild(box);
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
      name.append(sw, document.createTextNode(t.name));
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
    for (const a of all) {
      const li = el("li", a.u ? "unknown" : (a.ok ? "ok" : "failed"));
      const sw = el("span", "km-swatch"); sw.style.background = color(a.p);
      li.append(sw, document.createTextNode(a.text));
      ul.appendChild(li);
    }
    list.appendChild(ul);
    const side = el("div", "km-side");
    side.append(score, list);
    wrap.append(field, side);
    return wrap;
  }

  KifuReplayer.renderers["kakomimasu"] = render;
})();
