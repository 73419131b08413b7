// Names and texts: seat names, "you", the words of a choice step (a port of the parts of
// clients/toadstool_clients/names.py the browser needs). Presentation only.

import type { Seat, Update } from "./gen/toadstool/v1/table_pb";
import { SeatKind } from "./gen/toadstool/v1/table_pb";
import type { UnoCard } from "./gen/toadstool/v1/uno_pb";
import { UnoColor, UnoKind } from "./gen/toadstool/v1/uno_pb";
import { LevelUpVote } from "./gen/toadstool/v1/levelup_pb";
import type { Step } from "./choices";

export const UNO_COLOR_NAMES: Record<number, string> = {
  [UnoColor.RED]: "red",
  [UnoColor.YELLOW]: "yellow",
  [UnoColor.GREEN]: "green",
  [UnoColor.BLUE]: "blue",
};

export const UNO_KIND_NAMES: Record<number, string> = {
  [UnoKind.SKIP]: "Skip",
  [UnoKind.REVERSE]: "Reverse",
  [UnoKind.DRAW_TWO]: "Draw Two",
  [UnoKind.WILD]: "Wild",
  [UnoKind.WILD_DRAW_FOUR]: "Wild Draw Four",
  [UnoKind.WILD_CUSTOMIZABLE]: "Wild Customizable",
  [UnoKind.SUPER_STAR]: "Super Star",
};

const KIND_LABELS: Record<string, string> = {
  play_card: "Play",
  place: "Place",
  move: "Move",
  cast_vote: "Vote",
  reveal_block: "Reveal",
  catch: "Catch",
  choose_color: "Colour",
  // Level Up!, Kart and Power Up (as clients/toadstool_clients/names.py KIND_LABELS words them).
  play_feather: "Feather",
  play_green_shell: "Green Shell",
  play_warp_pipe: "Warp Pipe",
  play_goomba_stomp: "Goomba Stomp",
  play_boo: "Boo",
  play_mega_pow: "Mega POW",
  play_one_up: "1-Up Mushroom on",
  place_banana: "Banana on",
  move_banana: "Move the banana from",
  use_item: "Use the item on",
  pay_coins: "Pay",
  take_shortcut: "Take",
  trade: "Trade with",
};

export const LEVEL_UP_VOTE_NAMES: Record<number, string> = {
  [LevelUpVote.YES]: "Yes!",
  [LevelUpVote.NO]: "No!",
  [LevelUpVote.THWOMP_VOTE]: "Thwomp Vote",
};

/** Level Up!, Kart and Power Up step values in words ("Mario", "level 3", "field 12", "3 coins"), or null. */
function otherGameStep(update: Update, field: string, number: number): string | null {
  const view = update.view?.game;
  if (view?.case === "levelup") {
    if (field === "character" || field === "first" || field === "second") return view.value.characterNames[number] ?? `character ${number}`;
    if (field === "level") return `level ${number}`;
    if (field === "slot") return `block ${number + 1}`;
    if (field === "choice") return LEVEL_UP_VOTE_NAMES[number] ?? "no vote";
  }
  if (view?.case === "kart") {
    if (field === "field" || field === "from_field") return `field ${number}`;
    if (field === "coins") return number === 1 ? "1 coin" : `${number} coins`;
    if (field === "shortcut") {
      const cut = view.value.track?.shortcuts[number];
      return cut ? `shortcut ${cut.label}` : `shortcut ${number + 1}`;
    }
  }
  if (view?.case === "powerup" && field === "card") {
    return view.value.hand.find((c) => c.kind === number)?.name ?? `card ${number}`;
  }
  return null;
}

const SEAT_FIELDS = new Set(["seat", "target"]);

export function unoCardName(card: UnoCard): string {
  const face = card.number !== undefined ? String(card.number) : (UNO_KIND_NAMES[card.kind] ?? "card");
  const colour = UNO_COLOR_NAMES[card.color];
  return colour ? `${colour} ${face}` : face;
}

/** Bot levels by service.proto's BotLevel number (Seat.bot_level), as a person reads them. */
export const BOT_LEVELS: Record<number, string> = { 1: "easy", 2: "normal", 3: "hard" };

/** A bot level's word; 0 (unspecified) and any unknown number read "normal", as the server plays them. */
export function botLevelName(level: number): string {
  return BOT_LEVELS[level] ?? "normal";
}

/** What follows a seat's name for a bot: " (bot)" for a normal one, " (hard bot)", " (easy bot)"; "" for others. */
export function botNote(seat: Seat): string {
  if (seat.kind !== SeatKind.BOT) return "";
  const level = botLevelName(seat.botLevel);
  return level === "normal" ? " (bot)" : ` (${level} bot)`;
}

export function seatName(update: Update, seat: number): string {
  return update.seats[seat]?.name || `Seat ${seat + 1}`;
}

export function youOrName(update: Update, seat: number): string {
  return update.viewerSeat === seat ? "you" : seatName(update, seat);
}

/** One step of the choice tree in words; field "" names the kind itself. */
export function stepLabel(update: Update, [kind, field, value]: Step): string {
  if (!field) return KIND_LABELS[kind] ?? kind.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
  const number = typeof value === "number" ? value : null;
  if (number !== null && SEAT_FIELDS.has(field)) return youOrName(update, number);
  const view = update.view?.game;
  if (number !== null && view?.case === "uno") {
    if (field === "card_id") {
      const cards = [...view.value.hand, ...(view.value.drawnCard ? [view.value.drawnCard] : [])];
      const card = cards.find((c) => c.id === number);
      return card ? unoCardName(card) : `card ${number}`;
    }
    if (field === "color") return UNO_COLOR_NAMES[number] ?? "no colour";
  }
  const other = number !== null ? otherGameStep(update, field, number) : null;
  if (other !== null) return other;
  if (typeof value === "boolean") return value ? field.replace(/_/g, " ") : `no ${field.replace(/_/g, " ")}`;
  return `${field.replace(/_/g, " ")} ${value}`;
}

/** A score in words with the game's label, one of it singular: "2 laps", "1 lap", "1 Extra Life". */
export function scoreWords(score: number, label: string): string {
  if (!label) return String(score);
  if (score !== 1) return `${score} ${label}`;
  const one = label.endsWith("ives") ? `${label.slice(0, -3)}fe` : label.endsWith("s") ? label.slice(0, -1) : label;
  return `${score} ${one}`;
}
