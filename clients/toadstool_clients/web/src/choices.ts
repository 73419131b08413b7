// The choice tree: a view's flat list of legal actions grouped into short menus by their typed fields.
//
// A step-by-step port of clients/toadstool_clients/choices.py (its docstring states the algorithm; read it
// there). Built only from the typed `LegalAction.action` messages through protobuf-es reflection, never from
// label text; it holds no rules. tests/choices_cases.json checks this port and the Python one alike
// (src/choices_check.ts, run by tests/test_web_client.py). Values are kept as Python would print them, so the
// two trees can be compared entry by entry.

import { isFieldSet, toJson, ScalarType } from "@bufbuild/protobuf";
import type { DescField, DescMessage, Message } from "@bufbuild/protobuf";
import { ActionSchema } from "./gen/toadstool/v1/table_pb";
import type { Action, LegalAction } from "./gen/toadstool/v1/table_pb";
import { t } from "./i18n";

/** The longest menu a level may have before it is split into runs. */
export const MAX_ENTRIES = 13;

/** One step: [kind, field, value]; a kind step has field "" and value null. */
export type StepValue = number | boolean | string | null;
export type Step = readonly [string, string, StepValue];

export interface Choice {
  steps: Step[];
  action: LegalAction | null;
  children: Choice[];
  /** A toggle field -> the id of the action to send instead when that toggle is on. */
  toggles: Record<string, string>;
  run: boolean;
}

function node(steps: Step[], action: LegalAction | null = null): Choice {
  return { steps, action, children: [], toggles: {}, run: false };
}

export function isLeaf(choice: Choice): boolean {
  return choice.action !== null;
}

export function leaves(choice: Choice): Choice[] {
  return isLeaf(choice) ? [choice] : choice.children.flatMap(leaves);
}

/** The id to send for a leaf with `on` toggles switched on. */
export function actionId(leaf: Choice, on: readonly string[] = []): string {
  for (const name of on) {
    if (name in leaf.toggles) return leaf.toggles[name];
  }
  return leaf.action!.id;
}

/** Python's json.dumps (default separators, sort_keys, ensure_ascii); `floats`: numbers are Python floats. */
export function pyDumps(value: unknown, floats = false): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return floats && Number.isInteger(value) ? `${value}.0` : String(value);
  if (typeof value === "string") {
    return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
  }
  if (Array.isArray(value)) return "[" + value.map((v) => pyDumps(v, floats)).join(", ") + "]";
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  return "{" + keys.map((k) => `${pyDumps(k)}: ${pyDumps(record[k], floats)}`).join(", ") + "}";
}

function isOptional(field: DescField): boolean {
  return field.proto.proto3Optional === true;
}

function valueOne(field: DescField, value: unknown): StepValue {
  if (field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message")) {
    return pyDumps(toJson(field.message as DescMessage, value as Message));
  }
  if (typeof value === "bigint") return Number(value);
  return value as StepValue;
}

function stepValue(field: DescField, value: unknown): StepValue {
  if (field.fieldKind === "list") {
    return pyDumps((value as unknown[]).map((v) => valueOne(field, v)));
  }
  return valueOne(field, value);
}

interface KindMessage {
  kind: string;
  schema: DescMessage;
  message: Message & Record<string, unknown>;
}

/** The kind's proto name and message of a game action ("play_card" and its UnoPlayCard). */
function kindOf(action: Action): KindMessage | null {
  const game = action.game;
  if (game.case === undefined || game.case === "generic") return null;
  const gameField = ActionSchema.fields.find((f) => f.localName === game.case)!;
  const gameSchema = gameField.message as DescMessage;
  const oneof = gameSchema.oneofs[0];
  if (!oneof) return null;
  const selected = (game.value as unknown as Record<string, { case?: string; value?: unknown }>)[oneof.localName];
  if (!selected || selected.case === undefined) return null;
  const kindField = oneof.fields.find((f) => f.localName === selected.case)!;
  return {
    kind: kindField.name,
    schema: kindField.message as DescMessage,
    message: selected.value as Message & Record<string, unknown>,
  };
}

