// How to play: a short rules panel for each game, reachable from the table screen's header ("How to play").
//
// The texts are the project's own short summaries of how the server plays each game (the server decides
// everything; these only help a newcomer follow it). The panel is a modal <dialog> kept outside the table's
// drawing, so the updates that redraw the table every moment do not close it; Esc or "Close" does.

import { h } from "./dom";

export interface GameRules {
  title: string;
  /** One line: what the game is about. */
  goal: string;
  /** Headed short paragraphs, in the order a first game meets them. */
  sections: [string, string[]][];
}

export const RULES: Record<string, GameRules> = {
  uno: {
    title: "UNO Super Mario",
    goal: "Be the first to empty your hand. The hand's winner scores the cards left in the other hands; the first to the target score wins the game.",
    sections: [
      ["Your turn", [
        "Play one card that matches the colour in play, or the number, or the symbol. Wilds and Super Stars go on anything: you choose the colour play goes on with.",
        "You may always draw one card instead. If the drawn card fits, you may play it at once, or keep it.",
      ]],
      ["Action cards", [
        "Skip: the next player misses a turn. Reverse: play changes direction (with two players it skips). Draw Two: the next player draws 2 and misses a turn.",
        "Wild Draw Four: the next player draws 4, or challenges it. If the card's player held a card of the colour in play, they draw 4 instead; if not, the challenger draws 6.",
        "Super Star: a wild. Played on a Draw Two or Wild Draw Four aimed at you, it sends the cards back to the attacker.",
      ]],
      ["UNO!", [
        "When you play your next-to-last card, call UNO: tap the big UNO! button before the card, or right after it. Anyone who catches you before you call makes you draw 2.",
      ]],
      ["Scoring", [
        "Numbers count their face value; Skip, Reverse and Draw Two 20; every wild and Super Star 50.",
      ]],
    ],
  },
  powerup: {
    title: "Super Mario Bros. Power Up",
    goal: "Keep your Extra Lives. Each round the lowest Level loses one; the last player with lives left wins.",
    sections: [
      ["A round", [
        "Everyone gets one face-down Level card (1 to 12, or a Castle). In turn, keep yours or trade it with the next player; the dealer goes last and may swap theirs for the top of the deck.",
        "Then all cards are turned up. Players whose printed values match draw a ? card.",
        "Now, in turn, play ? cards on any Level (or pass) until everyone has passed in a row. Only the last card played on a Level counts.",
        "Every player with the lowest value loses one Extra Life. Out of lives: out of the game.",
      ]],
      ["Castles", [
        "A Castle is safe: it draws a ? card, cannot be targeted, traded away or lose a life this round.",
      ]],
      ["? cards", [
        "Each card says what it does and when it may be played: in the modify phase, at any time, when someone trades with you, or as your keep-or-trade decision.",
      ]],
    ],
  },
  levelup: {
    title: "Super Mario: Level Up!",
    goal: "Push your secret favourite characters high up the board. Three rounds; the most points wins.",
    sections: [
      ["Setting up a round", [
        "Everyone gets a secret card of six favourite characters. In turn, place characters on levels 1 to 4; the rest start on level 0. ? blocks fill the empty places on levels 1 to 5.",
      ]],
      ["Your turn", [
        "Move one character up one level. Moving onto a level with ? blocks reveals one: coins, moves up or down, extra turns, cards to keep.",
        "Held blocks and Power Up cards are played on a later turn of yours.",
      ]],
      ["The vote", [
        "A character moved from level 5 to 10 is nominated. Everyone votes in secret: Yes!, No! or Thwomp Vote. Any No! or Thwomp Vote left after the 1-Up Mushrooms sends it off the board (a Thwomp Vote: down to level 0). If every vote is Yes!, it is champion and the round ends.",
        "You have few No! cards for the whole round: spend them well.",
      ]],
      ["Scoring", [
        "Each favourite scores the number of its level (10 at the top, 0 off the board). A 0 in round 3 counts as 33. Coin blocks add their points at the end.",
      ]],
    ],
  },
  kart: {
    title: "Super Mario Kart",
    goal: "Be the first to cross the finish line for the third time.",
    sections: [
      ["Your turn", [
        "Before rolling you may use your item, throw it away, or pay coins for extra fields (1 coin +1, 3 +4, 5 +7, 10 +15). Then roll and move.",
        "A 6 earns a coin from the bank.",
      ]],
      ["Fields act when you stop on them", [
        "? : draw an item (if you hold none). Booster: roll again. Mushroom: your next move is halved. Thwomp: roll; 1-2 skip two turns, 3-4 skip one.",
        "A banana chip: skip a turn and lose half your coins. Another kart already there: everyone there pays a coin, or skips a turn if broke.",
      ]],
      ["Items", [
        "Feather: take a shortcut (the red arrows) when your move reaches past it. Mushroom: double this roll. Shells hit a kart ahead (Green 1-4 fields, Red 1-11, Blue the leader). Lightning: everyone else's next move is halved. Ghost: steal an item. Banana: drop a chip on a free field.",
      ]],
    ],
  },
};

/** The keys at the table (keys.ts), for a keyboard. */
const KEYS: [string, string][] = [
  ["1-9", "choose (a Kart field: its number)"],
  ["d", "draw"],
  ["u", "call UNO"],
  ["r", "roll"],
  ["Esc", "back a step"],
];

let dialog: HTMLDialogElement | null = null;

function panel(game: string): HTMLDialogElement {
  const rules = RULES[game];
  const close = (): void => dialog?.close();
  const body = rules
    ? [
        h("p", { class: "rules-goal" }, rules.goal),
        ...rules.sections.flatMap(([heading, paragraphs]) => [h("h3", {}, heading), ...paragraphs.map((p) => h("p", {}, p))]),
      ]
    : [h("p", {}, "Follow the choices offered at the table: only legal moves are ever offered.")];
  const element = h(
    "dialog",
    { class: "rules", "data-game": game, "aria-labelledby": "rules-title" },
    h(
      "div",
      { class: "rules-head" },
      h("h2", { id: "rules-title" }, `How to play ${rules?.title ?? game}`),
      h("button", { class: "rules-close", "aria-label": "Close the rules", onclick: close }, "✕"),
    ),
    h("div", { class: "rules-body" }, ...body,
      h("h3", { class: "rules-keys-title" }, "Keys"),
      h("dl", { class: "rules-keys" }, ...KEYS.flatMap(([key, what]) => [h("dt", {}, h("kbd", {}, key)), h("dd", {}, what)])),
    ),
    h("div", { class: "rules-foot" }, h("button", { class: "primary", onclick: close }, "Close")),
  );
  // A tap on the backdrop (outside the panel's box) closes it too.
  element.addEventListener("click", (event) => {
    if (event.target === element) {
      const r = element.getBoundingClientRect();
      const e = event as MouseEvent;
      if (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom) close();
    }
  });
  return element;
}

/** Open the rules panel of `game` (it stays open across the table's updates). */
export function openRules(game: string): void {
  dialog?.remove();
  dialog = panel(game);
  document.body.appendChild(dialog);
  dialog.showModal();
}

/** The header's "How to play" button for `game`. */
export function rulesButton(game: string): HTMLElement {
  return h(
    "button",
    { class: "rules-open", "data-rules": game, "aria-haspopup": "dialog", onclick: () => openRules(game) },
    // "Rules" on a narrow phone, where the header's first row is short of room.
    h("span", { class: "long" }, "How to play"),
    h("span", { class: "short" }, "Rules"),
  );
}
