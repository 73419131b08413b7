"""Where a move's time goes: py-spy samples a real `toadstool serve` under bench/load.py's people-acting load,
and each sample is put in one share of the path of a move (issue #24, part 3).

Usage: ``python bench/peers/move_profile.py [--tables 100] [--transport grpc|connect|socket] [--phase saturated|paced]
[--seconds 20] [--native] [--out DIR]``

Why this and not cProfile: cProfile's cost per Python call inflates the pure-Python parts and it sees
nothing of gRPC's C core and Cython layer, protobuf's upb or SQLite, which are much of a move. py-spy samples
the running server from outside (every thread; `--native` also unwinds C frames), so the shares are those
of the server as deployed. It samples one phase: the saturated one (every table acting as soon as it can)
by default, or with `--phase paced` the paced one (every table acting once a second), where a move costs
more (each wake of the loop serves fewer events) and where the act-to-view latency is measured. Setup and
idle time are not in it.

Each sample goes to the first share (in FIRST_MATCH order) that one of its frames belongs to, looking from
the innermost frame outwards; the per-move figure is the share of the server's CPU in the phase divided by
the moves made. Needs py-spy (`pip install py-spy`, into any environment: it is a standalone program) and
root or ptrace rights. Writes OUT/move-profile.txt (the collapsed stacks) and prints the table.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import linecache
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import load
from common import CLOCK_TICKS

ROOT = Path(__file__).resolve().parents[2]

#: (share, what it covers, whether a frame's path or function belongs to it). A sample goes to the share of
#: its innermost frame that belongs to one (so the engine's legal actions asked for a view count as the
#: engine, a write under Act as the durable write), after the leaf rules of `share_of`.
SHARES: tuple[tuple[str, str, Callable[[str, str], bool]], ...] = (
    (
        "durable write",
        "the SQLite log: Store.add_action and its commit",
        lambda p, f: p.endswith("server/store.py") or "sqlite3" in p,
    ),
    (
        "engine",
        "the game's rules: legal actions, apply, describe and their labels, events, the game's view",
        lambda p, f: "toadstool/games/" in p or p.endswith("toadstool/engine.py"),
    ),
    (
        "serialisation",
        "protobuf's C calls (SerializeToString, CopyFrom, MergeFrom, parsing) and its Python layer",
        lambda p, f: "google/protobuf" in p or "_message.abi3" in p,
    ),
    (
        "token, limits and guards",
        "the seat token's hash and lookup, the rate limits, the interceptor refusing undecodable requests",
        lambda p, f: (
            p.endswith(("server/limits.py", "server/hardening.py", "tables/seats.py"))
            or f in ("ToadstoolService._seat", "Table.seat_of_token")
        ),
    ),
    (
        "each viewer's update",
        "messages.watch_response: the cached table part, each viewer's part, wire.py's messages, the Watch loop",
        lambda p, f: (
            p.endswith(("server/messages.py", "server/wire.py", "tables/waiters.py"))
            or f in ("ToadstoolService.Watch", "Table._cached", "Table.wait_change")
        ),
    ),
    (
        "Act handler",
        "Act, its validation ladder and the table's bookkeeping of a move (Table.act, the group commit, Table.advance)",
        lambda p, f: p.endswith("server/service.py") or "server/tables/" in p,
    ),
    (
        "grpc.aio",
        "grpc.aio: its Python layer, its Cython/C core run from loop callbacks, its poller thread",
        lambda p, f: p.startswith("grpc/") or "cygrpc" in p or "libgrpc" in p or p.endswith("server/listener.py"),
    ),
    (
        "HTTP (Connect)",
        "the browser's transport: uvicorn, its HTTP/1.1 parser (h11 or httptools), the Connect adapter",
        lambda p, f: p.startswith(("uvicorn/", "h11/", "httptools/")) or p.endswith("server/web_transport.py"),
    ),
    ("event loop", "asyncio's Python: the selector, _run_once, handles", lambda p, f: p.startswith("asyncio/")),
)
#: The transports the people act over (`--transport`): bench/load.py's target for each.
TARGETS = {"grpc": "toadstool", "connect": "connect-raw", "socket": "socket"}
OTHER = "other"
#: A Python frame "function (path:line)"; with --native also C frames "function (library)" (line 0).
FRAME = re.compile(r"^(?P<function>.*) \((?P<path>[^()]*?)(?::(?P<line>\d+))?\)$")
#: A C leaf that is a thread waiting, not working (py-spy --native cannot tell idle threads apart).
WAITING = ("epoll_wait", "poll", "pthread_cond_wait", "pthread_cond_timedwait", "__futex_abstimed_wait_common")
#: A line of ours that hands over to protobuf's C code (no Python frame below it to see).
PROTOBUF_CALL = re.compile(r"\.(SerializeToString|FromString|ParseFromString|CopyFrom|MergeFrom)\(")
#: A line of ours that waits on, or resumes from, C code: grpc.aio's Cython calls and futures.
SUSPENSION = re.compile(r"^\s*(yield\b|return await\b|await\b|async for\b|.*= await\b)")


def _source_line(path: str, line: int) -> str:
    """The text of a sampled line of ours (py-spy writes paths from the import root)."""
    if not path.startswith("toadstool/"):
        return ""
    return linecache.getline(str(ROOT / "server" / path), line)


def share_of(stack: list[str]) -> str:
    """The share one sampled stack (outermost frame first) belongs to."""
    frames = [m for m in (FRAME.match(f) for f in stack) if m]
    if not frames:
        return OTHER
    leaf = frames[-1]
    function, path = leaf["function"], leaf["path"]
    if (function, path) in (("Handle._run", "asyncio/events.py"), ("Thread.run", "threading.py")):
        # C code run straight from a loop callback or in a thread of its own, with no Python frame of its
        # own: grpc.aio's Cython core (its completion callbacks, its poller thread) and asyncio's C tasks.
        return "grpc.aio"
    text = _source_line(path, int(leaf["line"] or 0))
    if PROTOBUF_CALL.search(text):
        return "serialisation"
    if SUSPENSION.match(text) and not path.endswith("server/store.py"):
        return "grpc.aio"
    for frame in reversed(frames):
        for name, _, belongs in SHARES:
            if belongs(frame["path"], frame["function"]):
                return name
    return OTHER


def classify(collapsed: str) -> dict[str, int]:
    """Samples per share, from py-spy's collapsed stacks ("frame;frame;... COUNT" a line)."""
    counts: collections.Counter[str] = collections.Counter()
    for line in collapsed.splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if stack and count.isdigit() and not frames[-1].startswith(WAITING):
            counts[share_of(frames)] += int(count)
    return dict(counts)