/** [the Action member, the path of steps] of one typed action (step 1). */
export function actionPath(action: Action): [string, Step[]] {
  const member = action.game.case;
  if (member === undefined) return ["", [["", "", null]]];
  if (member === "generic") {
    const generic = action.game.value;
    // google.protobuf.Struct is a plain JSON object in protobuf-es; its numbers are doubles, as in Python.
    const fields = (generic.fields ?? {}) as Record<string, unknown>;
    const kind = generic.kind;
    return [member, [[kind, "", null], ...Object.keys(fields).sort().map((key): Step => [kind, key, pyDumps(fields[key], true)])]];
  }
  const found = kindOf(action);
  if (found === null) return [member, [["", "", null]]];
  const steps: Step[] = [[found.kind, "", null]];
  for (const field of found.schema.fields) {
    if (isOptional(field) && !isFieldSet(found.message, field)) continue;
    steps.push([found.kind, field.name, stepValue(field, found.message[field.localName])]);
  }
  return [member, steps];
}

function boolFields(action: Action): string[] {
  const found = kindOf(action);
  if (found === null) return [];
  return found.schema.fields
    .filter((f) => f.fieldKind === "scalar" && f.scalar === ScalarType.BOOL)
    .map((f) => f.name)
    .sort();
}

function stepKey(step: Step): string {
  // Python compares steps as tuples, where True == 1: a bool and a number of one field never meet.
  const value = step[2];
  const text = typeof value === "boolean" ? (value ? "1" : "0") : value === null ? "null" : typeof value + ":" + String(value);
  return `${step[0]}\u0000${step[1]}\u0000${text}`;
}

function pathKey(steps: readonly Step[]): string {
  return steps.map(stepKey).join("\u0001");
}

function without(steps: Step[], name: string): Step[] {
  return steps.filter((s) => s[1] !== name);
}

function hasStep(path: Step[], step: Step): boolean {
  const key = stepKey(step);
  return path.some((s) => stepKey(s) === key);
}

/** Step 2: toggles. */
function findToggles(
  actions: readonly LegalAction[],
  paths: Step[][],
): [Step[][], Map<number, Record<string, string>>, Set<number>] {
  const toggles = new Map<number, Record<string, string>>();
  const dropped = new Set<number>();
  const kinds = new Map<string, number[]>();
  paths.forEach((path, index) => {
    const kind = path[0][0];
    if (!kinds.has(kind)) kinds.set(kind, []);
    kinds.get(kind)!.push(index);
  });
  const removed = new Map<string, Set<string>>();
  for (const [kind, indices] of kinds) {
    const names: string[] = [];
    for (const index of indices) {
      for (const name of boolFields(actions[index].action!)) if (!names.includes(name)) names.push(name);
    }
    for (const name of names) {
      const on = indices.filter((i) => hasStep(paths[i], [kind, name, true]));
      const off = new Map<string, number>();
      for (const i of indices) if (hasStep(paths[i], [kind, name, false])) off.set(pathKey(without(paths[i], name)), i);
      if (on.some((i) => !off.has(pathKey(without(paths[i], name))))) continue;
      if (!removed.has(kind)) removed.set(kind, new Set());
      removed.get(kind)!.add(name);
      for (const i of on) {
        const twin = off.get(pathKey(without(paths[i], name)))!;
        if (!toggles.has(twin)) toggles.set(twin, {});
        toggles.get(twin)![name] = actions[i].id;
        dropped.add(i);
      }
    }
  }
  const cleaned = paths.map((path) => path.filter((s) => !(removed.get(path[0][0])?.has(s[1]) ?? false)));
  return [cleaned, toggles, dropped];
}

/** Step 3: the trie. */
function trie(
  actions: readonly LegalAction[],
  paths: Step[][],
  toggles: Map<number, Record<string, string>>,
  dropped: Set<number>,
): Choice {
  const root = node([]);
  actions.forEach((legal, index) => {
    if (dropped.has(index)) return;
    let at = root;
    const path = paths[index];
    path.forEach((step, depth) => {
      const last = depth === path.length - 1;
      let child = last
        ? undefined
        : at.children.find((c) => c.steps.length === 1 && stepKey(c.steps[0]) === stepKey(step) && !isLeaf(c));
      if (child === undefined) {
        child = node([step]);
        at.children.push(child);
      }
      at = child;
    });
    at.action = legal;
    at.toggles = { ...(toggles.get(index) ?? {}) };
  });
  return root;
}

function adopt(parentSteps: Step[], children: Choice[]): Choice[] {
  for (const child of children) child.steps = [...parentSteps, ...child.steps];
  return children;
}

