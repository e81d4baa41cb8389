/* ALGORI UNO board for the Kifu replayer: seats clockwise around the table (play order runs
 * clockwise when the direction is normal), the previous card -> the card just played and by whom,
 * the current colour, the direction arrow, piles, pending draws, binds and UNO badges. */
(() => {
  const FACE = { skip: "⊘", reverse: "⇄", draw_2: "+2", wild: "W", wild_draw_4: "+4", wild_shuffle: "⤮", white_wild: "W" };
  const MARK = { red: "▲", yellow: "●", green: "■", blue: "◆" };  // colour-blind safe: a shape per colour
  const POINTS = { skip: 20, reverse: 20, draw_2: 20, wild_shuffle: 40, white_wild: 40, wild: 50, wild_draw_4: 50 };
  const POS = ["bottom", "left", "top", "right"];

  function parts(label) {
    if (!label || typeof label !== "string") return ["black", "?"];
    const i = label.indexOf("-");
    const colour = i < 0 ? "black" : label.slice(0, i);
    const face = i < 0 ? label : label.slice(i + 1);
    return [MARK[colour] || colour === "white" ? colour : "black", face];
  }

  function card(el, label, L, extra) {
    const [colour, face] = parts(label);
    const wildFace = face === "wild" || face === "wild_draw_4" || face === "wild_shuffle";
    // a wild on the table carries the chosen colour: show the colour and the wild symbol
    const c = el("span", "kc " + colour + (extra ? " " + extra : ""));
    if (MARK[colour]) c.appendChild(el("span", "m", MARK[colour]));
    c.appendChild(el("span", "f", FACE[face] || face));
    const words = [L("colour_" + colour) || colour, L("card_" + face) || face.replace(/_/g, " ")];
    c.title = wildFace && colour !== "black" ? words.join(" ") : words.join(" ");
    c.setAttribute("role", "img");
    c.setAttribute("aria-label", c.title);
    return c;
  }

  function points(cards) {
    let t = 0;
    for (const c of cards) { const f = parts(c)[1]; t += /^\d+$/.test(f) ? parseInt(f, 10) : (POINTS[f] || 0); }
    return t;
  }

  function multiset(cards) { const m = {}; for (const c of cards || []) m[c] = (m[c] || 0) + 1; return m; }

  KifuReplayer.renderers["algori-uno"] = (frame, ctx) => {
    const { el } = ctx;
    const L = (k) => (ctx.labels && ctx.labels[k]) || "";
    const b = frame.board || {};
    const hands = b.hands || {};
    const seats = ctx.data.seats && ctx.data.seats.length ? ctx.data.seats : Object.keys(hands);
    const view = ctx.perspective;
    const shift = view && seats.indexOf(view) >= 0 ? seats.indexOf(view) : 0;
    const table = el("div", "ut");
    table.setAttribute("role", "group");
    table.setAttribute("aria-label", L("table"));

    seats.forEach((code, i) => {
      const p = ctx.players[code] || { name: code, color: "#888" };
      const cards = Array.isArray(hands[code]) ? hands[code] : [];
      const seat = el("div", "ut-seat pos-" + (POS[(i - shift + seats.length) % seats.length] || "bottom"));
      seat.dataset.player = code;
      if (frame.actor === code) seat.classList.add("actor");
      if (b.to_act === code) seat.classList.add("to-act");
      const name = el("div", "ut-name");
      const chip = el("span", "ut-chip"); chip.style.background = p.color; name.appendChild(chip);
      name.appendChild(ctx.name(p.name, "who"));
      if (b.to_act === code) name.appendChild(el("span", "ut-badge act", L("to_act")));
      if (b.yell && b.yell[code]) name.appendChild(el("span", "ut-badge uno", "UNO"));
      if (b.bind && b.bind[code]) name.appendChild(el("span", "ut-badge bind", L("bound") + " ×" + b.bind[code]));
      if (frame.winner === code) name.appendChild(el("span", "ut-badge win", L("winner")));
      seat.appendChild(name);
      const hidden = view && view !== code;
      seat.appendChild(el("div", "ut-meta", cards.length + " " + L("cards") + (hidden ? "" : " · " + points(cards) + " " + L("points"))));
      if (frame.attempt && frame.actor === code) {
        const a = el("div", "ut-attempt");
        a.appendChild(card(el, frame.attempt, L, "crossed"));
        a.appendChild(el("span", null, L("refused")));
        seat.appendChild(a);
      }
      const hand = el("div", "ut-hand");
      const gained = multiset((frame.gained || {})[code]);
      const kind = frame.event === "penalty" ? "penalty" : "gained";
      for (const c of cards) {
        if (hidden) { hand.appendChild(el("span", "kc back")); continue; }
        let extra = "";
        if (gained[c]) { gained[c] -= 1; extra = kind; }
        hand.appendChild(card(el, c, L, extra));
      }
      seat.appendChild(hand);
      table.appendChild(seat);
    });

    const center = el("div", "ut-center");
    const dir = el("div", "ut-dir", b.direction === false ? "↺" : b.direction === true ? "↻" : "");
    dir.title = b.direction === false ? L("dir_reverse") : L("dir_normal");
    center.appendChild(dir);
    const play = el("div", "ut-play");
    const last = frame.played || {};
    if (last.prev) { play.appendChild(card(el, last.prev, L, "")); play.appendChild(el("span", "arrow", "→")); }
    play.appendChild(card(el, b.top, L, "big"));
    center.appendChild(play);
    if (last.by) {
      const by = el("div", "ut-by", L("played_by") + " ");
      by.appendChild(ctx.name((ctx.players[last.by] || {}).name || last.by));
      center.appendChild(by);
    }
    else if (last.first) center.appendChild(el("div", "ut-by", L("first_card")));
    const pills = el("div", "ut-pills");
    const colour = parts(b.top)[0];
    const cp = el("span", "ut-pill ut-colour");
    if (MARK[colour]) { const s = el("span", "kc " + colour); s.style.cssText = "width:14px;height:14px;font-size:8px"; s.appendChild(el("span", null, MARK[colour])); cp.appendChild(s); }
    cp.appendChild(document.createTextNode(L("colour") + ": " + (L("colour_" + colour) || colour)));
    pills.appendChild(cp);
    pills.appendChild(el("span", "ut-pill", L("draw_pile") + " " + (b.draw_pile ?? "?")));
    pills.appendChild(el("span", "ut-pill", L("discard_pile") + " " + (b.discard_pile ?? "?")));
    if (b.pending) pills.appendChild(el("span", "ut-pill pending", L("must_draw") + " +" + b.pending));
    else if (b.owes_draw) pills.appendChild(el("span", "ut-pill pending", L("owes_draw")));
    center.appendChild(pills);
    table.appendChild(center);
    return table;
  };
})();
