#!/usr/bin/env node
// A small Toadstool client in Node.js, written only from proto/toadstool/v1/*.proto: it joins (or creates)
// a table, plays it on one Play stream with its seat token (updates in, acts in-band), and answers every
// turn with a random legal action until the game ends. It knows no game rules: each update lists the legal actions with stable ids, and that is all
// a client needs. See docs/custom-clients.md for the walk-through.
//
//   node client.js --server 127.0.0.1:50051 --table k7m2qx [--name Ada] [--seat 2]
//   node client.js --server 127.0.0.1:50051 --create uno --players 2 --bots 1 [--seed 7] [--option target=100]
//   add --tls-ca cert.pem for a server started with --tls-cert/--tls-key.
//
// Exit status: 0 when the game finished (the outcome is printed), 1 on an error, 2 on bad arguments.
"use strict";

const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");
const { parseArgs } = require("node:util");

const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTO_ROOT = path.resolve(__dirname, "..", "..", "proto");
const SEAT_TOKEN_KEY = "x-seat-token";
const HOST_TOKEN_KEY = "x-host-token";
const CALL_TIMEOUT_MS = 10000;

function usage(message) {
  if (message) console.error(`client.js: ${message}`);
  console.error(
    "usage: node client.js --server HOST:PORT (--table ID | --create GAME --players N [--bots K])\n" +
      "                      [--name NAME] [--seat N] [--seed N] [--option NAME=VALUE]... [--tls-ca PEM]\n" +
      "                      [--timeout SECONDS]",
  );
  process.exit(2);
}

function parseCommandLine(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        server: { type: "string", default: process.env.TOADSTOOL_SERVER || "127.0.0.1:50051" },
        table: { type: "string" },
        create: { type: "string" },
        players: { type: "string" },
        bots: { type: "string", default: "0" },
        seed: { type: "string" },
        option: { type: "string", multiple: true, default: [] },
        name: { type: "string", default: "Node" },
        seat: { type: "string" },
        "tls-ca": { type: "string", default: process.env.TOADSTOOL_TLS_CA || "" },
        timeout: { type: "string", default: "600" },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
    }).values;
  } catch (error) {
    usage(error.message);
  }
  if (parsed.help) usage();
  if (!parsed.table === !parsed.create) usage("give exactly one of --table ID or --create GAME");
  if (parsed.create && !/^\d+$/.test(parsed.players || "")) usage("--create needs --players N");
  for (const pair of parsed.option) if (!pair.includes("=")) usage(`--option takes NAME=VALUE, not ${pair}`);
  return parsed;
}

// Load the contract at run time: no generated code, the .proto files are the single source of truth.
function loadService() {
  const definition = protoLoader.loadSync(path.join(PROTO_ROOT, "toadstool", "v1", "service.proto"), {
    includeDirs: [PROTO_ROOT],
    keepCase: true, // field names exactly as in the .proto files (table_id, legal_actions, ...)
    longs: String, // uint64 versions arrive as decimal strings and are sent back unchanged
    enums: String, // enum values arrive as their names, e.g. "TABLE_STATUS_FINISHED"
    defaults: true, // unset scalars and repeated fields read as 0, "" and []
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).toadstool.v1.ToadstoolService;
}

function connect(Service, server, tlsCa) {
  const credentials = tlsCa
    ? grpc.credentials.createSsl(fs.readFileSync(tlsCa))
    : grpc.credentials.createInsecure();
  return new Service(server, credentials);
}

function deadline() {
  return new Date(Date.now() + CALL_TIMEOUT_MS);
}

// A unary call as a promise.
function call(client, method, request, metadata = new grpc.Metadata()) {
  return new Promise((resolve, reject) => {
    client[method](request, metadata, { deadline: deadline() }, (error, response) =>
      error ? reject(error) : resolve(response),
    );
  });
}

function withToken(key, token) {
  const metadata = new grpc.Metadata();
  metadata.set(key, token);
  return metadata;
}

function statusName(code) {
  return Object.keys(grpc.status).find((name) => grpc.status[name] === code) || String(code);
}

// Names come from other players over the network: never print control characters from them.
function clean(text) {
  return String(text).replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/g, "");
}