function isKindGroup(choice: Choice): boolean {
  return !isLeaf(choice) && choice.steps.length > 0 && choice.steps.every((s) => !s[1]);
}

/** Step 4: normalise, bottom-up. */
function normalise(at: Choice, root = true): void {
  at.children.forEach((child, index) => {
    normalise(child, false);
    if (child.children.length === 1) {
      const only = child.children[0];
      only.steps = [...child.steps, ...only.steps];
      at.children[index] = only;
    }
  });
  let changed = true;
  while (changed) {
    changed = false;
    if (root && at.children.length === 1 && !isLeaf(at.children[0])) {
      const only = at.children[0];
      at.children = adopt(only.steps, only.children);
      changed = true;
      continue;
    }
    const kinds = at.children.filter(isKindGroup);
    const size = at.children.reduce((n, c) => n + (isKindGroup(c) ? c.children.length : 1), 0);
    if (kinds.length > 0 && size <= MAX_ENTRIES) {
      at.children = at.children.flatMap((c) => (isKindGroup(c) ? adopt(c.steps, c.children) : [c]));
      changed = true;
    }
  }
  if (at.children.length > MAX_ENTRIES) at.children = splitRuns(at.children);
}

/** Step 4c: ceil(n / MAX_ENTRIES) runs of consecutive entries, the first ones one longer. */
export function splitRuns(children: Choice[]): Choice[] {
  const runs = Math.ceil(children.length / MAX_ENTRIES);
  const size = Math.floor(children.length / runs);
  const longer = children.length % runs;
  const result: Choice[] = [];
  let start = 0;
  for (let run = 0; run < runs; run++) {
    const end = start + size + (run < longer ? 1 : 0);
    result.push({ steps: [], action: null, children: children.slice(start, end), toggles: {}, run: true });
    start = end;
  }
  return result;
}

/** The root of the menus for these legal actions. */
export function choiceTree(legalActions: readonly LegalAction[]): Choice {
  const paths = legalActions.map((legal) => actionPath(legal.action!)[1]);
  const [cleaned, toggles, dropped] = findToggles(legalActions, paths);
  const root = trie(legalActions, cleaned, toggles, dropped);
  normalise(root);
  return root;
}

/** The one leaf when the menu offers exactly one action and no toggle. */
export function forcedChoice(root: Choice): Choice | null {
  const only = root.children.length === 1 ? root.children[0] : null;
  return only !== null && isLeaf(only) && Object.keys(only.toggles).length === 0 ? only : null;
}

/** What a person reads for an entry (step 5); `stepLabel` names one step (a kind step has field ""). */
export function entryLabel(entry: Choice, atRoot: boolean, stepLabel: (step: Step) => string): string {
  if (isLeaf(entry)) {
    if (atRoot || !entry.steps.some((s) => s[1])) return entry.action!.label;
    return stepsLabel(entry.steps, stepLabel);
  }
  if (entry.run) {
    const span = t("choice.range", {
      first: entryLabel(entry.children[0], false, stepLabel),
      last: entryLabel(entry.children[entry.children.length - 1], false, stepLabel),
    });
    return entry.steps.length ? `${stepsLabel(entry.steps, stepLabel)} ${span}` : span;
  }
  return stepsLabel(entry.steps, stepLabel);
}

export function stepsLabel(steps: readonly Step[], stepLabel: (step: Step) => string): string {
  const values = steps.filter((s) => s[1]).map(stepLabel).join(", ");
  const kind = steps.find((s) => !s[1]);
  if (!kind) return values;
  const name = stepLabel(kind);
  return values ? `${name} ${values}` : name;
}

function pyStr(value: StepValue): string {
  if (typeof value === "boolean") return value ? "True" : "False";
  return String(value);
}

/** The tree as plain data, exactly as choices.py's `tree_as_data` writes it (tests/choices_cases.json). */
export function treeAsData(root: Choice): unknown[] {
  return root.children.map((child) => {
    const entry: Record<string, unknown> = {
      steps: child.steps.map(([kind, name, value]) => (name ? `${name}=${pyStr(value)}` : kind)),
    };
    if (isLeaf(child)) {
      entry.id = child.action!.id;
      if (Object.keys(child.toggles).length) entry.toggles = { ...child.toggles };
    } else {
      if (child.run) entry.run = true;
      entry.entries = treeAsData(child);
    }
    return entry;
  });
}
