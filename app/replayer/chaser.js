/* CHaser map for the Kifu replayer.
 *
 * frame.board = {cells: one digit per cell (0 floor, 2 block, 3 item), pos: [[x, y] Cool, [x, y] Hot],
 *                items: [cool, hot], team: 0|1|null (who acted), action, dir, seen: [[x, y]...],
 *                taken, picked, digits, replayed}
 * data.map = {w, h}. Texts go through textContent; SVG is built with createElementNS.
 */
(() => {
  const NS = "http://www.w3.org/2000/svg";
  const S = 30;
  const VEC = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] };

  function svg(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function render(frame, ctx) {
    const { el, data, labels } = ctx;
    const L = (k) => (labels && labels[k]) || k;
    const m = data.map || { w: 0, h: 0 };
    const b = frame.board || {};
    const teams = data.players || [];
    const wrap = el("div", "ch");
    const box = svg("svg", { viewBox: `-2 -2 ${m.w * S + 4} ${m.h * S + 4}`, class: "ch-map", role: "img" });
    box.appendChild(svg("title", {}, L("map") + " " + m.w + "×" + m.h));
    const seen = new Set((b.seen || []).map((c) => c[0] + "," + c[1]));
    const cells = b.cells || "";
    for (let y = 0; y < m.h; y++) {
      for (let x = 0; x < m.w; x++) {
        const c = cells[y * m.w + x];
        const g = svg("g", { class: "ch-cell " + (c === "2" ? "block" : c === "3" ? "item" : "floor"), "data-x": x, "data-y": y });
        g.appendChild(svg("rect", { x: x * S, y: y * S, width: S, height: S, class: "bg" }));
        if (c === "2") g.appendChild(svg("rect", { x: x * S + 2, y: y * S + 2, width: S - 4, height: S - 4, rx: 3, class: "blk" }));
        if (c === "3") g.appendChild(svg("path", { d: `M${x * S + S / 2},${y * S + 6} l8,9 l-8,9 l-8,-9 z`, class: "itm" }));
        if (seen.has(x + "," + y)) g.appendChild(svg("rect", { x: x * S + 1, y: y * S + 1, width: S - 2, height: S - 2, class: "seen" }));
        g.appendChild(svg("title", {}, `(${x}, ${y}) ` + (c === "2" ? L("block") : c === "3" ? L("item") : L("floor"))
          + (seen.has(x + "," + y) ? " · " + L("seen") : "")));
        box.appendChild(g);
      }
    }
    // the players (the one who acted drawn last, with its direction)
    const order = b.team === 0 ? [1, 0] : [0, 1];
    for (const p of order) {
      const pos = (b.pos || [])[p];
      if (!pos) continue;
      const t = teams[p] || {};
      const cx = pos[0] * S + S / 2, cy = pos[1] * S + S / 2;
      const g = svg("g", { class: "ch-player" + (b.team === p ? " acting" : ""), "data-team": t.code || "" });
      g.appendChild(svg("circle", { cx, cy, r: S * 0.36, fill: t.color || "#777", stroke: "#111", "stroke-width": b.team === p ? 3 : 1 }));
      g.appendChild(svg("text", { x: cx, y: cy + 5, "text-anchor": "middle", class: "ch-letter" }, p === 0 ? "C" : "H"));
      if (b.team === p && b.dir && VEC[b.dir]) {
        const [dx, dy] = VEC[b.dir];
        g.appendChild(svg("line", { x1: cx + dx * S * 0.36, y1: cy + dy * S * 0.36, x2: cx + dx * S * 0.8, y2: cy + dy * S * 0.8,
          stroke: "#111", "stroke-width": 3, "stroke-linecap": "round" }));
      }
      g.appendChild(svg("title", {}, (t.name || "") + ` (${pos[0]}, ${pos[1]})`));
      box.appendChild(g);
    }
    const field = el("div", "ch-mapbox");
    field.appendChild(box);
    // items and the logged 3×3
    const side = el("div", "ch-side");
    const tbl = el("table", "ch-items");
    teams.forEach((t, p) => {
      const tr = el("tr");
      const name = el("td");
      const sw = el("span", "ch-swatch"); sw.style.background = t.color || "#777";
      name.append(sw, ctx.name ? ctx.name(t.name) : document.createTextNode(t.name));
      tr.append(name, el("td", "n", ((b.items || [])[p] || 0) + " " + L("items")));
      tbl.appendChild(tr);
    });
    side.appendChild(tbl);
    if (b.taken) side.appendChild(el("div", "ch-taken", "◆ " + L("taken")));
    if (b.digits !== undefined) {
      const grid = (s, title) => {
        const d = el("div", "ch-grid");
        d.appendChild(el("div", "ch-grid-title", title));
        const g = el("div", "ch-digits");
        for (const ch of String(s || "").slice(1, 10)) g.appendChild(el("span", "d" + ch, ch));
        d.appendChild(g);
        return d;
      };
      const row = el("div", "ch-grids");
      row.append(grid(b.digits, L("logged")), grid(b.replayed, L("replayed")));
      if (b.digits !== b.replayed) row.classList.add("mismatch");
      side.appendChild(row);
    }
    wrap.append(field, side);
    return wrap;
  }

  KifuReplayer.renderers["chaser"] = render;
})();

/* The CHaser graph: each player's items over the game. */
KifuReplayer.series["chaser"] = {
  modes: [["graph_ch", "graph_ch"]],
  values(frame, mode, data) {
    const items = (frame.board || {}).items || [];
    return (data.players || []).map((p, i) => (typeof items[i] === "number" ? items[i] : null));
  },
};
