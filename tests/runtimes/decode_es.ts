// Decodes captured Toadstool messages with protobuf-es, the browser client's runtime, through the code
// protoc-gen-es generates from proto/ (as clients/toadstool_clients/web does). Reads a JSON list of
// {"type": "WatchResponse", "b64": "..."} or {"type": ..., "json": "..."} (Connect's JSON codec) from
// argv[2]; writes each message as proto3 JSON (field names as in the .proto files) as a JSON list to stdout.
// tests/test_wire_runtimes.py bundles it with esbuild beside a freshly generated gen/ folder.
import { readFileSync } from "node:fs";
import { fromBinary, fromJsonString, toJson, type DescMessage } from "@bufbuild/protobuf";
import * as service from "./gen/toadstool/v1/service_pb";

const schemas = new Map<string, DescMessage>();
for (const value of Object.values(service)) {
  const desc = value as DescMessage;
  if (desc && desc.kind === "message") schemas.set(desc.name, desc);
}

type Captured = { type: string; b64?: string; json?: string };
const captured = JSON.parse(readFileSync(process.argv[2], "utf8")) as Captured[];
const decoded = captured.map(({ type, b64, json }) => {
  const schema = schemas.get(type);
  if (!schema) throw new Error(`service.proto has no message ${type}`);
  const message =
    json !== undefined
      ? fromJsonString(schema, json)
      : fromBinary(schema, Uint8Array.from(Buffer.from(b64 ?? "", "base64")));
  return toJson(schema, message, { useProtoFieldName: true });
});
process.stdout.write(JSON.stringify(decoded));
