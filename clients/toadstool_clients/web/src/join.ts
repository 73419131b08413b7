// Sitting down at a table from its page (what a phone opens from a QR code): a name asked once and
// remembered on this device, then one tap to sit (or to watch). A name already at the table is refused
// with a sentence before anything is sent; the server still decides (a full table, a bad name).

import type { Update } from "./gen/toadstool/v1/table_pb";
import { SeatKind, TableStatus } from "./gen/toadstool/v1/table_pb";
import { h } from "./dom";
import { savedName, saveName } from "./storage";
import { t } from "./i18n";

/** Why `name` cannot sit at the table shown by `update`, in a sentence, or "" when it can. */
export function nameProblem(name: string, seats: readonly { kind: SeatKind; name: string }[]): string {
  const clean = name.trim();
  if (!clean) return t("join.typeName");
  if (clean.length > 40) return t("join.tooLong");
  const taken = seats.some((s) => s.kind !== SeatKind.EMPTY && s.name.trim().toLowerCase() === clean.toLowerCase());
  return taken ? t("join.taken", { name: clean }) : "";
}

/** The panel: the name (focused when none is remembered), Sit down (the first open seat), and Watch. */
export function joinPanel(update: Update, problem: string, sit: (name: string) => void, watch: () => void): HTMLElement | null {
  const open = update.seats.some((s) => s.kind === SeatKind.EMPTY);
  if (!open || update.status === TableStatus.FINISHED) return null;
  const name = h("input", {
    id: "join-name",
    name: "name",
    maxlength: 40,
    autocomplete: "nickname",
    enterkeyhint: "go",
    placeholder: t("join.name"),
    value: savedName(),
    "aria-describedby": problem ? "join-problem" : undefined,
    oninput: (event: Event) => saveName((event.target as HTMLInputElement).value.trim()),
  });
  if (!savedName()) queueMicrotask(() => name.focus());
  const submit = (event: Event) => {
    event.preventDefault();
    saveName(name.value.trim());
    sit(name.value.trim());
  };
  return h(
    "form",
    { class: "join-panel", onsubmit: submit, "aria-label": t("join.label") },
    h("label", { class: "join-name", for: "join-name" }, t("join.name")),
    name,
    problem ? h("p", { class: "problem", id: "join-problem", role: "alert" }, problem) : null,
    h(
      "div",
      { class: "join-buttons" },
      h("button", { class: "primary sit", type: "submit" }, t("join.sit")),
      h("button", { class: "watch", type: "button", onclick: watch }, t("join.justWatch")),
    ),
  );
}
