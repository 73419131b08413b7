// Names and texts: seat names, "you", the words of a choice step (a port of the parts of
// clients/toadstool_clients/names.py the browser needs). Presentation only.

import type { Seat, Update } from "./gen/toadstool/v1/table_pb";
import { SeatKind } from "./gen/toadstool/v1/table_pb";
import type { UnoCard } from "./gen/toadstool/v1/uno_pb";
import { UnoColor, UnoKind } from "./gen/toadstool/v1/uno_pb";
import { LevelUpVote } from "./gen/toadstool/v1/levelup_pb";
import type { Step } from "./choices";
import { language, t } from "./i18n";
import type { Key } from "./i18n";

/** UNO's colours as the style sheet and tests name them (c-red, data-color="red"): not words to show. */
export const UNO_COLOR_NAMES: Record<number, string> = {
  [UnoColor.RED]: "red",
  [UnoColor.YELLOW]: "yellow",
  [UnoColor.GREEN]: "green",
  [UnoColor.BLUE]: "blue",
};

const UNO_COLOUR_WORDS: Record<number, Key> = {
  [UnoColor.RED]: "uno.red",
  [UnoColor.YELLOW]: "uno.yellow",
  [UnoColor.GREEN]: "uno.green",
  [UnoColor.BLUE]: "uno.blue",
};

/** An UNO colour in the person's words ("red", "Rot"), or null for none (a wild not yet coloured). */
export function unoColourName(color: number): string | null {
  const key = UNO_COLOUR_WORDS[color];
  return key ? t(key) : null;
}

const UNO_KIND_WORDS: Record<number, Key> = {
  [UnoKind.SKIP]: "uno.skip",
  [UnoKind.REVERSE]: "uno.reverse",
  [UnoKind.DRAW_TWO]: "uno.drawTwo",
  [UnoKind.WILD]: "uno.wild",
  [UnoKind.WILD_DRAW_FOUR]: "uno.wildDrawFour",
  [UnoKind.WILD_CUSTOMIZABLE]: "uno.wildCustomizable",
  [UnoKind.SUPER_STAR]: "uno.superStar",
};

/** An UNO action card's kind in the person's words ("Draw Two", "Zieh Zwei"), or null for a number card. */
export function unoKindName(kind: number): string | null {
  const key = UNO_KIND_WORDS[kind];
  return key ? t(key) : null;
}

/** The action kinds the bar names in words (as clients/toadstool_clients/names.py KIND_LABELS words them). */
const KIND_LABELS = new Set([
  "play_card",
  "place",
  "move",
  "cast_vote",
  "reveal_block",
  "catch",
  "choose_color",
  "play_feather",
  "play_green_shell",
  "play_warp_pipe",
  "play_goomba_stomp",
  "play_boo",
  "play_mega_pow",
  "play_one_up",
  "place_banana",
  "move_banana",
  "use_item",
  "pay_coins",
  "take_shortcut",
  "trade",
]);

const LEVEL_UP_VOTE_WORDS: Record<number, Key> = {
  [LevelUpVote.YES]: "vote.yes",
  [LevelUpVote.NO]: "vote.no",
  [LevelUpVote.THWOMP_VOTE]: "vote.thwomp",
};

/** A Level Up! vote card in the person's words ("No!", "Nein!"), or null for an unknown one. */
export function levelUpVoteName(vote: number): string | null {
  const key = LEVEL_UP_VOTE_WORDS[vote];
  return key ? t(key) : null;
}

