"""Shared fixtures: a test fails if anything logged an ERROR (python-chess's habit); real servers on free
loopback ports, in this process or as a `toadstool serve` process (which binds port 0 and says which port it
got); and a guard that no test leaves a process running (a failed or timed-out test included)."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import AsyncIterator, Generator, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest
from hypothesis import settings

from toadstool.server.app import RunningServer, ServerConfig, running_server
from toadstool.server.limits import Limits
from toadstool_clients.connection import Client

ROOT = Path(__file__).resolve().parents[1]

# The test-only games (tests/plugin_games: Pig) are registered through an entry point, as another installed
# package's would be, before any test module reads the registry: every suite that runs over all games
# (conformance, end to end) runs over them too, and `toadstool serve` processes started here find them.
sys.path.insert(0, str(ROOT / "tests" / "plugin_games"))
import register as _plugin_games  # noqa: E402

if TYPE_CHECKING:
    from terminal_helpers import Tmux

_plugin_games.install()

# Property tests draw the same examples on every CI run (a red CI must be the change's fault, not a new
# random draw); locally they explore freely.
settings.register_profile("ci", derandomize=True, database=None, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


#: Scripted test players act far faster than people: tests that are not about limits lift the action
#: rate limit (tests/test_limits.py checks the limits themselves).
TEST_LIMITS = Limits(actions_per_second=100_000, action_burst=100_000)
TEST_LIMIT_FLAGS = ("--actions-per-second", "100000", "--min-bot-delay", "0")


def _grpc_poller_of_a_closed_loop(record: logging.LogRecord) -> bool:
    """grpc.aio's poller waking an event loop an earlier test closed: it happens only in a process that runs
    grpc.aio in several event loops one after another (pytest-asyncio gives each test its own; a server
    runs one), and it touches nothing of the test (grpc/grpc#25364)."""
    error = record.exc_info[1] if record.exc_info else None
    return (
        record.name == "asyncio"
        and "PollerCompletionQueue._handle_events" in record.getMessage()
        and isinstance(error, RuntimeError)
        and str(error) == "Event loop is closed"
    )


@pytest.fixture(autouse=True)
def _fail_on_logged_errors(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level(logging.WARNING)
    yield
    errors = [
        r for r in caplog.get_records("call") if r.levelno >= logging.ERROR and not _grpc_poller_of_a_closed_loop(r)
    ]
    if errors:
        pytest.fail("ERROR logged during the test:\n" + "\n".join(r.getMessage() for r in errors))


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now (for an address nothing should answer at;
    a server started on it races any other process for it: start servers with `start_serve`)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def stop_process(process: subprocess.Popen[bytes], seconds: float = 10.0) -> None:
    """Ask a process to stop (SIGTERM), and kill it if it has not within `seconds`."""
    process.terminate()
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def toadstool_command(*args: str) -> list[str]:
    """The `toadstool` command line, run with this interpreter."""
    return [sys.executable, "-m", "toadstool.cli", *args]


def serve_command(port: int, *flags: str) -> list[str]:
    """`toadstool serve` on 127.0.0.1 (tests listen on loopback only) at `port`, with `flags`."""
    return toadstool_command("serve", "--host", "127.0.0.1", "--port", str(port), *flags)


#: What `toadstool serve` prints once it listens, with the address it bound (the port it got, for port 0).
LISTENING = re.compile(r"Toadstool server listening on (\S+:\d+) ")


def start_serve(
    *flags: str, output: Path, env: Mapping[str, str] | None = None, port: int = 0, seconds: float = 30.0
) -> tuple[subprocess.Popen[bytes], str]:
    """Start `toadstool serve` on 127.0.0.1 with `flags`; once it says it listens, return the process and
    the address it listens on.

    Port 0 (the default) has the server bind a free port itself, so no other process can take it between
    choosing and binding; a restart that must come back at the same address passes the port the first start
    got. Its stdout and stderr are appended to `output` (a pipe nobody reads would fill up and stall it).
    """
    output.parent.mkdir(parents=True, exist_ok=True)
    start = output.stat().st_size if output.exists() else 0
    with output.open("ab") as log:
        process = subprocess.Popen(serve_command(port, *flags), env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + seconds
    while True:
        printed = output.read_bytes()[start:].decode(errors="replace")
        listening = LISTENING.search(printed)
        if listening:
            return process, listening.group(1)
        if process.poll() is not None:
            raise RuntimeError(f"`toadstool serve` exited ({process.returncode}) before listening:\n{printed[-4000:]}")
        if time.monotonic() > deadline:
            stop_process(process)
            raise TimeoutError(f"`toadstool serve` did not listen within {seconds} s:\n{printed[-4000:]}")
        time.sleep(0.02)


@pytest.fixture
def terminal() -> Iterator[list[Tmux]]:
    """Terminals (tmux panes) a test opens: each is closed, with its program, when the test ends."""
    opened: list[Tmux] = []  # (terminal_helpers is imported only where used: test_test_script copies this file alone)
    yield opened
    for tmux in opened:
        tmux.close()


@pytest.fixture
def chromium(tmp_path: Path) -> Iterator[Any]:
    """A headless Chromium at a phone's size with a profile of its own, quit when the test ends (the web
    helpers are imported only here: test_test_script copies this file alone)."""
    from web_helpers import PHONE, browser

    driver = browser(tmp_path / "profile-a", PHONE)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    """A real gRPC server in this process on a free loopback port, with instant bots."""
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.0, grace=0.5, limits=TEST_LIMITS)
    async with running_server(config) as running:
        yield running


@pytest.fixture
async def client(server: RunningServer) -> AsyncIterator[Client]:
    async with Client(server.address) as c:
        yield c


@pytest.fixture
def server_process(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`toadstool serve` as a real process on a free loopback port; yields (process, address)."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    flags = ("--bot-delay", "0.01", "--no-db", "--no-announce", *TEST_LIMIT_FLAGS)
    process, address = start_serve(*flags, output=tmp_path / "serve.log", env=env)
    try:
        yield process, address
    finally:
        stop_process(process)


# --- No test leaves a process running --------------------------------------------------------------------
# At the end of every test (passed, failed or timed out), every process this pytest process started that is
# still alive is stopped: the descendants of this process, found by walking the parent links in /proc, so a
# process in a session or process group of its own is found too, and a grandchild whose parent died first
# (this process is a child subreaper, so orphans are reparented to it rather than to init). The processes of
# wider-scoped fixtures (the session's Xvfb) are left alone until their fixture is finalized. At the very
# end of the session, whatever is left is stopped too. Under xdist each worker guards its own tests.
# TOADSTOOL_PROCESS_GUARD=0 turns it off (tests/test_test_script.py checks that it is what stops them).


class _Process(NamedTuple):
    pid: int
    parent: int
    group: int
    started: int  # clock ticks after boot: with the pid, names one process even if the pid is reused
    state: str

    @property
    def key(self) -> tuple[int, int]:
        return (self.pid, self.started)

    def command(self) -> str:
        try:
            raw = Path(f"/proc/{self.pid}/cmdline").read_bytes()
        except OSError:
            return "?"
        return raw.rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace")[:200]


def _process(pid: int) -> _Process | None:
    """One process, from /proc/PID/stat; None if it is gone."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return None
    try:
        stat = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    fields = stat[stat.rindex(b")") + 2 :].split()  # after "pid (command) ": the command may hold spaces
    return _Process(pid, int(fields[1]), int(fields[2]), int(fields[19]), fields[0].decode())


def _processes() -> list[_Process]:
    """Every process on this machine, from /proc."""
    found = (_process(int(name)) for name in os.listdir("/proc") if name.isdigit())
    return [process for process in found if process is not None]


def _alive(process: _Process) -> bool:
    return process.state not in ("Z", "X")  # a zombie has exited already; only its parent can reap it


class _ProcessGuard:
    """What the guard knows: which processes are this pytest process's, and which of them to leave alone."""

    def __init__(self) -> None:
        self.me = os.getpid()
        self.enabled = sys.platform == "linux" and os.environ.get("TOADSTOOL_PROCESS_GUARD", "1") != "0"
        #: processes not to stop at the end of a test, with who owns them (a fixture, or "before the tests")
        self.exempt: dict[tuple[int, int], object] = {}
        #: processes that were running before the session began: never ours to stop
        self.preexisting: set[tuple[int, int]] = set()

    def start(self) -> None:
        if not self.enabled:
            return
        # Without it orphans go to init: the process groups of their own that tests started are still stopped.
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
        self.preexisting = {p.key for p in self.descendants()}

    def descendants(self, skip: set[tuple[int, int]] | None = None) -> list[_Process]:
        """The live descendants of this process, leaving out the subtrees of the processes in `skip`."""
        children: dict[int, list[_Process]] = {}
        for process in _processes():
            children.setdefault(process.parent, []).append(process)
        found: list[_Process] = []
        todo = list(children.get(self.me, []))
        while todo:
            process = todo.pop()
            if skip and process.key in skip:
                continue
            if _alive(process):
                found.append(process)
            todo.extend(children.get(process.pid, []))
        return found

    def exempt_new(self, before: set[tuple[int, int]], owner: object) -> None:
        for process in self.descendants():
            if process.key not in before:
                self.exempt[process.key] = owner

    def release(self, owner: object) -> None:
        self.exempt = {key: who for key, who in self.exempt.items() if who is not owner}

    def stop_leftovers(self, *, keep_exempt: bool) -> list[str]:
        """Stop every descendant not exempt (SIGTERM, then SIGKILL after a second); returns what it stopped."""
        skip = self.preexisting | (set(self.exempt) if keep_exempt else set())
        stopped: dict[tuple[int, int], str] = {}
        adopted: dict[tuple[int, int], _Process] = {}
        for sig, patience in ((signal.SIGTERM, 1.0), (signal.SIGKILL, 2.0), (signal.SIGKILL, 2.0)):
            leftovers = self.descendants(skip)
            if not leftovers:
                break
            for process in leftovers:
                stopped.setdefault(process.key, f"pid {process.pid}: {process.command()}")
                if process.parent != self.me:
                    adopted.setdefault(process.key, process)
                self._signal(process, sig)
            deadline = time.monotonic() + patience
            while time.monotonic() < deadline and any(self._still_there(p) for p in leftovers):
                time.sleep(0.02)
        self._reap(adopted.values())
        return list(stopped.values())

    def _reap(self, processes: Iterable[_Process]) -> None:
        """Reap the stopped grandchildren that became this process's children when their parent died: no
        Popen here waits for them. (Children the tests started themselves are left to their Popen.)"""
        for process in processes:
            now = _process(process.pid)
            if now and now.started == process.started and now.parent == self.me and not _alive(now):
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(process.pid, os.WNOHANG)

    @staticmethod
    def _signal(process: _Process, sig: signal.Signals) -> None:
        try:
            if process.group == process.pid and process.group != os.getpgrp():
                os.killpg(process.group, sig)  # a group of its own: stop whatever else is in it too
            else:
                os.kill(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    @staticmethod
    def _still_there(process: _Process) -> bool:
        now = _process(process.pid)
        return now is not None and now.started == process.started and _alive(now)


class _ProcessGuardPlugin:
    """The guard's hooks. A plugin of its own rather than hooks of this conftest file: pytest applies a
    conftest's hooks only below its folder, and a session-scoped fixture is set up at the root."""

    def __init__(self, guard: _ProcessGuard) -> None:
        self.guard = guard

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        for process in self.guard.descendants():  # started while collecting, not by a test
            self.guard.exempt.setdefault(process.key, "before the tests")
        return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(
        self, fixturedef: pytest.FixtureDef[object], request: pytest.FixtureRequest
    ) -> Generator[None, object, object]:
        """The processes a session-, package-, module- or class-scoped fixture starts live as long as it."""
        if fixturedef.scope == "function":
            return (yield)
        before = {p.key for p in self.guard.descendants()}
        try:
            return (yield)
        finally:
            self.guard.exempt_new(before, fixturedef)

    def pytest_fixture_post_finalizer(
        self, fixturedef: pytest.FixtureDef[object], request: pytest.FixtureRequest
    ) -> None:
        self.guard.release(fixturedef)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> Generator[None, object, object]:
        try:
            return (yield)
        finally:
            stopped = self.guard.stop_leftovers(keep_exempt=True)
            if stopped:
                text = "\n".join(stopped)
                item.add_report_section("teardown", "processes the test left running (stopped)", text)
                warnings.warn(f"{item.nodeid} left processes running; stopped them:\n{text}", stacklevel=1)

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if os.getpid() == self.guard.me:
            self.guard.stop_leftovers(keep_exempt=False)


def pytest_configure(config: pytest.Config) -> None:
    guard = _ProcessGuard()
    if guard.enabled and not config.pluginmanager.has_plugin("toadstool-process-guard"):
        guard.start()
        config.pluginmanager.register(_ProcessGuardPlugin(guard), "toadstool-process-guard")
