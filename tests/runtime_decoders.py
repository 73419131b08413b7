"""The four protobuf runtimes the contract test decodes every captured message with, and one canonical form to
compare what they decoded.

- Python's upb (`google.protobuf`, what the server and the Python clients use);
- protobufjs, through `@grpc/proto-loader` with the options examples/node uses and each method's own
  deserializer, as Node's standard gRPC stack (`@grpc/grpc-js`) decodes a call (tests/runtimes/decode_node.js);
- protobuf-es, the browser client's runtime, through code protoc-gen-es generates (tests/runtimes/decode_es.ts);
- C++, through `protoc --decode` (Debian's protobuf-compiler), over one wrapper message whose repeated fields
  hold the captured bytes unchanged, so one process decodes them all.

Each runtime's output is a JSON-like tree in its own dialect (proto3 JSON, protobufjs objects, text
format); `canonical` walks it along the message's descriptor, filling the defaults a dialect leaves out and
writing numbers, enums and maps one way, so equal trees mean the runtimes read the same message.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory, text_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from conftest import ROOT
from toadstool.api.v1 import service_pb2
from toadstool.server.message_cache import varint

WEB = ROOT / "clients" / "toadstool_clients" / "web"
RUNTIMES = ROOT / "tests" / "runtimes"
SECONDS = 120


@dataclass(frozen=True)
class Captured:
    """One message as the server sent it: its type (a message of service.proto), its bytes or its JSON
    (Connect's JSON codec), and where it was captured (for the failure message)."""

    type: str
    where: str
    data: bytes = b""
    json: str | None = None


def message_class(name: str) -> Any:
    return getattr(service_pb2, name)


# -- the decoders ------------------------------------------------------------------------------------------


def decode_python(captured: Sequence[Captured]) -> list[dict[str, Any]]:
    out = []
    for item in captured:
        cls = message_class(item.type)
        message = cls.FromString(item.data) if item.json is None else json_format.Parse(item.json, cls())
        out.append(json_format.MessageToDict(message, preserving_proto_field_name=True))
    return out


def _node() -> str:
    found = shutil.which("node")
    assert found, "Node.js runs the protobufjs and protobuf-es decoders (scripts/test installs nodejs)"
    return found


def _run_node(script: Path, captured: Sequence[Captured], work: Path) -> list[Any]:
    listing = work / f"{script.stem}-input.json"
    listing.write_text(
        json.dumps(
            [
                {"type": c.type, "json": c.json} if c.json is not None else {"type": c.type, "b64": _b64(c.data)}
                for c in captured
            ]
        )
    )
    done = subprocess.run([_node(), str(script), str(listing)], capture_output=True, timeout=SECONDS, check=False)
    assert done.returncode == 0, f"{script.name} failed: {done.stderr.decode()[-2000:]}"
    result: list[Any] = json.loads(done.stdout)
    return result


def decode_protobufjs(captured: Sequence[Captured], work: Path) -> list[Any]:
    loader = ROOT / "examples" / "node" / "node_modules" / "@grpc" / "proto-loader"
    assert loader.is_dir(), "run `npm ci --prefix examples/node` (scripts/test does)"
    return _run_node(RUNTIMES / "decode_node.js", captured, work)


def decode_protobuf_es(captured: Sequence[Captured], work: Path) -> list[Any]:
    """Generates the message code from proto/ as scripts/build-web does, bundles decode_es.ts beside it with
    the web client's esbuild and packages, and runs it."""
    plugin = WEB / "node_modules" / ".bin" / "protoc-gen-es"
    esbuild = WEB / "node_modules" / ".bin" / "esbuild"
    for tool in (plugin, esbuild):
        assert tool.exists(), f"no {tool.name}: `npm ci --prefix clients/toadstool_clients/web` (scripts/test does)"
    source = work / "es"
    (source / "gen").mkdir(parents=True, exist_ok=True)
    shutil.copy(RUNTIMES / "decode_es.ts", source / "decode_es.ts")
    protos = sorted(str(p) for p in (ROOT / "proto" / "toadstool" / "v1").glob("*.proto"))
    python = ROOT / ".venv" / "bin" / "python"
    subprocess.run(
        [str(python if python.exists() else "python3"), "-m", "grpc_tools.protoc", f"-I{ROOT / 'proto'}",
         f"--plugin=protoc-gen-es={plugin}", f"--es_out={source / 'gen'}", "--es_opt=target=ts", *protos],
        check=True, timeout=SECONDS,
    )  # fmt: skip
    bundle = work / "decode_es.cjs"
    subprocess.run(
        [str(esbuild), str(source / "decode_es.ts"), "--bundle", "--platform=node", "--format=cjs",
         "--log-level=warning", f"--outfile={bundle}"],
        check=True, timeout=SECONDS, env={**os.environ, "NODE_PATH": str(WEB / "node_modules")},
    )  # fmt: skip
    return _run_node(bundle, captured, work)


def _captures_type(types: Sequence[str]) -> tuple[Any, bytes]:
    """A wrapper message `toadstool.contract.Captures` with one repeated field per type in `types` (field
    i + 1 holds `types[i]`), its class, and a FileDescriptorSet holding it and everything it imports."""
    pool = descriptor_pool.DescriptorPool()
    files = descriptor_pb2.FileDescriptorSet()
    seen: set[str] = set()

    def add(file: Any) -> None:
        if file.name in seen:
            return
        for dependency in file.dependencies:
            add(dependency)
        seen.add(file.name)
        proto = descriptor_pb2.FileDescriptorProto()
        file.CopyToProto(proto)
        files.file.append(proto)
        pool.Add(proto)

    add(service_pb2.DESCRIPTOR)
    wrapper = descriptor_pb2.FileDescriptorProto(
        name="toadstool_contract_captures.proto",
        package="toadstool.contract",
        dependency=[service_pb2.DESCRIPTOR.name],
        syntax="proto3",
    )
    message = wrapper.message_type.add(name="Captures")
    for number, name in enumerate(types, start=1):
        message.field.add(
            name=f"m{number}",
            number=number,
            label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED,
            type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
            type_name=f".toadstool.v1.{name}",
        )
    files.file.append(wrapper)
    pool.Add(wrapper)
    cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("toadstool.contract.Captures"))
    return cls, files.SerializeToString()