async function takeSeat(client, args) {
  let tableId = args.table;
  if (args.create) {
    const request = {
      game: args.create,
      players: Number(args.players),
      bots: Number(args.bots),
      options: Object.fromEntries(args.option.map((pair) => pair.split(/=(.*)/s).slice(0, 2))),
      name: `${args.name}'s table`,
    };
    if (args.seed !== undefined) request.seed = args.seed;
    const created = await call(client, "CreateTable", request);
    tableId = created.table.table_id;
    console.log(`created table ${tableId} (${clean(created.table.game)})`);
  }
  const join = { table_id: tableId, name: args.name };
  if (args.seat !== undefined) join.seat = Number(args.seat);
  const joined = await call(client, "JoinTable", join);
  console.log(`joined table ${tableId} in seat ${joined.seat}`);
  return { tableId, seat: joined.seat, token: joined.seat_token };
}

// Follow the table until it finishes, acting whenever an update offers this seat legal actions.
// Updates are full snapshots, so only the latest matters: a turn is always decided on the newest one.
function play(client, { tableId, seat, token }, limitSeconds) {
  return new Promise((resolve, reject) => {
    let latest = null; // newest update seen
    let actedOn = null; // version of the update we last sent an action for
    let acting = false;
    let stream = null;
    let finished = false;
    let retries = 0;
    let actions = 0;
    let throttled = 0; // consecutive refusals worth retrying (flood guard, connection down)

    const timer = setTimeout(() => finish(new Error(`the game did not end within ${limitSeconds} s`)), limitSeconds * 1000);

    function finish(error, result) {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (stream) stream.cancel();
      error ? reject(error) : resolve(result);
    }

    async function maybeAct() {
      if (acting || finished || !latest) return;
      const update = latest;
      if (update.status !== "TABLE_STATUS_PLAYING" || update.legal_actions.length === 0) return;
      if (actedOn === update.version) return; // already answered this version; wait for the next update
      const choice = update.legal_actions[crypto.randomInt(update.legal_actions.length)];
      acting = true;
      actedOn = update.version;
      try {
        const request = { table_id: tableId, version: update.version, request_id: crypto.randomUUID(), action_id: choice.id };
        await actOnStream(request);
        actions += 1;
        throttled = 0;
      } catch (error) {
        // CANCELLED too: we never cancel an Act, so it was the server going down mid-call.
        const tryAgain = ["RESOURCE_EXHAUSTED", "UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED"].map((n) => grpc.status[n]);
        if (tryAgain.includes(error.code) && throttled < 100) {
          // Too many actions per second for one seat (the server's flood guard), or the connection is down:
          // wait a moment and decide again on whatever update is newest then. Acting twice is impossible:
          // if the first request did land, the version moved on and the second is refused as stale.
          throttled += 1;
          actedOn = null;
          acting = false;
          setTimeout(maybeAct, 100 + crypto.randomInt(100));
          return;
        }
        // Races are normal: a bot or a clock moved the table on (ABORTED: stale version), or the turn or the
        // game ended in between (FAILED_PRECONDITION). The newer update is on its way; act on that one.
        if (error.code !== grpc.status.ABORTED && error.code !== grpc.status.FAILED_PRECONDITION) {
          finish(new Error(`Act refused: ${statusName(error.code)}: ${error.details}`));
          return;
        }
      } finally {
        acting = false;
      }
      if (latest !== update) maybeAct();
    }

    // Watch again after a lost connection or a server restart, with jittered exponential backoff. The seat
    // token is all it takes to resume, and since_version makes the server send exactly what we missed.
    function reconnect(why) {
      if (retries >= 10) {
        finish(new Error(`gave up reconnecting: ${why}`));
        return;
      }
      const delay = Math.min(10000, 250 * 2 ** retries) * (0.5 + Math.random() / 2);
      retries += 1;
      console.log(`connection lost (${clean(why)}); retrying in ${Math.round(delay)} ms`);
      setTimeout(watch, delay);
    }

    // An act rides the seat's Play stream and is answered on it (`acted`, by request id) with the code and
    // message a unary Act would have got; with no open stream it is sent as a unary Act instead.
    const answers = new Map(); // request_id -> { resolve, reject }
    function actOnStream(request) {
      if (!stream || streamEnded) return call(client, "Act", request, withToken(SEAT_TOKEN_KEY, token));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          answers.delete(request.request_id);
          reject(Object.assign(new Error("no answer to the act"), { code: grpc.status.DEADLINE_EXCEEDED }));
        }, CALL_TIMEOUT_MS);
        answers.set(request.request_id, {
          resolve: (value) => (clearTimeout(timer), resolve(value)),
          reject: (error) => (clearTimeout(timer), reject(error)),
        });
        stream.write({ act: request });
      });
    }
    let streamEnded = true;

    function watch() {
      if (finished) return;
      const request = { table_id: tableId };
      if (latest) request.since_version = latest.version;
      // Play: this seat's Watch and its Acts on one stream (a unary Act costs the server far more).
      const current = client.Play(withToken(SEAT_TOKEN_KEY, token));
      current.write({ watch: request });
      stream = current;
      streamEnded = false;
      current.on("data", (response) => {
        retries = 0;
        if (response.kind === "acted") {
          const { request_id: id, code, message, response: answer } = response.acted;
          const waiting = answers.get(id);
          answers.delete(id);
          if (waiting) code === 0 ? waiting.resolve(answer) : waiting.reject(Object.assign(new Error(message), { code, details: message }));
          return;
        }
        const update = response.update;
        for (const event of update.events) console.log(`  [v${event.version}] ${clean(event.text)}`);
        try {
          const state = publicState(update, update.view);
          if (state) console.log(`  state: ${state}`);
        } catch (error) {
          finish(error);
          return;
        }
        latest = update;
        if (update.status === "TABLE_STATUS_FINISHED") {
          finish(null, { update, actions });
          return;
        }
        maybeAct();
      });
      // Every call ends with exactly one "status"; "error" repeats a non-OK one (and must be listened to).
      current.on("error", () => {});
      current.on("status", (status) => {
        if (current === stream) streamEnded = true;
        for (const waiting of answers.values()) {
          waiting.reject(Object.assign(new Error("the stream ended"), { code: grpc.status.UNAVAILABLE }));
        }
        answers.clear();
        if (finished || current !== stream) return;
        if (status.code === grpc.status.OK || status.code === grpc.status.UNAVAILABLE) {
          reconnect(status.details || "the server ended the stream");
          return;
        }
        finish(new Error(`Watch failed: ${statusName(status.code)}: ${status.details}`));
      });
    }

    watch();
  });
}

