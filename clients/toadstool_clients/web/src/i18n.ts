// The client's own words in the person's language (issue #43, docs/design.md §11): one catalogue per
// language (locales/en.ts, locales/de.ts), whole sentences with {name} placeholders, a count's forms chosen
// by the browser's own Intl.PluralRules (no library: i18next or FormatJS would add 10-15 KB gzipped to a first
// load that must stay under 100 KB, and the platform already has the plural rules).
//
// The language: the one chosen on the lobby's menu (kept in localStorage), else the first of the browser's
// navigator.languages this client speaks, else English. Connect calls say it in their accept-language
// header (api.ts); a WebSocket cannot set headers, so the table's socket says it in its URL (?lang=,
// socket.ts), which the server puts before the handshake's Accept-Language.
//
// English is in the page's script (the source catalogue, and every missing message's fallback); another
// language's catalogue is a chunk of its own, loaded before the first screen is drawn (loadLanguage), so
// nobody downloads a language they do not read.
//
// Adding a language: a catalogue locales/xx.ts typed as `Catalogue`, one line in LOADERS and NAMES.

import { en } from "./locales/en";
import type { Catalogue, Plural } from "./locales/en";
import type { boardsEn, BoardsCatalogue } from "./locales/boards.en";

/** A message's key: the screens' (en.ts) or the games' boards' (boards.en.ts, loaded with a table). */
export type Key = keyof typeof en | keyof typeof boardsEn;
export type Language = "en" | "de";

const LOADERS: Record<Language, () => Promise<Catalogue>> = {
  en: async () => en,
  de: async () => (await import("./locales/de")).de,
};
/** The catalogues loaded so far. */
const CATALOGUES: Partial<Record<Language, Catalogue>> = { en };

const BOARD_LOADERS: Record<Language, () => Promise<BoardsCatalogue>> = {
  en: async () => (await import("./locales/boards.en")).boardsEn,
  de: async () => (await import("./locales/boards.de")).boardsDe,
};
const BOARDS: Partial<Record<Language, BoardsCatalogue>> = {};
/** Each language in its own words, for the menu. */
export const NAMES: Record<Language, string> = { en: "English", de: "Deutsch" };

const CHOSEN = "toadstool:language";

function supported(tag: string): Language | null {
  const base = tag.toLowerCase().split("-")[0];
  return base in LOADERS ? (base as Language) : null;
}

/** The browser's own first language this client speaks (English when none). */
export function browserLanguage(): Language {
  if (typeof navigator === "undefined") return "en"; // node (the build's checks)
  const tags = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const tag of tags) {
    const found = tag ? supported(tag) : null;
    if (found) return found;
  }
  return "en";
}

function remembered(): Language | null {
  try {
    const saved = typeof localStorage === "undefined" ? null : localStorage.getItem(CHOSEN);
    return saved ? supported(saved) : null;
  } catch {
    return null;
  }
}

let current: Language = remembered() ?? browserLanguage();
let plurals = new Intl.PluralRules(current);
let ordinals = new Intl.PluralRules(current, { type: "ordinal" });

export function language(): Language {
  return current;
}

/** Load the chosen language's catalogue (English is always there; a failed load leaves English). */
export async function loadLanguage(): Promise<void> {
  if (CATALOGUES[current]) return;
  try {
    CATALOGUES[current] = await LOADERS[current]();
  } catch {
    // the server unreachable while loading: English until the next load
  }
}

/** Load the games' boards' words in the chosen language (before a table or the TV is drawn). */
export async function loadBoards(): Promise<void> {
  if (BOARDS[current]) return;
  try {
    BOARDS[current] = await BOARD_LOADERS[current]();
  } catch {
    // unreachable: the boards show their messages' keys until the next load
  }
}

/** Choose `chosen` for this browser from now on (the menu), or the browser's own with null. */
export function chooseLanguage(chosen: Language | null): void {
  try {
    if (chosen === null) localStorage.removeItem(CHOSEN);
    else localStorage.setItem(CHOSEN, chosen);
  } catch {
    // private mode: the choice holds for this page only
  }
  current = chosen ?? browserLanguage();
  plurals = new Intl.PluralRules(current);
  ordinals = new Intl.PluralRules(current, { type: "ordinal" });
  document.documentElement.lang = current;
}

if (typeof document !== "undefined") document.documentElement.lang = current;

export type Values = Record<string, string | number>;

/** The message `key` in the chosen language, its {placeholders} filled from `values`; a Plural takes the
 * form Intl.PluralRules gives `values.count`. */
export function t(key: Key, values: Values = {}): string {
  return fill(key, values, plurals);
}

/** As `t`, the Plural's form chosen by the ordinal rules for `values.count` ("1st", "2nd"; "1.", "2."). */
export function tOrdinal(key: Key, values: Values): string {
  return fill(key, values, ordinals);
}

function fill(key: Key, values: Values, rules: Intl.PluralRules): string {
  const message: string | Plural =
    (CATALOGUES[current] as Record<string, string | Plural> | undefined)?.[key] ??
    (BOARDS[current] as Record<string, string | Plural> | undefined)?.[key] ??
    (en as Record<string, string | Plural>)[key] ??
    key;
  const text = typeof message === "string" ? message : pick(message, rules.select(Number(values.count ?? 0)));
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

function pick(message: Plural, form: string): string {
  return message[form as keyof Plural] ?? message.other;
}

/** A number in the chosen language's digits and separators. */
export function number(value: number): string {
  return value.toLocaleString(current);
}

/** Names joined as the chosen language joins them ("Ann, Bo and Cy"; "Ann, Bo und Cy"), by Intl.ListFormat. */
export function list(names: readonly string[]): string {
  return new Intl.ListFormat(current, { type: "conjunction" }).format(names);
}