def _key(number: int) -> bytes:
    return varint(number << 3 | 2)


def decode_cpp(captured: Sequence[Captured], work: Path) -> list[dict[str, Any]]:
    """`protoc --decode` over one Captures message whose elements are the captured bytes as they were sent;
    its text output read back element by element (JSON captures are not C++'s to read: None for them)."""
    protoc = shutil.which("protoc")
    assert protoc, "protoc decodes with the C++ runtime (scripts/test installs protobuf-compiler)"
    types = sorted({c.type for c in captured})
    cls, descriptor_set = _captures_type(types)
    (work / "captures.desc").write_bytes(descriptor_set)
    binary = [c for c in captured if c.json is None]
    data = b"".join(_key(types.index(c.type) + 1) + varint(len(c.data)) + c.data for c in binary)
    done = subprocess.run(
        [protoc, f"--descriptor_set_in={work / 'captures.desc'}", "--decode=toadstool.contract.Captures"],
        input=data,
        capture_output=True,
        timeout=SECONDS,
        check=False,
    )
    assert done.returncode == 0, f"protoc --decode failed: {done.stderr.decode()[-2000:]}"
    wrapper = text_format.Parse(done.stdout.decode(), cls())
    queues = {t: list(getattr(wrapper, f"m{i}")) for i, t in enumerate(types, start=1)}
    out: list[Any] = []
    for item in captured:
        if item.json is not None:
            out.append(None)
            continue
        decoded = queues[item.type].pop(0)
        out.append(json_format.MessageToDict(decoded, preserving_proto_field_name=True))
    return out


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# -- one canonical form ------------------------------------------------------------------------------------


def canonical(descriptor: Descriptor, tree: Any) -> Any:
    """`tree` (one runtime's decoding of a `descriptor` message) with every field of the descriptor present:
    defaults filled in, integers as ints, enums by name, maps as sorted dicts; None for an absent message."""
    if tree is None:
        return None
    assert isinstance(tree, dict), f"{descriptor.full_name}: expected an object, got {tree!r:.80}"
    out: dict[str, Any] = {}
    for field in descriptor.fields:
        value = tree.get(field.name)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            out[field.name] = {str(k): _value(value_field, v) for k, v in sorted((value or {}).items())}
        elif field.is_repeated:
            out[field.name] = [_value(field, v) for v in (value or [])]
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            out[field.name] = canonical(field.message_type, value)
        else:
            out[field.name] = _value(field, value)
    return out


_INTS = {
    FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64,
    FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_FIXED32,
    FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED32, FieldDescriptor.TYPE_SFIXED64,
}  # fmt: skip


def _value(field: FieldDescriptor, value: Any) -> Any:
    kind = field.type
    if kind == FieldDescriptor.TYPE_MESSAGE:
        return canonical(field.message_type, value if value is not None else {})
    if kind in _INTS:
        return int(value or 0)
    if kind == FieldDescriptor.TYPE_BOOL:
        return bool(value)
    if kind in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return float(value or 0)
    if kind == FieldDescriptor.TYPE_ENUM:
        if value is None:
            return field.enum_type.values[0].name
        if isinstance(value, int):
            known = field.enum_type.values_by_number.get(value)
            return known.name if known is not None else value
        return str(value)
    if kind == FieldDescriptor.TYPE_BYTES:
        return value or ""
    return value if value is not None else ""


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The first path at which two canonical trees differ, with both values; None when equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            found = first_difference(a.get(key), b.get(key), f"{path}.{key}" if path else key)
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} elements vs {len(b)}"
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {a!r:.120} vs {b!r:.120}"