/** Level Up!, Kart and Power Up step values in words ("Mario", "level 3", "field 12", "3 coins"), or null. */
function otherGameStep(update: Update, field: string, number: number): string | null {
  const view = update.view?.game;
  if (view?.case === "levelup") {
    if (field === "character" || field === "first" || field === "second") return view.value.characterNames[number] ?? t("step.character", { number });
    if (field === "level") return t("step.level", { number });
    if (field === "slot") return t("step.block", { number: number + 1 });
    if (field === "choice") return levelUpVoteName(number) ?? t("vote.none");
  }
  if (view?.case === "kart") {
    if (field === "field" || field === "from_field") return t("step.field", { number });
    if (field === "coins") return t("step.coins", { count: number });
    if (field === "shortcut") {
      const cut = view.value.track?.shortcuts[number];
      return t("step.shortcut", { label: cut ? cut.label : number + 1 });
    }
  }
  if (view?.case === "powerup" && field === "card") {
    return view.value.hand.find((c) => c.kind === number)?.name ?? t("step.card", { number });
  }
  return null;
}

const SEAT_FIELDS = new Set(["seat", "target"]);

export function unoCardName(card: UnoCard): string {
  const face = card.number !== undefined ? String(card.number) : (unoKindName(card.kind) ?? t("uno.cardNumbered", { number: card.id }));
  const colour = unoColourName(card.color);
  return colour ? t("uno.card", { colour, face }) : face;
}

/** Bot levels by service.proto's BotLevel number (Seat.bot_level), named for ids and tests (bot-level-hard). */
export const BOT_LEVELS: Record<number, string> = { 1: "easy", 2: "normal", 3: "hard" };
const BOT_LEVEL_WORDS: Record<number, Key> = { 1: "bot.easy", 2: "bot.normal", 3: "bot.hard" };

/** A bot level in the person's words; 0 (unspecified) and any unknown number read "normal", as the server plays them. */
export function botLevelName(level: number): string {
  return t(BOT_LEVEL_WORDS[level] ?? "bot.normal");
}

/** What follows a seat's name for a bot: " (bot)" for a normal one, " (hard bot)", " (easy bot)"; "" for others. */
export function botNote(seat: Seat): string {
  if (seat.kind !== SeatKind.BOT) return "";
  return t(seat.botLevel === 1 ? "bot.noteEasy" : seat.botLevel === 3 ? "bot.noteHard" : "bot.note");
}

export function seatName(update: Update, seat: number): string {
  return update.seats[seat]?.name || t("seat.numbered", { number: seat + 1 });
}

export function youOrName(update: Update, seat: number): string {
  return update.viewerSeat === seat ? t("seat.you") : seatName(update, seat);
}

/** One step of the choice tree in words; field "" names the kind itself. */
export function stepLabel(update: Update, [kind, field, value]: Step): string {
  if (!field) return KIND_LABELS.has(kind) ? t(`kind.${kind}` as Key) : kind.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
  const number = typeof value === "number" ? value : null;
  if (number !== null && SEAT_FIELDS.has(field)) return youOrName(update, number);
  const view = update.view?.game;
  if (number !== null && view?.case === "uno") {
    if (field === "card_id") {
      const cards = [...view.value.hand, ...(view.value.drawnCard ? [view.value.drawnCard] : [])];
      const card = cards.find((c) => c.id === number);
      return card ? unoCardName(card) : t("step.card", { number });
    }
    if (field === "color") return unoColourName(number) ?? t("uno.noColour");
  }
  const other = number !== null ? otherGameStep(update, field, number) : null;
  if (other !== null) return other;
  if (typeof value === "boolean") return value ? field.replace(/_/g, " ") : `no ${field.replace(/_/g, " ")}`;
  return `${field.replace(/_/g, " ")} ${value}`;
}

/** A score in words with the game's label, one of it singular: "2 laps", "1 lap", "1 Extra Life". */
export function scoreWords(score: number, label: string): string {
  if (!label) return String(score);
  // The server says its label in the person's language; only English's singular is derived here.
  if (score !== 1 || language() !== "en") return t("score.of", { score, label });
  const one = label.endsWith("ives") ? `${label.slice(0, -3)}fe` : label.endsWith("s") ? label.slice(0, -1) : label;
  return `${score} ${one}`;
}