// What every player may see of the table, read from the view: each game's main public state in one line.
// Each reader also checks that what it shows is there, so a view that arrives without its public part (a
// decoder that drops a field) fails loudly instead of printing blanks.
function seatName(update, seat) {
  const found = update.seats.find((s) => s.index === seat);
  return found ? clean(found.name) || `seat ${seat}` : `seat ${seat}`;
}

function need(condition, what) {
  if (!condition) throw new Error(`the view is missing ${what}`);
}

function unoCard(card) {
  const colour = card.color.replace("UNO_COLOR_", "").toLowerCase();
  const kind = card.kind.replace("UNO_KIND_", "").toLowerCase();
  return card.number !== null && card.number !== undefined && kind === "number" ? `${colour} ${card.number}` : `${colour} ${kind}`;
}

const PUBLIC_STATE = {
  uno(update, view) {
    need(view.top_card, "UNO's top card");
    need(view.hand_counts.length === update.seats.length, "UNO's hand counts");
    const hands = view.hand_counts.map((n, seat) => `${seatName(update, seat)} ${n}`).join(", ");
    return `top card ${unoCard(view.top_card)}, colour ${view.color.replace("UNO_COLOR_", "").toLowerCase()}, ` +
      `draw pile ${view.draw_pile_count}; cards in hand: ${hands}`;
  },
  powerup(update, view) {
    need(view.seats.length === update.seats.length, "Power Up's seats");
    const seats = view.seats.map((s) => {
      const card = s.level;
      const level = !s.has_level ? "no level" : !s.face_up || !card ? "level face down" : card.castle ? "a castle" : `level ${card.value}`;
      return `${seatName(update, s.seat)} ${s.tokens} tokens, ${level}`;
    });
    return `round ${view.round}, supply ${view.supply}; ${seats.join("; ")}`;
  },
  levelup(update, view) {
    need(view.levels.length > 0, "Level Up!'s levels");
    need(view.seats.length === update.seats.length, "Level Up!'s seats");
    const board = view.levels
      .filter((level) => level.characters.length > 0)
      .map((level) => `L${level.level}: ${level.characters.map((c) => clean(view.character_names[c] ?? c)).join(" ")}`);
    const coins = view.seats.map((s) => `${seatName(update, s.seat)} ${s.coins} coins`);
    return `round ${view.round}; ${board.join(" | ") || "nobody placed yet"}; ${coins.join(", ")}`;
  },
  kart(update, view) {
    need(view.track && view.track.length > 0, "Kart's track");
    need(view.karts.length === update.seats.length, "Kart's karts");
    const karts = view.karts.map((k) => `${seatName(update, k.seat)} lap ${k.lap} field ${k.field} ${k.coins} coins`);
    return `${clean(view.track.title)}, ${view.laps} laps; ${karts.join("; ")}`;
  },
};

