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

const BLOCK_NAMES: Record<number, string> = {
  [LevelUpBlockKind.COIN]: "Coin",
  [LevelUpBlockKind.COIN_X2]: "Coin x2",
  [LevelUpBlockKind.SUPER_MUSHROOM]: "Super Mushroom",
  [LevelUpBlockKind.FEATHER]: "Feather",
  [LevelUpBlockKind.GOOMBA]: "Goomba",
  [LevelUpBlockKind.GREEN_SHELL]: "Green Shell",
  [LevelUpBlockKind.DOUBLE_CHERRY]: "Double Cherry",
  [LevelUpBlockKind.THWOMP]: "Thwomp",
  [LevelUpBlockKind.POW_BLOCK]: "POW Block",
  [LevelUpBlockKind.SUPER_STAR]: "Super Star",
};

const POWER_NAMES: Record<number, string> = {
  [LevelUpPowerKind.THWOMP_VOTE]: "Thwomp Vote",
  [LevelUpPowerKind.ONE_UP_MUSHROOM]: "1-Up Mushroom",
  [LevelUpPowerKind.WARP_PIPE]: "Warp Pipe",
  [LevelUpPowerKind.GOOMBA_STOMP]: "Goomba Stomp",
  [LevelUpPowerKind.BOO]: "Boo",
  [LevelUpPowerKind.MEGA_POW]: "Mega POW",
  [LevelUpPowerKind.GOLDEN_MUSHROOM]: "Golden Mushroom",
};

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
  return view.characterNames[id] ?? `character ${id}`;
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
  const inner = [favourite ? h("span", { class: "star", title: "your favourite" }, "★") : null, name];
  if (!tap) return h("span", { class: classes.filter(Boolean).join(" "), "data-character": id }, ...inner);
  const opened = isOpened(context, tap.entry);
  return h(
    "button",
    {
      class: [...classes, "playable", tap.next ? "next" : "", opened ? "selected" : ""].filter(Boolean).join(" "),
      "data-character": id,
      "aria-label": `${tap.next ? "Choose" : isLeaf(tap.entry) ? "Move" : "Choose"} ${name}`,
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
    { class: "lu-blocks", role: "group", "aria-label": `${level.faceDownBlocks} face-down ? blocks` },
    ...Array.from({ length: level.faceDownBlocks }, (_, slot) => {
      const entry = revealing ? entryFor(context, ["reveal_block"], ["slot"], slot) : undefined;
      return entry
        ? h("button", { class: "lu-block playable", "aria-label": `Reveal block ${slot + 1}`, onclick: () => context.open(entry) }, "?")
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
      ? h("button", { class: "lu-level-label playable", "aria-label": `Level ${level.level}`, onclick: () => context.open(next) }, label)
      : h("span", { class: "lu-level-label", title: `level ${level.level}` }, label),
    h("span", { class: "lu-chars" }, ...level.characters.map((id) => character(context, view, id)), blocks(context, view, level)),
  );
}

function board(context: RenderContext, view: LevelUpView): HTMLElement {
  const levels = [...view.levels].sort((a, b) => b.level - a.level);
  return h(
    "div",
    { class: "lu-board", role: "group", "aria-label": "the board" },
    ...levels.map((level) => levelRow(context, view, level)),
    view.unplaced.length
      ? h("div", { class: "lu-tray" }, h("span", { class: "label" }, "To place:"), ...view.unplaced.map((id) => character(context, view, id)))
      : null,
    view.offBoard.length
      ? h("div", { class: "lu-tray off" }, h("span", { class: "label" }, "Off the board:"), ...view.offBoard.map((id) => character(context, view, id)))
      : null,
  );
}

function voteCards(context: RenderContext, view: LevelUpView): HTMLElement | null {
  const choices = [LevelUpVote.YES, LevelUpVote.NO, LevelUpVote.THWOMP_VOTE]
    .map((v) => ({ v, entry: entryFor(context, ["cast_vote"], ["choice"], v) }))
    .filter((c) => c.entry);
  if (!choices.length) return null;
  const nominee = view.nominee !== undefined ? characterName(view, view.nominee) : "the nominee";
  return h(
    "div",
    { class: "lu-vote" },
    h("div", { class: "label" }, `Your secret vote on ${nominee}:`),
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
      ? h("div", { class: "lu-favourites" }, h("span", { class: "label" }, "Your favourites (secret):"), ...view.favourites.map((id) => h("span", { class: `lu-char small ch-${id}` }, characterName(view, id))))
      : null,
    h(
      "div",
      { class: "lu-cards", role: "group", "aria-label": "your Power Up cards and blocks" },
      ...view.powerUps.map((card) => {
        const kind = POWER_PLAYS[card.kind];
        const entry = kind ? playEntry(context, kind) : undefined;
        const name = POWER_NAMES[card.kind] ?? "Power Up";
        return entry
          ? h("button", { class: `lu-power playable${isOpened(context, entry) ? " selected" : ""}`, onclick: () => context.open(entry) }, name)
          : h("span", { class: "lu-power" }, name);
      }),
      ...held.map((block) => {
        const kind = BLOCK_PLAYS[block.kind];
        const entry = kind && !block.fresh ? playEntry(context, kind) : undefined;
        const name = BLOCK_NAMES[block.kind] ?? "block";
        return entry
          ? h("button", { class: `lu-held playable${isOpened(context, entry) ? " selected" : ""}`, onclick: () => context.open(entry) }, name)
          : h("span", { class: `lu-held${block.fresh ? " fresh" : ""}` }, name, block.fresh ? " (new)" : "");
      }),
    ),
  );
}

function voteText(view: LevelUpView, seat: LevelUpSeat): string {
  if (seat.revealedVote !== LevelUpVote.UNSPECIFIED) {
    return `voted ${levelUpVoteName(seat.revealedVote) ?? "?"}${seat.voteCancelled ? " (cancelled)" : ""}`;
  }
  if (view.stage === LevelUpStage.VOTE) return seat.hasVoted ? "has voted" : "choosing…";
  return "";
}

function seatPanel(context: RenderContext, view: LevelUpView, seat: LevelUpSeat): HTMLElement {
  const { update } = context;
  const oneUp = entryFor(context, ["play_one_up"], ["target"], seat.seat);
  const turn = update.toAct.includes(seat.seat);
  const vote = voteText(view, seat);
  const blocksHeld = seat.heldBlocks.map((b) => BLOCK_NAMES[b.kind] ?? "block");
  return h(
    "div",
    { class: `lu-seat${turn ? " to-act" : ""}${view.you === seat.seat ? " you" : ""}`, "data-seat": seat.seat },
    h(
      "div",
      { class: "who" },
      h("span", { class: "name" }, seatName(update, seat.seat)),
      view.current === seat.seat && view.stage !== LevelUpStage.GAME_OVER ? h("span", { class: "badge" }, "turn") : null,
      h("span", { class: "lu-score" }, `${view.scores[seat.seat] ?? 0} pts`),
    ),
    h(
      "div",
      { class: "lu-facts" },
      `No! ×${seat.noCards} · Power Ups ×${seat.powerUpCount}`,
      seat.coins ? ` · coins ${seat.coins}` : "",
      seat.skips ? ` · skips ${seat.skips}` : "",
      seat.extraTurns ? ` · extra turns ${seat.extraTurns}` : "",
    ),
    blocksHeld.length ? h("div", { class: "lu-facts" }, `Blocks: ${blocksHeld.join(", ")}`) : null,
    seat.roundScores.length ? h("div", { class: "lu-facts" }, `Rounds: ${seat.roundScores.join(" / ")}`) : null,
    seat.lastObjective.length
      ? h("div", { class: "lu-facts" }, `Last favourites: ${seat.lastObjective.map((id) => characterName(view, id)).join(", ")}`)
      : null,
    vote ? h("div", { class: `lu-voted${seat.revealedVote ? " revealed" : ""}` }, vote) : null,
    oneUp ? h("button", { class: "lu-one-up playable", onclick: () => context.open(oneUp) }, `1-Up: cancel ${seatName(update, seat.seat)}'s vote`) : null,
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
      h("span", {}, `Round ${view.round} of 3`),
      nominee ? h("span", { class: "lu-nominee" }, `Nominee: ${nominee}`) : null,
      h("span", {}, `? blocks in the pile ${view.blockPile}`),
      h("span", {}, `Power Up deck ${view.powerDeck}`),
    ),
    board(context, view),
    mine(context, view),
    h("div", { class: "lu-seats" }, ...view.seats.map((s) => seatPanel(context, view, s))),
  );
};
