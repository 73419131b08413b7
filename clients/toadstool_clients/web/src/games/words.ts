// Event lines in the viewer's own words: "You place Mario on level 2" where the server wrote "Ann places
// Mario on level 2" for everybody, so the log never calls the viewer both "Ann" and "you" (the server
// says "you" in the events only the viewer sees).
//
// A line-by-line port of clients/toadstool_clients/terminal/events.py (its docstring states the rules:
// the viewer's name as the subject reads "You" with the verb in the second person, elsewhere "you"/"your";
// a name that could mean something else, another seat's or one the game uses, is only rewritten at the
// start of an event whose seat is the viewer's). Presentation only.

import type { Update } from "../gen/toadstool/v1/table_pb";
import { seatName } from "../names";
import { KART_ITEM_NAMES } from "./kart";
import { language } from "../i18n";

/** Verbs of the third person that are not made by dropping an "s". */
const IRREGULAR: Record<string, string> = { is: "are", has: "have", was: "were", does: "do", goes: "go" };
/** Words after a subject that are never its verb ("Ann's", a count). */
const NOT_VERBS = new Set(["s", "its", "this", "plus", "less", "yes", "us"]);
/** Words right after a name that make it the subject though they are no verb of the third person. */
const PAST_OR_MODAL = new Set([
  "will", "can", "cannot", "did", "drew", "went", "kept", "caught", "chose", "won", "saw", "had", "got", "gave",
  "took", "threw", "ran", "lost", "paid", "put", "hit", "let", "must", "may",
]);
/** Names the games themselves use (cards, items), besides the view's characters and cards. */
const GAME_WORDS = [
  ...Object.values(KART_ITEM_NAMES),
  "Thwomp Vote", "1-Up Mushroom", "Warp Pipe", "Goomba Stomp", "Boo", "Mega POW", "Golden Mushroom",
  "Skip", "Reverse", "Draw Two", "Wild", "Wild Draw Four", "Wild Customizable", "Super Star",
];
const CLAUSE_END = /[:;,.!?]/g;

function baseForm(word: string): string | null {
  if (word in IRREGULAR) return IRREGULAR[word];
  if (!/^[a-z]{2,}s$/.test(word) || NOT_VERBS.has(word) || /(ss|us|is)$/.test(word)) return null;
  if (word.endsWith("ies") && word.length > 4) return word.slice(0, -3) + "y";
  if (/(sses|shes|ches|xes|zes)$/.test(word)) return word.slice(0, -2);
  return word.slice(0, -1);
}

function ambiguous(update: Update, name: string): boolean {
  const folded = name.toLowerCase();
  if (update.seats.some((s) => s.index !== update.viewerSeat && s.name.toLowerCase() === folded)) return true;
  const words: string[] = [...GAME_WORDS];
  const game = update.view?.game;
  if (game?.case === "levelup") words.push(...game.value.characterNames);
  else if (game?.case === "kart") words.push(...game.value.karts.map((k) => k.character));
  else if (game?.case === "powerup") words.push(...game.value.hand.map((c) => c.name));
  return words.some((w) => w.toLowerCase() === folded);
}

function isSubjectVerb(word: string): boolean {
  return baseForm(word) !== null || PAST_OR_MODAL.has(word) || /^[a-z]{2,}ed$/.test(word);
}

function search(pattern: RegExp, text: string, from: number): RegExpExecArray | null {
  pattern.lastIndex = from;
  return pattern.exec(text);
}

function asSubject(rest: string): string {
  const end = search(CLAUSE_END, rest, 0);
  const [clause, tail0] = end ? [rest.slice(0, end.index), rest.slice(end.index)] : [rest, ""];
  let tail = tail0;
  const lead = /^\s*(\([^)]*\)\s*)?/.exec(clause);
  const start = lead ? lead[0].length : 0;
  const head = clause.slice(0, start);
  const words = clause.slice(start).split(" ");
  if (words.length && baseForm(words[0]) !== null) words[0] = baseForm(words[0]) ?? words[0];
  for (let i = 1; i < words.length - 1; i++) {
    if (words[i] === "and") {
      const verb = baseForm(words[i + 1]);
      if (verb !== null) words[i + 1] = verb;
    }
  }
  const said = words.map((w) => (w === "their" ? "your" : w));
  const colon = /^: ([a-z]+)\b/.exec(tail);
  if (colon && baseForm(colon[1]) !== null) tail = ": " + asSubject(tail.slice(2));
  return head + said.join(" ") + tail;
}

function clauseLength(rest: string): number {
  let length = 0;
  for (;;) {
    const found = search(CLAUSE_END, rest, length);
    if (!found) return rest.length;
    const colon = /^: ([a-z]+)\b/.exec(rest.slice(found.index));
    if (!(colon && baseForm(colon[1]) !== null)) return found.index;
    length = found.index + 2;
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function rewritten(found: string, clause0: string, again: RegExp | null, atStart: boolean): string {
  let clause = clause0;
  if (again !== null) {
    const possessive = new RegExp(`${again.source}'s\\b`, "gu");
    clause = clause.replace(possessive, "your").replace(new RegExp(again.source, "gu"), "you");
  }
  if (clause.startsWith("'s ")) return (atStart ? "Your" : "your") + clause.slice(2);
  const you = atStart ? "You" : "you";
  const words = /^\s*(\([^)]*\)\s*)?([^\s,.:;!?]+)/.exec(clause);
  if (words && isSubjectVerb(words[2])) return you + asSubject(clause);
  return you + clause;
}

/** An event's text as the viewer of `update` reads it; a spectator's, or one not naming the viewer, as is. */
export function inYourWords(update: Update, event: { text: string; seat?: number }): string {
  const text = event.text;
  // The rewriting knows English grammar only: the table's socket says its events in the page's language
  // (its URL's ?lang=, socket.ts), and a German event is left as the server wrote it.
  if (update.viewerSeat === undefined || language() !== "en") return text;
  const name = seatName(update, update.viewerSeat);
  if (!name || name.toLowerCase() === "you") return text;
  const mine = event.seat !== undefined && event.seat === update.viewerSeat;
  if (ambiguous(update, name)) {
    if (mine && text.startsWith(name) && !/^[\p{L}\p{N}]/u.test(text.slice(name.length, name.length + 1))) {
      return rewritten(text.slice(0, name.length), text.slice(name.length), null, true);
    }
    return text;
  }
  // Python's \w is any letter or digit: so are these (a name may be "Zoë").
  const source = `(?<![\\p{L}\\p{N}_'])${escape(name)}(?![\\p{L}\\p{N}_])`;
  const pattern = new RegExp(source, "gu");
  const pieces: string[] = [];
  let position = 0;
  for (const match of text.matchAll(pattern)) {
    const index = match.index ?? 0;
    if (index < position) continue;
    pieces.push(text.slice(position, index));
    const before = text.slice(0, index).trimEnd();
    const atStart = !before || (/[.!?]$/.test(before) && !/\d\.$/.test(before));
    const rest = text.slice(index + match[0].length);
    const length = clauseLength(rest);
    pieces.push(rewritten(match[0], rest.slice(0, length), new RegExp(source, "u"), atStart));
    position = index + match[0].length + length;
  }
  pieces.push(text.slice(position));
  return pieces.join("");
}
