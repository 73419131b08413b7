"""Every task starts in a task scope (issue #42; docs/design.md, principle 7): no bare `create_task`
or `ensure_future` in the server or the clients.

Read from the source with `ast`: a call `X.create_task(...)` passes only when `X` names a TaskGroup, that is
a name or attribute the same module binds to `asyncio.TaskGroup()` or `TaskScope()` (`async with ... as X`,
`X = ...`) or annotates as one (`X: TaskScope`, `X: TaskScope | None`). `asyncio.create_task`,
`loop.create_task` and `ensure_future` never pass. A place that must start a task some other way goes in
ALLOWED with the reason written beside it.
"""

from __future__ import annotations

import ast
import asyncio
import logging
from pathlib import Path

import pytest

from toadstool.api.scopes import TaskScope, logged

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [
    path
    for base in (ROOT / "server" / "toadstool", ROOT / "clients" / "toadstool_clients")
    for path in sorted(base.rglob("*.py"))
    if "api/v1" not in path.as_posix()
]
GROUPS = {"TaskGroup", "TaskScope"}
#: run_coroutine_threadsafe too: a task started from another thread is still a task outside any group.
STARTERS = {"create_task", "ensure_future", "run_coroutine_threadsafe"}

#: (path from the repository's root, the receiver as written) -> why it may start a task outside a group.
ALLOWED: dict[tuple[str, str], str] = {
    ("server/toadstool/api/scopes.py", "super()"): "the task scope itself: TaskGroup.create_task, tracked for cancel",
}


def _is_group(node: ast.expr | None) -> bool:
    """Whether an annotation or a value names a TaskGroup: `TaskScope`, `asyncio.TaskGroup()`, `X | None`."""
    if node is None:
        return False
    if isinstance(node, ast.Call):
        return _is_group(node.func)
    if isinstance(node, ast.Name):
        return node.id in GROUPS
    if isinstance(node, ast.Attribute):
        return node.attr in GROUPS
    if isinstance(node, ast.BinOp):
        return _is_group(node.left) or _is_group(node.right)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a quoted annotation
        return any(group in node.value for group in GROUPS)
    return False


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _groups(tree: ast.AST) -> set[str]:
    """The names (the last part of a name or attribute) the module binds to a TaskGroup."""
    names: set[str] = set()
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.withitem) and _is_group(node.context_expr) and node.optional_vars is not None:
            targets = [node.optional_vars]
        elif isinstance(node, ast.Assign) and _is_group(node.value):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and (_is_group(node.annotation) or _is_group(node.value)):
            targets = [node.target]
        elif isinstance(node, ast.arg) and _is_group(node.annotation):
            names.add(node.arg)
        names |= {name for target in targets if (name := _last_name(target)) is not None}
    return names


def bare_starts(source: str, path: str = "") -> list[str]:
    """Each call that starts a task outside a TaskGroup, as 'line: receiver.method'."""
    tree = ast.parse(source)
    groups = _groups(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        method = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if method not in STARTERS:
            continue
        receiver = ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""
        if (path, receiver) in ALLOWED:
            continue
        if method == "create_task" and isinstance(func, ast.Attribute) and _last_name(func.value) in groups:
            continue
        found.append(f"{node.lineno}: {receiver + '.' if receiver else ''}{method}")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_task_starts_in_a_task_group(path: Path) -> None:
    bare = bare_starts(path.read_text(), path.relative_to(ROOT).as_posix())
    assert not bare, (
        f"{path.relative_to(ROOT)} starts tasks outside a TaskGroup at {bare}: start them with the create_task "
        "of the scope that owns them (toadstool.api.scopes), or add the place to ALLOWED "
        "with the reason"
    )


def test_every_allowance_is_still_needed_and_says_why() -> None:
    for (path, receiver), reason in ALLOWED.items():
        assert reason.strip(), f"{path}: {receiver} is allowed without a reason"
        tree = ast.parse((ROOT / path).read_text())
        calls = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in STARTERS
            and ast.unparse(node.func.value) == receiver
        ]
        assert calls, f"{path} no longer starts a task through {receiver}: drop it from ALLOWED"


@pytest.mark.parametrize(
    "source",
    [
        "import asyncio\nasyncio.create_task(f())",
        "import asyncio\nasyncio.ensure_future(f())",
        "loop = asyncio.get_running_loop()\nloop.create_task(f())",
        "async def g(tasks):\n    tasks.create_task(f())",  # not annotated, not bound: unknown
        "async def g():\n    async with asyncio.timeout(1) as tasks:\n        tasks.create_task(f())",
    ],
)
def test_a_bare_start_is_found(source: str) -> None:
    assert bare_starts(source)


@pytest.mark.parametrize(
    "source",
    [
        "async def g():\n    async with asyncio.TaskGroup() as tg:\n        tg.create_task(f())",
        "async def g():\n    async with TaskScope() as self._scope:\n        self._scope.create_task(f())",
        "def g(tasks: TaskScope):\n    tasks.create_task(f())",
        "class C:\n    def __init__(self):\n        self._tasks = TaskScope()\n    def g(self):\n"
        "        self._tasks.create_task(f())",
        "class C:\n    _scope: TaskScope | None = None\n    def g(self):\n        self._scope.create_task(f())",
    ],
)
def test_a_start_in_a_group_passes(source: str) -> None:
    assert not bare_starts(source)


# -- the scope itself ------------------------------------------------------------------------------------


async def _forever() -> None:
    await asyncio.Event().wait()


async def test_leaving_a_scope_cancels_what_still_runs_and_waits_until_it_has_ended() -> None:
    ended: list[str] = []

    async def child() -> None:
        try:
            await _forever()
        finally:
            await asyncio.sleep(0)  # ends a step after its cancellation: the scope waits for it
            ended.append("child")

    async with TaskScope() as tasks:
        task = tasks.create_task(child())
        await asyncio.sleep(0)
    assert task.cancelled()
    assert ended == ["child"]


async def test_the_blocks_own_error_comes_out_as_itself_not_in_a_group() -> None:
    async def block() -> None:
        async with TaskScope() as tasks:
            tasks.create_task(_forever())
            raise KeyError("the block's")

    with pytest.raises(KeyError):
        await block()


async def test_a_logged_childs_failure_ends_only_that_child() -> None:
    records: list[logging.LogRecord] = []
    quiet = logging.getLogger("test_task_scopes.quiet")
    quiet.propagate = False  # kept from the root's handlers: this ERROR is the one the test expects
    quiet.addHandler(handler := _Collect(records))

    async def failing() -> None:
        raise RuntimeError("a broken bot")

    try:
        async with TaskScope() as tasks:
            sibling = tasks.create_task(_forever())
            failed = tasks.create_task(logged(quiet, "task bots-x", failing))
            await failed
            assert not sibling.done(), "the sibling runs on"
    finally:
        quiet.removeHandler(handler)
    assert [r.getMessage() for r in records] == ["task bots-x failed"]
    assert records[0].exc_info is not None


async def test_a_task_started_while_the_scope_is_left_is_cancelled_at_once() -> None:
    started: list[asyncio.Task[None]] = []

    async def late(tasks: TaskScope) -> None:
        try:
            await _forever()
        finally:
            started.append(tasks.create_task(_forever()))

    async with TaskScope() as tasks:
        tasks.create_task(late(tasks))
        await asyncio.sleep(0)
    assert len(started) == 1
    assert started[0].cancelled()


class _Collect(logging.Handler):
    def __init__(self, records: list[logging.LogRecord]) -> None:
        super().__init__()
        self.records = records

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
