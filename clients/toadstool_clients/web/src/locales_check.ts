// Checks every language's catalogue against the English one (src/locales): the same keys, a plural where
// English has one with every form the language's Intl.PluralRules uses (ordinal rules for ORDINAL_KEYS),
// and the same {placeholders} ({count} may be left out of a form). Run by tests/test_web_language.py:
// `node build/locales_check.mjs`; prints each problem and exits 1 if there is any, else prints the counts.

import { en, ORDINAL_KEYS } from "./locales/en";
import type { Plural } from "./locales/en";
import { de } from "./locales/de";
import { rulesEn } from "./locales/rules.en";
import { rulesDe } from "./locales/rules.de";
import { boardsEn } from "./locales/boards.en";
import { boardsDe } from "./locales/boards.de";

const catalogues: Record<string, Record<string, string | Plural>> = { de };
const english: Record<string, string | Plural> = { ...en, ...rulesEn, ...boardsEn };
catalogues.de = { ...de, ...rulesDe, ...boardsDe };
const problems: string[] = [];

const forms = (message: string | Plural): string[] => (typeof message === "string" ? [message] : Object.values(message));
const placeholders = (message: string | Plural): string =>
  [...new Set(forms(message).flatMap((text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1])))]
    .filter((name) => name !== "count")
    .sort()
    .join(",");

for (const [language, catalogue] of Object.entries(catalogues)) {
  for (const key of Object.keys(english)) {
    const ours = english[key];
    const theirs = catalogue[key];
    if (theirs === undefined) {
      problems.push(`${language}: no message for ${key}`);
      continue;
    }
    if (forms(theirs).some((text) => !text.trim())) problems.push(`${language}: an empty message for ${key}`);
    if (typeof ours !== typeof theirs) problems.push(`${language}: ${key} is ${typeof ours === "string" ? "not " : ""}a plural in English`);
    if (typeof theirs !== "string") {
      const rules = new Intl.PluralRules(language, { type: ORDINAL_KEYS.includes(key) ? "ordinal" : "cardinal" });
      for (const form of rules.resolvedOptions().pluralCategories) {
        if (!(form in theirs)) problems.push(`${language}: ${key} lacks its "${form}" form`);
      }
    }
    if (placeholders(ours) !== placeholders(theirs)) {
      problems.push(`${language}: ${key} has {${placeholders(theirs)}}, English {${placeholders(ours)}}`);
    }
  }
  for (const key of Object.keys(catalogue)) if (!(key in english)) problems.push(`${language}: ${key} is not an English key`);
}
for (const problem of problems) console.log(problem);
if (!problems.length) console.log(`ok ${Object.keys(english).length} messages in ${Object.keys(catalogues).join(", ")}`);
process.exit(problems.length ? 1 : 0);
