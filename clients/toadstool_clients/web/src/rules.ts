// How to play: a short rules panel for each game, reachable from the table screen's header ("How to play").
//
// The texts are the project's own short summaries of how the server plays each game (the server decides
// everything; these only help a newcomer follow it). The panel is a modal <dialog> kept outside the table's
// drawing, so the updates that redraw the table every moment do not close it; Esc or "Close" does.

import { h } from "./dom";
import { language, t } from "./i18n";
import type { Key } from "./i18n";

/** Each game's rules in the catalogues (locales/*.ts): rules.GAME.title, .goal, and per section N its
 * heading rules.GAME.N and paragraphs rules.GAME.N.1, .2, ...: here, how many paragraphs each section has. */
export const RULES: Record<string, number[]> = {
  uno: [2, 3, 1, 1],
  powerup: [4, 1, 1],
  levelup: [1, 2, 2, 1],
  kart: [2, 2, 1],
};

/** The keys at the table (keys.ts), for a keyboard. */
const KEYS: [string, Key][] = [
  ["1-9", "rules.key.choose"],
  ["d", "rules.key.draw"],
  ["u", "rules.key.uno"],
  ["r", "rules.key.roll"],
  ["Esc", "rules.key.back"],
];

/** The rules' texts in the chosen language (a chunk loaded the first time a panel opens). */
async function rulesText(): Promise<Record<string, string>> {
  return language() === "de" ? (await import("./locales/rules.de")).rulesDe : (await import("./locales/rules.en")).rulesEn;
}

let dialog: HTMLDialogElement | null = null;

function panel(game: string, text: Record<string, string>): HTMLDialogElement {
  const said = (key: string): string => text[key] ?? key;
  const sections = RULES[game];
  const close = (): void => dialog?.close();
  const body = sections
    ? [
        h("p", { class: "rules-goal" }, said(`rules.${game}.goal`)),
        ...sections.flatMap((paragraphs, i) => [
          h("h3", {}, said(`rules.${game}.${i + 1}`)),
          ...Array.from({ length: paragraphs }, (_, j) => h("p", {}, said(`rules.${game}.${i + 1}.${j + 1}`))),
        ]),
      ]
    : [h("p", {}, t("rules.generic"))];
  const element = h(
    "dialog",
    { class: "rules", "data-game": game, "aria-labelledby": "rules-title" },
    h(
      "div",
      { class: "rules-head" },
      h("h2", { id: "rules-title" }, t("rules.title", { game: sections ? said(`rules.${game}.title`) : game })),
      h("button", { class: "rules-close", "aria-label": t("rules.closeLabel"), onclick: close }, "✕"),
    ),
    h("div", { class: "rules-body" }, ...body,
      h("h3", { class: "rules-keys-title" }, t("rules.keys")),
      h("dl", { class: "rules-keys" }, ...KEYS.flatMap(([key, what]) => [h("dt", {}, h("kbd", {}, key)), h("dd", {}, t(what))])),
    ),
    h("div", { class: "rules-foot" }, h("button", { class: "primary", onclick: close }, t("rules.close"))),
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
export async function openRules(game: string): Promise<void> {
  const text = await rulesText();
  dialog?.remove();
  dialog = panel(game, text);
  document.body.appendChild(dialog);
  dialog.showModal();
}

/** The header's "How to play" button for `game`. */
export function rulesButton(game: string): HTMLElement {
  return h(
    "button",
    { class: "rules-open", "data-rules": game, "aria-haspopup": "dialog", onclick: () => void openRules(game) },
    // "Rules" on a narrow phone, where the header's first row is short of room.
    h("span", { class: "long" }, t("rules.howToPlay")),
    h("span", { class: "short" }, t("rules.short")),
  );
}
