// One load-generating process of bench/peers.py against the boardgame.io server: boardgame.io's own client
// (boardgame.io/client with the SocketIO multiplayer transport), one socket.io connection per seat, the same
// shapes and counts as a worker of bench/load.py's "people acting" mode.
//
// Why a copy of that worker, in Node: the load must be the peer's own client, and the figures must be
// counted the same way on both sides. So this keeps bench/load.py's protocol and rules: set up (create the
// matches through the Lobby API, join every seat, open one connection per seat and wait for its first
// view), print READY, read one JSON order line on stdin ({paced_windows, windows, window, start_at} with
// start_at in Unix seconds), run a paced phase (each table acts once a second at a spread offset:
// act-to-view latency from sending the move to each of the table's 4 clients holding the new state) and a
// saturated one (a table acts as soon as its acting seat holds the newest view), then print one JSON line
// with the per-window counts of bench/load.py's Window.as_dict.
//
// The seat to act chooses from its own view only: a random playable card of its hand, else it draws.
// boardgame.io sends no acknowledgement of a move: a move counts as accepted once a client sees its state,
// and as refused if no client has seen it REFUSE_AFTER seconds after it was sent.
//
// Usage: node load.js --server http://127.0.0.1:PORT --tables N --seed S
'use strict';

const readline = require('readline');
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { UnoLite, playable, COLORS } = require('./uno');

const SEATS = 4;
const GAP = 0.5; // seconds between the phases and after the end, as bench/load.py's GAP
const REFUSE_AFTER = 10; // seconds: bench/load.py's Act timeout

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

const server = option('--server', 'http://127.0.0.1:8000');
const count = Number(option('--tables', '1'));
let seed = Number(option('--seed', '1'));

// A small seeded generator (mulberry32), so that runs with the same seed choose alike.
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const clock = () => performance.now() / 1000;

function percentile(sorted, fraction) {
  if (!sorted.length) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.round(fraction * sorted.length + 0.5) - 1));
  return sorted[index];
}

class Window {
  constructor() {
    this.accepted = 0;
    this.refused = 0;
    this.messages = 0;
    this.bytes = 0;
    this.latencies = [];
  }

  asDict() {
    const ordered = [...this.latencies].sort((a, b) => a - b);
    const step = Math.max(1, Math.floor(ordered.length / 2000));
    return {
      accepted: this.accepted,
      refused: this.refused,
      messages: this.messages,
      bytes: this.bytes,
      latency_p50: percentile(ordered, 0.5),
      latency_p99: percentile(ordered, 0.99),
      latency_count: ordered.length,
      latencies_sample: ordered.filter((_, i) => i % step === 0),
    };
  }
}

let schedule = null;
let paced = [];
let saturated = [];

function windowAt(when) {
  const s = schedule;
  if (!s) return null;
  if (s.paced <= when && when < s.pacedEnd) {
    return paced[Math.min(Math.floor((when - s.paced) / s.window), paced.length - 1)];
  }
  if (s.saturated <= when && when < s.saturatedEnd) {
    return saturated[Math.min(Math.floor((when - s.saturated) / s.window), saturated.length - 1)];
  }
  return null;
}