// The public state line of an update or history step's view, or "" for a game this client does not know.
function publicState(update, view) {
  const game = view && view.game;
  const reader = PUBLIC_STATE[game];
  if (!reader || update.status === "TABLE_STATUS_LOBBY") return "";
  return reader(update, view[game]);
}

// After the game: the same table resumed from an earlier version and read through its history, each view
// read like a live one (what a reconnecting client and a replay viewer see).
function resumedUpdate(client, tableId, token, sinceVersion) {
  return new Promise((resolve, reject) => {
    const stream = client.Watch({ table_id: tableId, since_version: sinceVersion }, withToken(SEAT_TOKEN_KEY, token));
    stream.on("data", (response) => {
      resolve(response.update);
      stream.cancel();
    });
    stream.on("error", (error) => {
      if (error.code !== grpc.status.CANCELLED) reject(error);
    });
  });
}

function history(client, tableId, token) {
  return new Promise((resolve, reject) => {
    const steps = [];
    const stream = client.GetHistory({ table_id: tableId }, withToken(SEAT_TOKEN_KEY, token), { deadline: deadline() });
    stream.on("data", (response) => steps.push(response.step));
    stream.on("error", reject);
    stream.on("end", () => resolve(steps));
  });
}

async function checkResumeAndHistory(client, { tableId, token }, final) {
  const since = String(Math.max(0, Number(final.version) - 2));
  const resumed = await resumedUpdate(client, tableId, token, since);
  console.log(`resumed since ${since}: ${publicState(resumed, resumed.view)}`);
  const steps = await history(client, tableId, token);
  for (const step of steps.slice(1)) publicState(final, step.view);
  console.log(`history: ${steps.length} steps, each view read whole`);
}

function describeOutcome(update, seat) {
  const outcome = update.outcome || { winners: [], scores: [], summary: "" };
  const names = new Map(update.seats.map((s) => [s.index, clean(s.name) || `seat ${s.index}`]));
  const winners = outcome.winners.map((w) => names.get(w) ?? `seat ${w}`);
  const won = outcome.winners.includes(seat);
  return [
    `game over: ${clean(outcome.summary) || "finished"}`,
    `winners: ${winners.join(", ") || "none"}${won ? " (that's us!)" : ""}`,
    `scores: ${outcome.scores.join(" ")}`,
  ].join("\n");
}

async function main() {
  const args = parseCommandLine(process.argv.slice(2));
  const Service = loadService();
  const client = connect(Service, args.server, args["tls-ca"]);
  try {
    const seat = await takeSeat(client, args);
    const { update, actions } = await play(client, seat, Number(args.timeout));
    console.log(describeOutcome(update, seat.seat));
    await checkResumeAndHistory(client, seat, update);
    console.log(`finished at version ${update.version} after ${actions} actions of ours`);
    return 0;
  } catch (error) {
    const status = error.code !== undefined ? ` [${statusName(error.code)}]` : "";
    console.error(`client.js: ${error.details || error.message}${status}`);
    return 1;
  } finally {
    client.close();
  }
}

main().then((code) => {
  process.exitCode = code;
});