class _SetUpWatch(io.TextIOBase):
    """sys.stderr, passed through, that notes when bench/load.py says its tables are set up (the moment the
    phases are scheduled from), so that sampling can start with the saturated phase."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner
        self.set_up = threading.Event()

    def write(self, text: str) -> int:
        if re.search(r"tables set up in", text):
            self.set_up.set()
        return self.inner.write(text)

    def flush(self) -> None:
        self.inner.flush()

    def fileno(self) -> int:
        return self.inner.fileno()


def _server_pid(timeout: float) -> int:
    """The `toadstool serve` process that bench/load.py started as our child."""
    deadline = time.monotonic() + timeout
    me = str(os.getpid())
    while time.monotonic() < deadline:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                command = (entry / "cmdline").read_bytes().split(b"\0")
                if stat[1] == me and b"toadstool.cli" in command and b"serve" in command and b"--port" in command:
                    return int(entry.name)
        time.sleep(0.05)
    raise TimeoutError("no `toadstool serve` child appeared")


def _user_system(pid: int) -> tuple[float, float]:
    """User and system (kernel: sockets, the disk) CPU seconds a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS


def profile(
    tables: int,
    seconds: float,
    native: bool,
    out: Path,
    spy: str,
    rate: int = 250,
    transport: str = "grpc",
    phase: str = "saturated",
) -> dict[str, Any]:
    """Run the people-acting load once, over `transport`, with py-spy sampling the server in `phase`."""
    budget = load.Budget(tables=(tables,), windows=1, window=seconds, workers=2, setup_timeout=240.0)
    raw = out / "move-profile.txt"
    out.mkdir(parents=True, exist_ok=True)
    watch = _SetUpWatch(sys.stderr)
    result: dict[str, Any] = {}

    def sample() -> None:
        pid = _server_pid(60.0)
        if not watch.set_up.wait(budget.setup_timeout):
            return
        # bench/load.py starts the phases 0.3 + 0.5 s after set-up; the paced phase lasts one window.
        time.sleep(0.8 + 0.2 + (seconds + load.GAP if phase == "saturated" else 0.0))
        command = [spy, "record", "--pid", str(pid), "--rate", str(rate), "--format", "raw", "--output", str(raw)]
        command += ["--duration", str(max(1, int(seconds - 0.5)))]
        # Native unwinding has to pause the server at each sample; Python frames alone need not.
        command.append("--native" if native else "--nonblocking")
        before = _user_system(pid)
        done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60, check=False)
        after = _user_system(pid)
        result["spy"] = done.returncode, done.stderr[-2000:]
        result["user_s"], result["system_s"] = after[0] - before[0], after[1] - before[1]

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    saved, sys.stderr = sys.stderr, watch
    try:
        point = load.summarise(load.run_point(TARGETS[transport], tables, budget, 0, "temp"))
    finally:
        sys.stderr = saved
    sampler.join(seconds + 90)
    if "spy" not in result or result["spy"][0] != 0:
        raise RuntimeError(f"py-spy failed: {result.get('spy')}")
    counts = classify(raw.read_text())
    sampled = point[phase]
    return {
        "tables": tables,
        "phase": phase,
        "counts": counts,
        "cpu_ms_per_move": sampled["cpu_ms_per_action"]["median"],
        "moves_per_s": sampled["actions_per_s"]["median"],
        "views_per_s": sampled["views_per_s"]["median"],
        "latency_p99_ms": sampled["latency_p99_ms"]["median"],
        "raw": str(raw),
        "user_s": result["user_s"],
        "system_s": result["system_s"],
    }


