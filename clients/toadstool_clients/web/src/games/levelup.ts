// Super Mario: Level Up! drawn as its board: levels 10 (the nominee), 5 down to 0, each with its characters
// left to right and its face-down ? blocks; the characters still to place; the viewer's secret favourites
// (marked on the board) and Power Up cards; every seat's held blocks, No! cards, vote (only whether a seat
// has voted, until the reveal) and round scores. When the viewer is to vote, the vote cards come first
// (on a phone's first screen). Tap targets: a character (move it, or place it and then
// tap its level), a face-down block to reveal, a Power Up card or held block (then the character or level
// it acts on), the vote cards, a 1-Up on a seat's vote.

import type { LevelUpLevel, LevelUpSeat, LevelUpView } from "../gen/toadstool/v1/levelup_pb";
import { LevelUpBlockKind, LevelUpPowerKind, LevelUpStage, LevelUpVote } from "../gen/toadstool/v1/levelup_pb";
import type { Choice } from "../choices";
import { isLeaf } from "../choices";
import { h } from "../dom";
import { levelUpVoteName, seatName } from "../names";
import { entryFor, isOpened, openedStep, tapFor } from "./taps";
import type { GameRenderer, RenderContext } from "./types";
import { list, t } from "../i18n";
import type { Key } from "../i18n";

const BLOCK_WORDS: Record<number, Key> = {
  [LevelUpBlockKind.COIN]: "lu.coin",
  [LevelUpBlockKind.COIN_X2]: "lu.coinX2",
  [LevelUpBlockKind.SUPER_MUSHROOM]: "lu.superMushroom",
  [LevelUpBlockKind.FEATHER]: "lu.feather",
  [LevelUpBlockKind.GOOMBA]: "lu.goomba",
  [LevelUpBlockKind.GREEN_SHELL]: "lu.greenShell",
  [LevelUpBlockKind.DOUBLE_CHERRY]: "lu.doubleCherry",
  [LevelUpBlockKind.THWOMP]: "lu.thwomp",
  [LevelUpBlockKind.POW_BLOCK]: "lu.powBlock",
  [LevelUpBlockKind.SUPER_STAR]: "lu.superStar",
};
const blockName = (kind: number): string => t(BLOCK_WORDS[kind] ?? "lu.block");

const POWER_WORDS: Record<number, Key> = {
  [LevelUpPowerKind.THWOMP_VOTE]: "lu.thwompVote",
  [LevelUpPowerKind.ONE_UP_MUSHROOM]: "lu.oneUp",
  [LevelUpPowerKind.WARP_PIPE]: "lu.warpPipe",
  [LevelUpPowerKind.GOOMBA_STOMP]: "lu.goombaStomp",
  [LevelUpPowerKind.BOO]: "lu.boo",
  [LevelUpPowerKind.MEGA_POW]: "lu.megaPow",
  [LevelUpPowerKind.GOLDEN_MUSHROOM]: "lu.goldenMushroom",
};
const powerName = (kind: number): string => t(POWER_WORDS[kind] ?? "lu.powerUp");

/** The play a held block or Power Up card stands for (its kind in the choice tree). */
const BLOCK_PLAYS: Record<number, string> = {
  [LevelUpBlockKind.FEATHER]: "play_feather",
  [LevelUpBlockKind.GREEN_SHELL]: "play_green_shell",
};
const POWER_PLAYS: Record<number, string> = {
  [LevelUpPowerKind.WARP_PIPE]: "play_warp_pipe",
  [LevelUpPowerKind.GOOMBA_STOMP]: "play_goomba_stomp",
  [LevelUpPowerKind.BOO]: "play_boo",
  [LevelUpPowerKind.MEGA_POW]: "play_mega_pow",
  [LevelUpPowerKind.GOLDEN_MUSHROOM]: "play_golden_mushroom",
};

/** Kinds whose first field is a character, drawn on the character itself when at the top menu. */
const CHARACTER_KINDS = ["move", "place"];

function characterName(view: LevelUpView, id: number): string {
  return view.characterNames[id] ?? t("lu.character", { number: id });
}

/** The entry that plays this card or block: a menu of its targets, or the play itself when it has none. */
function playEntry(context: RenderContext, kind: string): Choice | undefined {
  const entry = context.entries.find((e) => e.steps.length > 0 && e.steps.every((s) => !s[1]) && e.steps[0][0] === kind);
  if (entry) context.claim(entry);
  return entry;
}

