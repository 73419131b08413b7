#!/usr/bin/env node
// Decodes captured Toadstool messages as Node's standard gRPC stack does: @grpc/proto-loader (which parses
// with protobufjs) with the options examples/node/client.js uses, through each method's own deserializer,
// exactly as @grpc/grpc-js would on a call. Reads a JSON list of {"type": "WatchResponse", "b64": "..."}
// (a response type of ToadstoolService) from argv[2]; writes the decoded objects as a JSON list to stdout.
// Used by tests/test_wire_runtimes.py; the packages come from examples/node (`npm ci` there).
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..", "..");
const protoLoader = require(path.join(root, "examples", "node", "node_modules", "@grpc", "proto-loader"));

const PROTO_ROOT = path.join(root, "proto");
const definition = protoLoader.loadSync(path.join(PROTO_ROOT, "toadstool", "v1", "service.proto"), {
  includeDirs: [PROTO_ROOT],
  keepCase: true,
  longs: String,
  enums: String,
  bytes: String,
  defaults: true,
  oneofs: true,
});
const service = definition["toadstool.v1.ToadstoolService"];
const byType = new Map();
for (const method of Object.values(service)) {
  byType.set(method.responseType.type.name, method.responseDeserialize);
  byType.set(method.requestType.type.name, method.requestDeserialize);
}

const captured = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const decoded = captured.map(({ type, b64 }) => {
  const deserialize = byType.get(type);
  if (!deserialize) throw new Error(`no method of ToadstoolService carries ${type}`);
  return deserialize(Buffer.from(b64, "base64"));
});
process.stdout.write(JSON.stringify(decoded));