async function lobby(path, body) {
  // A connection the busy server never took (fetch's TypeError, before any answer) is tried again, a few
  // times: on a loaded machine the lobby's listen backlog overflows during setup. An answer is never retried.
  for (let attempt = 1; ; attempt++) {
    let response;
    try {
      response = await fetch(`${server}/games/${UnoLite.name}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30000),
      });
    } catch (error) {
      if (!(error instanceof TypeError) || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      continue;
    }
    if (!response.ok) throw new Error(`lobby ${path}: HTTP ${response.status}`);
    return response.json();
  }
}

/** A small semaphore: at most `n` of the wrapped calls at once. */
function gate(n) {
  let free = n;
  const waiting = [];
  return async (fn) => {
    if (free > 0) free--;
    else await new Promise((resolve) => waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

class LoadTable {
  constructor(matchID, credentials) {
    this.matchID = matchID;
    this.credentials = credentials;
    this.clients = [];
    this.views = Array.from({ length: SEATS }, () => ({ version: -1, state: null }));
    this.pending = null; // {sent, version, seats: Set, acceptedCounted}
    this.wake = null;
  }

  changed() {
    if (this.wake) {
      const wake = this.wake;
      this.wake = null;
      wake();
    }
  }

  /** The seat to act and its move, if that seat holds the newest view and no move is in flight. */
  actor() {
    if (this.pending !== null) return null;
    const newest = Math.max(...this.views.map((v) => v.version));
    for (let seat = 0; seat < SEATS; seat++) {
      const view = this.views[seat];
      const state = view.state;
      if (view.version !== newest || !state || state.ctx.currentPlayer !== String(seat)) continue;
      const hand = state.G.hands[String(seat)];
      const plays = [];
      hand.forEach((card, index) => {
        if (playable(card, state.G)) plays.push(index);
      });
      if (!plays.length) return { seat, move: 'drawCard', args: [] };
      const index = plays[Math.floor(random() * plays.length)];
      const args = hand[index].color === 'wild' ? [index, COLORS[Math.floor(random() * 4)]] : [index];
      return { seat, move: 'playCard', args };
    }
    return null;
  }

  act(found) {
    const version = this.views[found.seat].version;
    const sent = clock();
    this.pending = { sent, version: version + 1, seats: new Set([0, 1, 2, 3]), seen: false };
    this.clients[found.seat].moves[found.move](...found.args);
    const pending = this.pending;
    setTimeout(() => {
      if (this.pending === pending && !pending.seen) {
        this.pending = null;
        const window = windowAt(sent);
        if (window) window.refused++;
        this.changed();
      }
    }, REFUSE_AFTER * 1000).unref();
  }

  /** A seat's client holds a new state: count it, time the move in flight, wake the table's player. */
  onView(seat, state, now) {
    const view = this.views[seat];
    if (state._stateID === view.version) return; // the client's own re-render, not a message
    view.version = state._stateID;
    view.state = state;
    const window = windowAt(now);
    if (window) window.messages++;
    const pending = this.pending;
    if (pending && state._stateID >= pending.version && pending.seats.has(seat)) {
      if (!pending.seen) {
        pending.seen = true;
        const sentIn = windowAt(pending.sent);
        if (sentIn) sentIn.accepted++;
      }
      pending.seats.delete(seat);
      const sentIn = windowAt(pending.sent);
      if (sentIn) sentIn.latencies.push(now - pending.sent);
      if (!pending.seats.size) this.pending = null;
    }
    this.changed();
  }
}

let tables = [];

async function setup() {
  const creating = gate(32);
  tables = await Promise.all(
    Array.from({ length: count }, () =>
      creating(async () => {
        const { matchID } = await lobby('/create', { numPlayers: SEATS });
        const credentials = [];
        for (let seat = 0; seat < SEATS; seat++) {
          const joined = await lobby(`/${matchID}/join`, { playerID: String(seat), playerName: `Load ${seat}` });
          credentials.push(joined.playerCredentials);
        }
        return new LoadTable(matchID, credentials);
      }),
    ),
  );
  // Connect in batches, as bench/load.py does (a thousand simultaneous connects overflow the listen backlog).
  const connecting = gate(64);
  const opened = [];
  for (const table of tables) {
    for (let seat = 0; seat < SEATS; seat++) {
      opened.push(connecting(() => connect(table, seat)));
    }
  }
  await Promise.all(opened);
}

function connect(table, seat) {
  return new Promise((resolve, reject) => {
    const client = Client({
      game: UnoLite,
      numPlayers: SEATS,
      matchID: table.matchID,
      playerID: String(seat),
      credentials: table.credentials[seat],
      debug: false,
      // One connection per seat (forceNew), over WebSocket from the start (no long-polling upgrade).
      multiplayer: SocketIO({ server, socketOpts: { forceNew: true, transports: ['websocket'] } }),
    });
    table.clients[seat] = client;
    let first = true;
    const timer = setTimeout(() => reject(new Error('no first view in 60 s')), 60000);
    client.subscribe((state) => {
      if (!state || state._stateID === undefined || !state.G || !state.G.hands) return;
      table.onView(seat, state, clock());
      if (first) {
        first = false;
        const leaked = hidden(state, seat);
        if (leaked) reject(new Error(`seat ${seat} was sent ${leaked}: playerView must hide it`));
        clearTimeout(timer);
        countBytes(client);
        resolve();
      }
    });
    client.start();
  });
}

/** What a seat's view shows that it must not (another hand, the deck), or null: checked on every first view. */
function hidden(state, seat) {
  if (typeof state.G.deck !== 'number') return 'the deck';
  for (const [other, cards] of Object.entries(state.G.hands)) {
    if (other !== String(seat) && typeof cards !== 'number') return `the hand of seat ${other}`;
  }
  return null;
}

/** Count the bytes of every socket.io message the seat's connection receives (its Engine.IO data). */
function countBytes(client) {
  const engine = client.transport.socket.io.engine;
  engine.on('data', (data) => {
    const window = windowAt(clock());
    if (window) window.bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
  });
}

const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, Math.max(0, seconds) * 1000));

async function play(table, offset) {
  const s = schedule;
  // Paced: one move a second, at this table's offset.
  let tick = s.paced + offset;
  while (tick < s.pacedEnd) {
    await sleep(tick - clock());
    const found = table.actor();
    if (found) table.act(found);
    tick += 1;
  }
  // Saturated: move whenever the acting seat holds the newest view.
  await sleep(s.saturated - clock());
  while (clock() < s.saturatedEnd) {
    const found = table.actor();
    if (found) {
      table.act(found);
      continue;
    }
    await new Promise((resolve) => {
      table.wake = resolve;
      setTimeout(resolve, Math.max(10, (s.saturatedEnd - clock()) * 1000)).unref();
    });
  }
}

async function run(order) {
  const startIn = order.start_at - Date.now() / 1000;
  const start = clock() + startIn;
  const saturatedAt = start + order.paced_windows * order.window + GAP;
  schedule = {
    window: order.window,
    paced: start,
    pacedEnd: start + order.paced_windows * order.window,
    saturated: saturatedAt,
    saturatedEnd: saturatedAt + order.windows * order.window,
  };
  paced = Array.from({ length: order.paced_windows }, () => new Window());
  saturated = Array.from({ length: order.windows }, () => new Window());
  await Promise.all(tables.map((table) => play(table, random())));
  await sleep(schedule.saturatedEnd - clock() + GAP);
  return { paced: paced.map((w) => w.asDict()), saturated: saturated.map((w) => w.asDict()) };
}

async function main() {
  await setup();
  process.stdout.write('READY\n');
  const lines = readline.createInterface({ input: process.stdin });
  const line = await new Promise((resolve) => lines.once('line', resolve));
  lines.close();
  const result = await run(JSON.parse(line));
  for (const table of tables) for (const client of table.clients) client.stop();
  // Exit only once the line is out: process.exit drops what a pipe has not yet taken (it cuts at 64 KiB).
  process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(0));
}

main().catch((error) => {
  process.stderr.write(`bench/peers/load.js: ${error.stack || error}\n`);
  process.exit(1);
});