function character(context: RenderContext, view: LevelUpView, id: number): HTMLElement {
  const name = characterName(view, id);
  const favourite = view.favourites.includes(id);
  const nominee = view.nominee === id;
  const tap = tapFor(context, CHARACTER_KINDS, ["character", "first", "second"], id);
  const classes = ["lu-char", `ch-${id}`, favourite ? "favourite" : "", nominee ? "nominee" : ""];
  const inner = [favourite ? h("span", { class: "star", title: t("lu.favourite") }, "★") : null, name];
  if (!tap) return h("span", { class: classes.filter(Boolean).join(" "), "data-character": id }, ...inner);
  const opened = isOpened(context, tap.entry);
  return h(
    "button",
    {
      class: [...classes, "playable", tap.next ? "next" : "", opened ? "selected" : ""].filter(Boolean).join(" "),
      "data-character": id,
      "aria-label": t(!tap.next && isLeaf(tap.entry) ? "lu.move" : "lu.choose", { name }),
      onclick: () => context.open(tap.entry),
    },
    ...inner,
  );
}

function blocks(context: RenderContext, view: LevelUpView, level: LevelUpLevel): HTMLElement | null {
  if (!level.faceDownBlocks) return null;
  const revealing = view.stage === LevelUpStage.REVEAL && view.revealLevel === level.level;
  return h(
    "span",
    { class: "lu-blocks", role: "group", "aria-label": t("lu.faceDown", { count: level.faceDownBlocks }) },
    ...Array.from({ length: level.faceDownBlocks }, (_, slot) => {
      const entry = revealing ? entryFor(context, ["reveal_block"], ["slot"], slot) : undefined;
      return entry
        ? h("button", { class: "lu-block playable", "aria-label": t("lu.revealBlock", { number: slot + 1 }), onclick: () => context.open(entry) }, "?")
        : h("span", { class: "lu-block" }, "?");
    }),
  );
}

function levelRow(context: RenderContext, view: LevelUpView, level: LevelUpLevel): HTMLElement {
  const next = openedStep(context, ["level"], level.level);
  const label = String(level.level);
  return h(
    "div",
    { class: `lu-level${next ? " target" : ""}${level.level === 10 ? " top" : ""}`, "data-level": level.level },
    next
      ? h("button", { class: "lu-level-label playable", "aria-label": t("lu.level", { number: level.level }), onclick: () => context.open(next) }, label)
      : h("span", { class: "lu-level-label", title: t("lu.level", { number: level.level }) }, label),
    h("span", { class: "lu-chars" }, ...level.characters.map((id) => character(context, view, id)), blocks(context, view, level)),
  );
}

function board(context: RenderContext, view: LevelUpView): HTMLElement {
  const levels = [...view.levels].sort((a, b) => b.level - a.level);
  return h(
    "div",
    { class: "lu-board", role: "group", "aria-label": t("lu.board") },
    ...levels.map((level) => levelRow(context, view, level)),
    view.unplaced.length
      ? h("div", { class: "lu-tray" }, h("span", { class: "label" }, t("lu.toPlace")), ...view.unplaced.map((id) => character(context, view, id)))
      : null,
    view.offBoard.length
      ? h("div", { class: "lu-tray off" }, h("span", { class: "label" }, t("lu.offBoard")), ...view.offBoard.map((id) => character(context, view, id)))
      : null,
  );
}

function voteCards(context: RenderContext, view: LevelUpView): HTMLElement | null {
  const choices = [LevelUpVote.YES, LevelUpVote.NO, LevelUpVote.THWOMP_VOTE]
    .map((v) => ({ v, entry: entryFor(context, ["cast_vote"], ["choice"], v) }))
    .filter((c) => c.entry);
  if (!choices.length) return null;
  const nominee = view.nominee !== undefined ? characterName(view, view.nominee) : t("lu.theNominee");
  return h(
    "div",
    { class: "lu-vote" },
    h("div", { class: "label" }, t("lu.yourVote", { nominee })),
    h(
      "div",
      { class: "vote-cards" },
      ...choices.map(({ v, entry }) =>
        h("button", { class: `vote-card playable v-${v}`, "data-vote": v, onclick: () => context.open(entry!) }, levelUpVoteName(v) ?? "?"),
      ),
    ),
  );
}

