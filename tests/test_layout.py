"""The layout holds (issue #18, docs/design.md §4): imports run one way and the domain holds no protobuf.

Read from the source with `ast`, so a violation fails here with the module and the import named, before it
shows up as a tangle somewhere else.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from toadstool.api.v1 import table_pb2
from toadstool.server.tables import SeatKind, Status

SERVER = Path(__file__).resolve().parents[1] / "server" / "toadstool"
TABLES = SERVER / "server" / "tables"
#: The domain: games and their engine interface, and the tables. None of it speaks gRPC or protobuf.
GAMES = [SERVER / "engine.py", *sorted((SERVER / "games").rglob("*.py"))]
DOMAIN = [*GAMES, *sorted(TABLES.glob("*.py"))]
GENERATED = ("toadstool.api.v1", "grpc", "google.protobuf")


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


@pytest.mark.parametrize("path", DOMAIN, ids=lambda p: str(p.relative_to(SERVER)))
def test_the_domain_never_imports_generated_code_or_grpc(path: Path) -> None:
    wrong = [name for name in _imports(path) if name.startswith(GENERATED)]
    assert not wrong, f"{path.relative_to(SERVER)} imports {wrong}: only toadstool.server.messages builds messages"


@pytest.mark.parametrize("path", DOMAIN, ids=lambda p: str(p.relative_to(SERVER)))
def test_the_domain_never_imports_the_transport_or_the_clients(path: Path) -> None:
    # The tables may use the table server's durable log (store) and their own modules, nothing above them.
    allowed = ("toadstool.server.tables", "toadstool.server.store")
    upward = ("toadstool.server", "toadstool.cli", "toadstool_clients")
    wrong = [name for name in _imports(path) if name.startswith(upward) and not name.startswith(allowed)]
    assert not wrong, f"{path.relative_to(SERVER)} imports {wrong}, which sits above it"


@pytest.mark.parametrize("path", GAMES, ids=lambda p: str(p.relative_to(SERVER)))
def test_the_games_never_import_the_table_server(path: Path) -> None:
    wrong = [name for name in _imports(path) if name.startswith(("toadstool.server", "toadstool.cli"))]
    assert not wrong, f"{path.relative_to(SERVER)} imports {wrong}: games sit below the table server"


def test_table_statuses_and_seat_kinds_are_the_numbers_of_the_proto() -> None:
    for status in Status:
        assert table_pb2.TableStatus.Name(status.value) == f"TABLE_STATUS_{status.name}"
    for kind in SeatKind:
        assert table_pb2.SeatKind.Name(kind.value) == f"SEAT_KIND_{kind.name}"


@pytest.mark.parametrize(
    "path", sorted((SERVER / "server").rglob("*.py")), ids=lambda p: str(p.relative_to(SERVER / "server"))
)
def test_each_table_server_module_says_what_it_owns_and_stays_short(path: Path) -> None:
    tree = ast.parse(path.read_text())
    assert ast.get_docstring(tree), f"{path.name} does not say what it is for"
    assert len(path.read_text().splitlines()) <= 600, f"{path.name} is past ~500 lines: split it by concept"


CLIENTS = Path(__file__).resolve().parents[1] / "clients" / "toadstool_clients"
#: What clients may import of the server package: the contract (toadstool.api: constants and generated v1 code).
CONTRACT = ("toadstool.api",)
#: The `toadstool` command: the one composition root, which imports both sides lazily, per subcommand.
COMPOSITION_ROOT = SERVER / "cli.py"


@pytest.mark.parametrize("path", sorted(CLIENTS.rglob("*.py")), ids=lambda p: str(p.relative_to(CLIENTS)))
def test_clients_import_only_the_contract_of_the_server_package(path: Path) -> None:
    server_side = [n for n in _imports(path) if n == "toadstool" or n.startswith("toadstool.")]
    wrong = [n for n in server_side if not n.startswith(CONTRACT)]
    assert not wrong, (
        f"{path.relative_to(CLIENTS)} imports server internals {wrong}: move what it needs to toadstool.api"
    )


@pytest.mark.parametrize(
    "path", sorted(p for p in SERVER.rglob("*.py") if p != COMPOSITION_ROOT), ids=lambda p: str(p.relative_to(SERVER))
)
def test_the_server_never_imports_a_client(path: Path) -> None:
    clients = [n for n in _imports(path) if n.split(".")[0] == "toadstool_clients"]
    assert not clients, f"{path.relative_to(SERVER)} imports {clients}: only the toadstool command may"


def test_the_command_imports_either_side_only_inside_its_subcommands() -> None:
    tree = ast.parse(COMPOSITION_ROOT.read_text())
    top_level = [
        node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        and node.module
        and node.module.split(".")[0] in ("toadstool", "toadstool_clients")
    ]
    assert all(name.startswith(CONTRACT) for name in top_level), top_level
