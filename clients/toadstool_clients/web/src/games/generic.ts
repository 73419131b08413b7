// The fallback drawing for any game without its own: the view's fields as readable panels (text only).

import { toJson } from "@bufbuild/protobuf";
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { GameViewSchema } from "../gen/toadstool/v1/table_pb";
import { h } from "../dom";
import type { GameRenderer } from "./types";

function words(key: string): string {
  return key.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase();
}

function value(item: JsonValue, depth: number): HTMLElement {
  if (item === null || typeof item !== "object") return h("span", { class: "value" }, String(item));
  if (Array.isArray(item)) {
    if (item.every((v) => v === null || typeof v !== "object")) {
      return h("span", { class: "value" }, item.map((v) => (v === null ? "—" : String(v))).join(", "));
    }
    return h("ol", { class: "list" }, ...item.map((v) => h("li", {}, value(v, depth + 1))));
  }
  return panel(item, depth + 1);
}

function panel(object: JsonObject, depth: number): HTMLElement {
  return h(
    "dl",
    { class: `panel depth-${Math.min(depth, 3)}` },
    ...Object.entries(object).flatMap(([key, v]) => [h("dt", {}, words(key)), h("dd", {}, value(v, depth))]),
  );
}

export const renderGeneric: GameRenderer = ({ update }) => {
  const json = update.view ? (toJson(GameViewSchema, update.view) as JsonObject) : {};
  const [member] = Object.keys(json);
  const body = member ? (json[member] as JsonValue) : {};
  return h("section", { class: "generic-view" }, value(body, 0));
};