def print_table(figures: dict[str, Any]) -> None:
    counts: dict[str, int] = figures["counts"]
    total = sum(counts.values()) or 1
    per_move = figures["cpu_ms_per_move"]
    print(
        f"{figures['tables']} tables, {figures['phase']}: {figures['moves_per_s']:,.0f} moves/s,"
        f" {figures['views_per_s']:,.0f} views/s, act-to-view p99 {figures['latency_p99_ms']:.1f} ms,"
        f" server CPU {per_move:.3f} ms per move; {total} samples;"
        f" the server's CPU was {figures['system_s'] / max(1e-9, figures['user_s'] + figures['system_s']):.0%}"
        " in the kernel (sockets, the disk: in the share of the Python line that called it)"
    )
    print("| share | of the server's CPU | ms per move | what it covers |")
    print("|---|---|---|---|")
    covers = {name: what for name, what, _ in SHARES} | {OTHER: "everything else (the GC, logging, the clock...)"}
    for name, count in sorted(counts.items(), key=lambda kv: -kv[1]):
        share = count / total
        print(f"| {name} | {share:.1%} | {share * per_move:.3f} | {covers[name]} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument(
        "--transport", choices=tuple(TARGETS), default="grpc", help="the people's transport (connect: the browser's)"
    )
    parser.add_argument("--phase", choices=("saturated", "paced"), default="saturated", help="the phase py-spy samples")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase (py-spy samples one)")
    parser.add_argument("--native", action="store_true", help="also unwind C frames (gRPC core, upb, SQLite)")
    parser.add_argument("--rate", type=int, default=250, help="samples a second (lower it with --native)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--py-spy", default=shutil.which("py-spy") or "py-spy", help="the py-spy program")
    args = parser.parse_args(argv)
    figures = profile(
        args.tables, args.seconds, args.native, args.out, args.py_spy, args.rate, args.transport, args.phase
    )
    print_table(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