function mine(context: RenderContext, view: LevelUpView): HTMLElement | null {
  if (view.you === undefined) return null;
  const seat = view.seats[view.you];
  const held = seat?.heldBlocks ?? [];
  return h(
    "div",
    { class: "lu-mine" },
    view.favourites.length
      ? h("div", { class: "lu-favourites" }, h("span", { class: "label" }, t("lu.yourFavourites")), ...view.favourites.map((id) => h("span", { class: `lu-char small ch-${id}` }, characterName(view, id))))
      : null,
    h(
      "div",
      { class: "lu-cards", role: "group", "aria-label": t("lu.yourCards") },
      ...view.powerUps.map((card) => {
        const kind = POWER_PLAYS[card.kind];
        const entry = kind ? playEntry(context, kind) : undefined;
        const name = powerName(card.kind);
        return entry
          ? h("button", { class: `lu-power playable${isOpened(context, entry) ? " selected" : ""}`, onclick: () => context.open(entry) }, name)
          : h("span", { class: "lu-power" }, name);
      }),
      ...held.map((block) => {
        const kind = BLOCK_PLAYS[block.kind];
        const entry = kind && !block.fresh ? playEntry(context, kind) : undefined;
        const name = blockName(block.kind);
        return entry
          ? h("button", { class: `lu-held playable${isOpened(context, entry) ? " selected" : ""}`, onclick: () => context.open(entry) }, name)
          : h("span", { class: `lu-held${block.fresh ? " fresh" : ""}` }, name, block.fresh ? t("lu.new") : "");
      }),
    ),
  );
}

function voteText(view: LevelUpView, seat: LevelUpSeat): string {
  if (seat.revealedVote !== LevelUpVote.UNSPECIFIED) {
    return t(seat.voteCancelled ? "lu.votedCancelled" : "lu.voted", { vote: levelUpVoteName(seat.revealedVote) ?? "?" });
  }
  if (view.stage === LevelUpStage.VOTE) return seat.hasVoted ? t("lu.hasVoted") : t("lu.choosing");
  return "";
}

function seatPanel(context: RenderContext, view: LevelUpView, seat: LevelUpSeat): HTMLElement {
  const { update } = context;
  const oneUp = entryFor(context, ["play_one_up"], ["target"], seat.seat);
  const turn = update.toAct.includes(seat.seat);
  const vote = voteText(view, seat);
  const blocksHeld = seat.heldBlocks.map((b) => blockName(b.kind));
  return h(
    "div",
    { class: `lu-seat${turn ? " to-act" : ""}${view.you === seat.seat ? " you" : ""}`, "data-seat": seat.seat },
    h(
      "div",
      { class: "who" },
      h("span", { class: "name" }, seatName(update, seat.seat)),
      view.current === seat.seat && view.stage !== LevelUpStage.GAME_OVER ? h("span", { class: "badge" }, t("lu.turn")) : null,
      h("span", { class: "lu-score" }, t("lu.points", { points: view.scores[seat.seat] ?? 0 })),
    ),
    h(
      "div",
      { class: "lu-facts" },
      [
        t("lu.cardsFact", { no: seat.noCards, power: seat.powerUpCount }),
        seat.coins ? t("lu.coinsFact", { count: seat.coins }) : "",
        seat.skips ? t("lu.skipsFact", { count: seat.skips }) : "",
        seat.extraTurns ? t("lu.extraTurnsFact", { count: seat.extraTurns }) : "",
      ]
        .filter(Boolean)
        .join(" · "),
    ),
    blocksHeld.length ? h("div", { class: "lu-facts" }, t("lu.blocks", { blocks: blocksHeld.join(", ") })) : null,
    seat.roundScores.length ? h("div", { class: "lu-facts" }, t("lu.rounds", { scores: seat.roundScores.join(" / ") })) : null,
    seat.lastObjective.length
      ? h("div", { class: "lu-facts" }, t("lu.lastFavourites", { names: list(seat.lastObjective.map((id) => characterName(view, id))) }))
      : null,
    vote ? h("div", { class: `lu-voted${seat.revealedVote ? " revealed" : ""}` }, vote) : null,
    oneUp ? h("button", { class: "lu-one-up playable", onclick: () => context.open(oneUp) }, t("lu.cancelVote", { name: seatName(update, seat.seat) })) : null,
  );
}

export const renderLevelUp: GameRenderer = (context) => {
  const game = context.update.view?.game;
  if (game?.case !== "levelup") return h("div", {}, "");
  const view = game.value;
  const nominee = view.nominee !== undefined ? characterName(view, view.nominee) : null;
  // Your vote comes first, on the first screen of a phone: the whole table waits for it.
  return h(
    "section",
    { class: "levelup" },
    voteCards(context, view),
    h(
      "div",
      { class: "lu-status" },
      h("span", {}, t("lu.round", { round: view.round })),
      nominee ? h("span", { class: "lu-nominee" }, t("lu.nominee", { name: nominee })) : null,
      h("span", {}, t("lu.blockPile", { count: view.blockPile })),
      h("span", {}, t("lu.powerDeck", { count: view.powerDeck })),
    ),
    board(context, view),
    mine(context, view),
    h("div", { class: "lu-seats" }, ...view.seats.map((s) => seatPanel(context, view, s))),
  );
};
