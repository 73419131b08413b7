// Checks the TypeScript choice tree against tests/choices_cases.json (the cases the Python tree passes).
// Run by tests/test_web_client.py: `node build/choices_check.mjs tests/choices_cases.json`; prints one line
// per case and exits 1 if any tree differs.

import { readFileSync } from "node:fs";
import { fromJson } from "@bufbuild/protobuf";
import type { JsonValue } from "@bufbuild/protobuf";
import { LegalActionSchema } from "./gen/toadstool/v1/table_pb";
import { choiceTree, treeAsData } from "./choices";

interface Case {
  game: string;
  legal_actions: JsonValue[];
  tree: unknown;
}

const cases = JSON.parse(readFileSync(process.argv[2], "utf8")) as Case[];
let failed = 0;
cases.forEach((c, index) => {
  const actions = c.legal_actions.map((a) => fromJson(LegalActionSchema, a));
  const got = JSON.stringify(treeAsData(choiceTree(actions)));
  const want = JSON.stringify(c.tree);
  if (got === want) {
    console.log(`ok ${index} ${c.game} (${actions.length} actions)`);
  } else {
    failed++;
    console.log(`FAIL ${index} ${c.game}\n  want ${want}\n  got  ${got}`);
  }
});
process.exit(failed ? 1 : 0);
