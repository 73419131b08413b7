// The end of a game in order. When the game states each seat's place (the outcome's places: Kart ranks by
// progress on the track, which its laps do not tell apart), that order; else who won, then everyone else by
// score (higher is better: points, Extra Lives; lower only in UNO's lowest_wins variant, the table's
// option), ties keeping seat order. Drawn as the table's ranking and the TV's podium; the game's own summary
// (the outcome's text) and its account of the game (the outcome's details: UNO's hands, Level Up!'s rounds,
// Power Up's eliminations, Kart's finishing order) go beside it.

import type { Outcome, Update } from "./gen/toadstool/v1/table_pb";
import { SeatKind } from "./gen/toadstool/v1/table_pb";
import { h } from "./dom";
import { scoreWords, seatName } from "./names";
import { t, tOrdinal } from "./i18n";

export interface Placed {
  place: number;
  seat: number;
  name: string;
  score: number | null;
  bot: boolean;
}

/** Whether the table's options make the lowest score the best (UNO's lowest_wins). */
export function lowerWins(options: Record<string, string> | undefined): boolean {
  return options?.["lowest_wins"] === "true";
}

export function ranking(update: Update, lower = false): Placed[] {
  const winners = new Set(update.outcome?.winners ?? []);
  const score = (seat: number): number | null => (update.scores.length ? Number(update.scores[seat] ?? 0) : null);
  const seats = update.seats.filter((s) => s.kind !== SeatKind.EMPTY).map((s) => s.index);
  const places = update.outcome?.places ?? [];
  const entry = (seat: number, place: number): Placed => ({
    place,
    seat,
    name: seatName(update, seat),
    score: score(seat),
    bot: update.seats[seat]?.kind === SeatKind.BOT,
  });
  if (places.length && seats.every((seat) => (places[seat] ?? 0) > 0)) {
    // The game's own places: nothing to work out from the scores.
    seats.sort((a, b) => places[a] - places[b] || a - b);
    return seats.map((seat) => entry(seat, places[seat]));
  }
  const better = (a: number, b: number) => (lower ? (score(a) ?? 0) - (score(b) ?? 0) : (score(b) ?? 0) - (score(a) ?? 0));
  seats.sort((a, b) => Number(winners.has(b)) - Number(winners.has(a)) || better(a, b) || a - b);
  const placed: Placed[] = [];
  seats.forEach((seat, i) => {
    const previous = placed[i - 1];
    const tied = previous && winners.has(previous.seat) === winners.has(seat) && previous.score === score(seat);
    placed.push(entry(seat, tied ? previous.place : i + 1));
  });
  return placed;
}

/** The ranking as a list: place, name, score. */
export function rankingList(update: Update, lower = false): HTMLElement {
  return h(
    "ol",
    { class: "ranking", "aria-label": t("end.ranking") },
    ...ranking(update, lower).map((p) =>
      h(
        "li",
        { class: `place-${p.place}${update.viewerSeat === p.seat ? " you" : ""}`, "data-seat": p.seat },
        h("span", { class: "place" }, ordinal(p.place)),
        h("span", { class: "name" }, p.name, update.viewerSeat === p.seat ? t("seat.youNote") : "", p.bot ? t("bot.note") : ""),
        p.score !== null ? h("span", { class: "score" }, scoreWords(p.score, update.scoreLabel)) : null,
      ),
    ),
  );
}

/** The most lines of the game's account shown open; a longer one (a long UNO game) starts folded. */
const OPEN_LINES = 6;

/** The game's own account of how it ended (the outcome's details), a line each; null when it has none. */
export function detailsList(outcome: Outcome): HTMLElement | null {
  if (!outcome.details.length) return null;
  const list = h("ul", { class: "outcome-details" }, ...outcome.details.map((line) => h("li", {}, line)));
  const box = h("details", { class: "how-it-went" }, h("summary", {}, t("end.howItWent")), list) as HTMLDetailsElement;
  box.open = outcome.details.length <= OPEN_LINES;
  return box;
}

export function ordinal(place: number): string {
  return tOrdinal("end.place", { count: place });
}
