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

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "server" / "toadstool"
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
    # The tables write their log through the store's Protocol and records (records), never a concrete store
    # (SQLite's or the memory's), and use their own modules, nothing above them.
    # The in-memory store is the registry's default when it is given none (tests, programs embedding it).
    allowed = ("toadstool.server.tables", "toadstool.server.records", "toadstool.server.memory_store")
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


# -- import cycles ---------------------------------------------------------------------------------------


def _module_graph() -> dict[str, set[str]]:
    """Every project module and the project modules it imports, counting imports inside functions and
    under TYPE_CHECKING (they are cycles all the same to a reader). `from package import module` imports
    the module, not the package's __init__."""
    modules: dict[str, Path] = {}
    for base, package in ((ROOT / "server", "toadstool"), (ROOT / "clients", "toadstool_clients")):
        for path in (base / package).rglob("*.py"):
            if "api/v1" in path.as_posix():
                continue
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base_name = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base_name = ".".join([*anchor, *([node.module] if node.module else [])])
                subs = [f"{base_name}.{alias.name}" for alias in node.names]
                targets = [s for s in subs if s in modules]
                if len(targets) < len(subs):
                    targets.append(base_name)
            for target in targets:
                parts = target.split(".")
                while parts and ".".join(parts) not in modules:
                    parts.pop()
                if parts and ".".join(parts) != name:
                    graph[name].add(".".join(parts))
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_the_cycle_finder_finds_a_cycle_and_no_false_one() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert _cycles({"a": {"b"}, "b": set(), "c": {"b"}}) == []


def test_no_import_cycle() -> None:
    # The core's helpers name it by a Protocol of what they need (host_log, history) or import the table
    # one way (autoplay, hosting, registry); the Tk screens switch through the app
    # (toadstool_clients.tk.shell); the store no longer repairs a file as it opens it (repair.open_store).
    assert _cycles(_module_graph()) == []
