// A contestant's bot in JavaScript, as the ALGORI kit's clients are written: socket.io-client 2.x.
//
//   node bot.js URL ROOM NAME [websocket|polling]
//
// It joins ROOM and plays an honest, simple game: the first card it may play, else a draw and the
// drawn card when it can be played; a wild draw 4 only when nothing else can be played; every other
// wild draw 4 against it challenged; a colour when asked (color-of-wild).  "polling" connects by
// long-polling, then upgrades to a websocket (socket.io-client's default); "websocket" connects by
// websocket only.  When the match ends (finish-game, then the dealer closes the socket) it prints
// one JSON line: its code, the transports it used, how many actions it sent, every answer that was
// an error, the latency of each action (emit -> acknowledgement, ms).  Exit status 0 when the match
// finished and no answer was an error.
'use strict';
const io = require('socket.io-client');

const [url, room, name, transport = 'websocket'] = process.argv.slice(2);
const COLORS = ['red', 'yellow', 'green', 'blue'];
const ACTIONS = new Set(['play-card', 'draw-card', 'play-draw-card', 'challenge', 'color-of-wild']);

const socket = io.connect(url, {
  transports: transport === 'polling' ? ['polling', 'websocket'] : ['websocket'],
  forceNew: true,
  reconnection: false,
});
const report = { name, code: '', transports: [], actions: 0, errors: [], finished: false, latency_ms: [] };
let challenges = 0;

socket.io.engine.on('open', () => report.transports.push(socket.io.engine.transport.name));
socket.io.engine.on('upgrade', (t) => report.transports.push(t.name));

function send(event, data, then) {
  const t0 = process.hrtime.bigint();
  if (ACTIONS.has(event)) report.actions += 1;
  socket.emit(event, data, (err, res) => {
    if (ACTIONS.has(event)) report.latency_ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (err !== null) report.errors.push({ event, data, err });
    else if (then) then(res);
  });
}

function playable(card, top) {
  if (card.color === 'black' || card.color === 'white' || card.color === top.color) return true;
  if (card.number !== undefined && card.number === top.number) return true;
  return card.special !== undefined && card.special === top.special;
}

function withColour(play, card, n) {
  if (card.special === 'wild' || card.special === 'wild_draw_4') play.color_of_wild = COLORS[n % 4];
  return play;
}

socket.on('connect', () => {
  send('join-room', { room_name: room, player: name }, (res) => { report.code = res.your_id; });
});

socket.on('next-player', (data) => {
  const hand = data.card_of_player;
  const top = data.card_before;
  if (data.must_call_draw_card) {
    if (data.draw_reason === 'wild_draw_4' && challenges++ % 2 === 0) {
      send('challenge', { is_challenge: true });
    } else {
      send('draw-card', {});
    }
    return;
  }
  // a wild draw 4 only when nothing else can be played: then it holds no card of the colour on the table
  const card = hand.find((c) => playable(c, top) && c.special !== 'wild_draw_4')
    || hand.find((c) => c.special === 'wild_draw_4');
  if (card) {
    send('play-card', withColour({ card_play: card, yell_uno: hand.length === 2 }, card, data.number_turn_play));
    return;
  }
  send('draw-card', {}, (res) => {
    if (res.can_play_draw_card) {  // nothing in the hand could be played, so the drawn card may be, whatever it is
      send('play-draw-card', withColour({ is_play_card: true, yell_uno: hand.length === 1 }, res.draw_card[0],
                                        data.number_turn_play));
    }
  });
});

socket.on('color-of-wild', () => send('color-of-wild', { color_of_wild: COLORS[report.actions % 4] }));
socket.on('finish-game', () => { report.finished = true; });
socket.on('disconnect', () => {
  process.stdout.write(JSON.stringify(report) + '\n', () =>
    process.exit(report.finished && report.errors.length === 0 ? 0 : 1));
});
socket.on('connect_error', (err) => {
  process.stderr.write(`cannot connect to ${url}: ${err}\n`);
  process.exit(2);
});
