/* UNO board for the Kifu replayer (ALGORI and JUA rules): 2–10 seats clockwise around the table (play
 * order runs clockwise when the direction is normal), the previous card -> the card (or pair) just played
 * and by whom, the current colour, the direction arrow, piles, pending draws or the JUA draw stack and who
 * must answer it, a challenge's outcome, the hand shown to the challenger only, binds and UNO badges. */
(() => {
  const FACE = { skip: "⊘", reverse: "⇄", draw_2: "+2", wild: "W", wild_draw_4: "+4", wild_shuffle: "⤮", white_wild: "W" };
  const MARK = { red: "▲", yellow: "●", green: "■", blue: "◆" };  // colour-blind safe: a shape per colour
  const POINTS = { skip: 20, reverse: 20, draw_2: 20, wild_shuffle: 40, white_wild: 40, wild: 50, wild_draw_4: 50 };
  //: Up to 4 seats: named places around the centre, clockwise from the viewer's seat (at the bottom).
  const POS = { 1: ["bottom"], 2: ["bottom", "top"], 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"] };
  //: 5–10 seats: [row, column] of a 3-column grid, clockwise from the bottom middle; the centre fills the
  //: middle column between the top and bottom rows.
  const SLOTS = {
    5: [[3, 2], [2, 1], [1, 1], [1, 3], [2, 3]],
    6: [[3, 2], [2, 1], [1, 1], [1, 2], [1, 3], [2, 3]],
    7: [[3, 2], [3, 1], [2, 1], [1, 1], [1, 3], [2, 3], [3, 3]],
    8: [[3, 2], [3, 1], [2, 1], [1, 1], [1, 2], [1, 3], [2, 3], [3, 3]],
    9: [[4, 2], [4, 1], [3, 1], [2, 1], [1, 1], [1, 3], [2, 3], [3, 3], [4, 3]],
    10: [[4, 2], [4, 1], [3, 1], [2, 1], [1, 1], [1, 2], [1, 3], [2, 3], [3, 3], [4, 3]],
  };

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
    const { el, fmt, short } = ctx;
    const L = (k) => (ctx.labels && ctx.labels[k]) || "";
    const b = frame.board || {};
    const hands = b.hands || {};
    const seats = ctx.data.seats && ctx.data.seats.length ? ctx.data.seats : Object.keys(hands);
    const view = ctx.perspective;
    const shift = view && seats.indexOf(view) >= 0 ? seats.indexOf(view) : 0;
    const n = seats.length;
    const many = n > 4;
    const table = el("div", "ut" + (many ? " many" : "") + " seats-" + n);
    table.setAttribute("role", "group");
    table.setAttribute("aria-label", L("table"));
    const nameOf = (code) => short((ctx.players[code] || {}).name || code || "?", 40);
    const stack = b.stack || null;

    seats.forEach((code, i) => {
      const p = ctx.players[code] || { name: code, color: "#888" };
      const cards = Array.isArray(hands[code]) ? hands[code] : [];
      const k = (i - shift + n) % n;  // clockwise from the viewer's seat
      const seat = el("div", "ut-seat");
      if (many) {
        const [r, col] = SLOTS[Math.min(n, 10)][Math.min(k, 9)] || [1, 1];
        seat.style.setProperty("--r", String(r));
        seat.style.setProperty("--c", String(col));
        seat.style.setProperty("--k", String(k));
      } else {
        seat.classList.add("pos-" + ((POS[n] || POS[4])[k] || "bottom"));
      }
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
      if (ctx.data.stacking && stack && stack.answer === code) {
        const sb = el("span", "ut-badge stack", "+" + stack.total);
        sb.title = L("stack");
        name.appendChild(sb);
      }
      if (b.must_play === code) name.appendChild(el("span", "ut-badge must", L("must_play")));
      seat.appendChild(name);
      const hidden = view && view !== code;
      const pts = points(cards);  // English: "1 card", "1 pt" (one form in Japanese)
      seat.appendChild(el("div", "ut-meta", cards.length + " " + L(cards.length === 1 ? "card" : "cards") +
        (hidden ? "" : " · " + pts + " " + L(pts === 1 ? "point" : "points"))));
      if (frame.attempt && frame.actor === code) {
        const a = el("div", "ut-attempt");
        a.appendChild(card(el, frame.attempt, L, "crossed"));
        if (frame.attempt_pair) a.appendChild(card(el, frame.attempt_pair, L, "crossed"));
        a.appendChild(el("span", null, L("refused")));
        seat.appendChild(a);
      }
      const hand = el("div", "ut-hand");
      const gained = multiset((frame.gained || {})[code]);
      const kind = frame.event === "penalty" ? "penalty" : "gained";
      // the cards the player to act may play, by the profile's rules (frame.board.playable: indexes into the hand)
      const can = b.to_act === code && Array.isArray(b.playable) ? new Set(b.playable) : null;
      cards.forEach((c, i) => {
        if (hidden) { hand.appendChild(el("span", "kc back")); return; }
        let extra = "";
        if (gained[c]) { gained[c] -= 1; extra = kind; }
        if (can && can.has(i)) extra += (extra ? " " : "") + "playable";
        const e = card(el, c, L, extra);
        if (can && can.has(i)) { e.title += " · " + L("playable"); e.setAttribute("aria-label", e.title); }
        hand.appendChild(e);
      });
      if (can && !hidden) {
        const m = seat.querySelector(".ut-meta");
        if (m) m.appendChild(el("span", "ut-can", " · " + fmt(L("playable_n"), { n: can.size })));
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
    if (last.back) { play.appendChild(card(el, last.back, L, "crossed")); play.appendChild(el("span", "arrow", "→")); }
    else if (last.prev) { play.appendChild(card(el, last.prev, L, "")); play.appendChild(el("span", "arrow", "→")); }
    if (last.pair) {  // a pair play: both cards, the second laid on the first
      const pair = el("span", "ut-pair");
      pair.setAttribute("role", "group");
      pair.setAttribute("aria-label", L("pair"));
      pair.append(card(el, last.pair, L, "big"), card(el, b.top, L, "big second"));
      play.appendChild(pair);
    } else {
      play.appendChild(card(el, b.top, L, "big"));
    }
    center.appendChild(play);
    if (last.pair) center.appendChild(el("div", "ut-tag", L("pair")));
    else if (last.single_of_pair) center.appendChild(el("div", "ut-tag warn", L("pair_single")));
    if (last.back) center.appendChild(el("div", "ut-by", fmt(L("taken_back"), { who: nameOf(last.by) })));
    else if (last.by) {
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
    if (ctx.data.stacking && stack) {  // JUA: the draw stack, card by card, and who must answer it
      const faces = (stack.cards || []).map((c) => FACE[parts(c)[1]] || "?");
      const text = faces.length >= 2 ? faces.join(" ") + " = " + stack.total : "+" + stack.total;
      pills.appendChild(el("span", "ut-pill pending ut-stack", L("stack") + " " + text));
    } else if (b.pending) pills.appendChild(el("span", "ut-pill pending", L("must_draw") + " +" + b.pending));
    else if (b.owes_draw) pills.appendChild(el("span", "ut-pill pending", L("owes_draw")));
    center.appendChild(pills);
    if (ctx.data.stacking && stack && stack.answer) {
      const wd4 = (stack.cards || []).some((c) => parts(c)[1] === "wild_draw_4");
      center.appendChild(el("div", "ut-answer", fmt(L(wd4 ? "stack_answer_4" : "stack_answer_2"), { who: nameOf(stack.answer), n: stack.total })));
    }
    if (many) center.style.setProperty("--span", String(SLOTS[Math.min(n, 10)][0][0] - 2));
    table.appendChild(center);
    const notes = note(frame, ctx, L, nameOf);
    if (!notes) return table;
    const wrap = el("div", "ut-wrap");
    wrap.append(notes, table);
    return wrap;
  };

  /** A challenge's outcome, or the hand shown to the challenger only, as a strip above the table (null: none). */
  function note(frame, ctx, L, nameOf) {
    const { el, fmt } = ctx;
    const ch = frame.challenge;
    if (ch) {
      const box = el("div", "ut-note challenge" + (ch.made ? (ch.success ? " won" : " lost") : ""));
      if (!ch.made) { box.appendChild(el("div", "ut-note-title", fmt(L("challenge_declined"), { who: nameOf(ch.by) }))); return box; }
      box.appendChild(el("div", "ut-note-title", fmt(L("challenge_by"), { who: nameOf(ch.by), target: nameOf(ch.target) })));
      box.appendChild(el("div", "ut-verdict", L(ch.success ? "challenge_won" : "challenge_lost")));
      const text = ch.success ? fmt(L(ch.replays ? "challenge_back" : "challenge_back_only"), { who: nameOf(ch.target) })
        : fmt(L("challenge_drew"), { who: nameOf(ch.drew || ch.by), n: ch.n });
      box.appendChild(el("div", "ut-outcome", text));
      return box;
    }
    const sh = frame.shown;
    if (sh) {
      const box = el("div", "ut-note shown");
      box.appendChild(el("div", "ut-note-title", fmt(L("shown_to"), { who: nameOf(sh.player), to: nameOf(sh.to) })));
      const view = ctx.perspective;
      const hidden = view && view !== sh.to && view !== sh.player;
      const hand = el("div", "ut-hand");
      for (const c of sh.cards || []) hand.appendChild(hidden ? el("span", "kc back") : card(el, c, L, ""));
      box.appendChild(hand);
      if (hidden) box.appendChild(el("div", "ut-meta", fmt(L("shown_hidden"), { to: nameOf(sh.to) })));
      return box;
    }
    return null;
  }
})();

/* The UNO graph: cards in hand per player over the round, or their points as the profile scores them. */
KifuReplayer.series["algori-uno"] = {
  modes: [["graph", "graph_cards"], ["graph_points", "graph_pts"]],
  values(frame, mode, data) {
    const b = frame.board || {};
    return (data.players || []).map((p) => {
      if (mode === 1) { const v = (b.points || {})[p.code]; return typeof v === "number" ? v : null; }
      const h = (b.hands || {})[p.code];
      return Array.isArray(h) ? h.length : null;
    });
  },
};
