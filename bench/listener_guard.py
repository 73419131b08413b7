"""What the accept-loop guard costs the server: server CPU per unary call and per streamed message, with the
guard (`toadstool.listener.Listener`) and without it (the same grpc.aio server started directly), as ratios
measured in the same run.

Usage: ``python bench/listener_guard.py [--quick | --smoke] [--plot] [--pairs N] [--out DIR]``

The guard (server/toadstool/listener.py) is an asyncio task factory installed for the whole life of the
gRPC server: every task the process creates goes through a Python function that looks up its coroutine's
``__qualname__``, and each of grpcio's per-call "request call" tasks is wrapped in a second, shielded task
(so one extra Task per incoming RPC). This benchmark prices that. Each pair of runs has fresh processes:

- two servers (``--role server``, a process each): a minimal grpc.aio server with one generic unary-unary
  handler that echoes its request bytes and one unary-stream handler that sends N messages (N is the
  request). Guard on: started through the project's real `Listener`; guard off: the same build function,
  then ``add_insecure_port`` and ``start()``. Each prints its port (and whether the guard is in place) and
  serves until its stdin closes or its time bound passes.
- one client (``--role client``, a process of its own, one channel to each server): warms both up (unary
  calls and a stream, which also sizes the measured streams to about a slice), then runs the slices the
  conductor names, one at a time: closed-loop unary calls with 32 in flight for a fixed number of seconds
  (every call answered before it reports), or one stream of many messages; it prints the counts.
- the conductor alternates the slices between the servers, guard off, guard on, off, on... (all the unary
  slices, then all the stream slices), and reads the measured server's CPU time (user + system, every
  thread, from /proc) just before and just after each slice, while the other server is idle, so that each
  figure covers exactly the calls or messages counted. Short alternating slices rather than one long run
  per side: the machine's other work then weighs on both sides alike. An idle server uses no CPU, so a
  side's slices add up to its CPU over the whole phase: /proc's 10 ms ticks blur a phase, not each slice.

Each pair (default 3) gives a ratio guard/no-guard of server CPU per call and per message; the figures are
the median [min..max] of those ratios. Also measured, in the conductor: the task factory alone, with no
gRPC (the three tasks grpcio creates per call, through the real `AcceptLoopGuard` or with no factory): the
guard's own µs per RPC, free of the network's noise, and a lower bound (in a server, the extra task's steps
go through a busier event loop). ``--same`` runs both servers without the guard: an A/A run, whose ratios
show the harness's own noise and bias. The minimal server has no interceptors and no game, so the guard's
share of a real Toadstool call is smaller than the ratio here (the µs it adds are the same).

Not for: asserting speed (tests/test_bench_smoke.py only checks the output shape), or the server as a whole
(bench/load.py). Everything binds 127.0.0.1 only; every process is bounded by time and stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import RESULTS, cpu_seconds, final_json, fmt, fmt_spread, machine, ratio, spread, write_csv

HOST = "127.0.0.1"
SERVICE = "bench.GuardEcho"
UNARY = f"/{SERVICE}/Echo"
STREAM = f"/{SERVICE}/Many"
SIDES = ("off", "on")
#: Bytes of each request and each streamed message (set from --size, in every role).
SIZE = 64
#: A stream long enough never to end by itself while the client sizes the measured one.
ENDLESS = 1 << 40


@dataclass(frozen=True)
class Budget:
    """Pairs of servers; per pair the warm-up, the slices per phase and the seconds of each slice (unary calls;
    about, for the stream, whose length is sized from the warm-up). Then the in-process check of the task
    factory alone: RPCs per repetition and repetitions."""

    pairs: int
    warm: float
    slices: int
    unary: float
    stream: float
    micro_rpcs: int = 5_000
    micro_repetitions: int = 9


BUDGETS = {
    "full": Budget(pairs=3, warm=1.0, slices=10, unary=0.6, stream=0.4),
    "quick": Budget(pairs=2, warm=0.5, slices=4, unary=0.6, stream=0.4, micro_rpcs=5_000, micro_repetitions=5),
    "smoke": Budget(pairs=1, warm=0.2, slices=1, unary=1.0, stream=1.0, micro_rpcs=1_000, micro_repetitions=1),
}
#: Seconds a process may take to start (imports, binding) and to answer the conductor beyond its phases.
SLACK = 30.0
#: Seconds the conductor waits after a slice before reading the server's CPU (the call's last cleanup).
SETTLE = 0.02


# ----------------------------------------------------------------------------------------------------------
# The server


def server_main(guard: bool, max_seconds: float) -> int:
    """Serve the two handlers, guarded by `Listener` or not; print one JSON line (port and whether the guard is
    in place); stop when stdin closes or after `max_seconds`."""
    signal.alarm(int(max_seconds + SLACK))  # the hard bound, should the graceful one below ever hang
    import grpc

    from toadstool.server.listener import Listener

    async def echo(request: bytes, context: Any) -> bytes:
        return request

    async def many(request: bytes, context: Any) -> Any:
        message = b"m" * SIZE
        for _ in range(int(request)):
            yield message

    def build() -> grpc.aio.Server:
        server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
        handler = grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "Echo": grpc.unary_unary_rpc_method_handler(echo),
                "Many": grpc.unary_stream_rpc_method_handler(many),
            },
        )
        server.add_generic_rpc_handlers((handler,))
        return server

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        closed = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, closed.set)

        def readable() -> None:
            if not os.read(sys.stdin.fileno(), 4096):
                loop.remove_reader(sys.stdin.fileno())
                closed.set()

        loop.add_reader(sys.stdin.fileno(), readable)
        listener: Listener | None = None
        if guard:
            listener = Listener(build, HOST, None)
            port = await listener.start(0)
            guarded = listener._guard is not None and listener._guard.found  # private: no other way to tell
        else:
            server = build()
            port = server.add_insecure_port(f"{HOST}:0")
            if port == 0:
                raise OSError(f"cannot listen on {HOST}")
            await server.start()
            guarded = False
        ready = {"port": port, "task_factory": loop.get_task_factory() is not None, "accept_loop_guarded": guarded}
        print(json.dumps(ready), flush=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(closed.wait(), max_seconds)
        if listener is not None:
            await listener.stop(0.5)
        else:
            await server.stop(0.5)

    asyncio.run(serve())
    return 0


# ----------------------------------------------------------------------------------------------------------
# The client


def client_main(addresses: dict[str, str], concurrency: int, budget: Budget, max_seconds: float) -> int:
    """Warm up against both servers and say ready; then run each slice the conductor names on stdin ("unary
    off", "stream on", ...) and print its counts as one JSON line; stop at "quit" or when stdin closes."""
    signal.alarm(int(max_seconds))
    import grpc

    def say(figures: dict[str, Any]) -> None:
        print(json.dumps(figures), flush=True)

    async def go() -> None:
        loop = asyncio.get_running_loop()
        channels = {side: grpc.aio.insecure_channel(address) for side, address in addresses.items()}
        try:
            for channel in channels.values():
                await asyncio.wait_for(channel.channel_ready(), SLACK)
            echo = {side: channel.unary_unary(UNARY) for side, channel in channels.items()}
            many = {side: channel.unary_stream(STREAM) for side, channel in channels.items()}
            payload = b"p" * SIZE

            async def unary(side: str, seconds: float) -> dict[str, Any]:
                """Closed loop: `concurrency` callers, each sending its next call when the last one is answered."""
                call, calls, errors = echo[side], 0, 0
                started = time.perf_counter()
                end = started + seconds

                async def caller() -> None:
                    nonlocal calls, errors
                    while time.perf_counter() < end:
                        try:
                            await call(payload, timeout=10)
                            calls += 1
                        except grpc.aio.AioRpcError:
                            errors += 1

                await asyncio.gather(*(caller() for _ in range(concurrency)))
                return {"calls": calls, "errors": errors, "seconds": time.perf_counter() - started}

            async def stream(side: str, count: int) -> dict[str, Any]:
                messages, started = 0, time.perf_counter()
                async for _ in many[side](str(count).encode(), timeout=max_seconds):
                    messages += 1
                return {"messages": messages, "seconds": time.perf_counter() - started}

            # Warm up, and size the measured streams from how fast an endless one flows (then cancelled).
            rates = {}
            for side in channels:
                await unary(side, budget.warm)
                call = many[side](str(ENDLESS).encode())
                sizing, started = 0, time.perf_counter()
                async for _ in call:
                    sizing += 1
                    if time.perf_counter() - started >= budget.warm:
                        break
                rates[side] = sizing / (time.perf_counter() - started)
                call.cancel()
            # The same length on both sides, so that both pay the same per-stream cost per message.
            count = max(1000, int(sum(rates.values()) / len(rates) * budget.stream))
            say({"phase": "ready", "stream_rates": rates, "stream_messages": count})
            while True:
                line = await loop.run_in_executor(None, sys.stdin.readline)
                if not line or line.strip() == "quit":
                    break
                phase, side = line.split()
                result = await (unary(side, budget.unary) if phase == "unary" else stream(side, count))
                say({"phase": phase, "side": side, **result})
        finally:
            await asyncio.gather(*(channel.close() for channel in channels.values()), return_exceptions=True)

    asyncio.run(go())
    return 0


# ----------------------------------------------------------------------------------------------------------
# The task factory alone, in process


class AioServer:
    """Named like grpcio's server class, so that the guard takes this coroutine for a request for a call."""

    async def _request_call(self) -> None:
        return None


async def _other() -> None:
    return None


def factory_cost(rpcs: int, repetitions: int) -> dict[str, Any]:
    """The guard's own cost per RPC with no gRPC at all: grpcio creates three tasks per incoming call (the
    request for it, the call's handler and its exception guard), one call after another; create and run as
    many, through the real `AcceptLoopGuard` or with no task factory, alternately; the best (least disturbed)
    repetition of each, in CPU time."""
    from toadstool.server.listener import REQUEST_CALLS, AcceptLoopGuard

    assert "AioServer._request_call" in REQUEST_CALLS

    async def calls(guard: bool) -> float:
        loop = asyncio.get_running_loop()
        installed = AcceptLoopGuard(loop).install() if guard else None
        server = AioServer()
        try:
            started = time.process_time()  # CPU time: the machine's other work does not count
            for _ in range(rpcs):
                await loop.create_task(server._request_call())
                handler = loop.create_task(_other())
                await loop.create_task(_other())
                await handler
            return time.process_time() - started
        finally:
            if installed is not None:
                installed.remove()

    best = {side: float("inf") for side in SIDES}
    for _ in range(repetitions):
        for side in SIDES:
            best[side] = min(best[side], asyncio.run(calls(side == "on")))
    per = {side: best[side] / rpcs * 1e6 for side in SIDES}
    return {"rpcs": rpcs, "repetitions": repetitions, "us_per_rpc": per, "extra_us_per_rpc": per["on"] - per["off"]}


# ----------------------------------------------------------------------------------------------------------
# The conductor


def _die_with_parent() -> None:
    """In a child, before exec: be sent SIGTERM when the conductor dies, however it dies (Linux prctl)."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Child:
    """A role process: its stdout read line by line on a thread, so the conductor can wait with a bound."""

    def __init__(self, command: list[str], stderr: Any) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            preexec_fn=_die_with_parent,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")

    def read(self, timeout: float, what: str) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"{what} said nothing for {timeout:.0f} s") from None
        if not line:
            raise RuntimeError(f"{what} exited ({self.process.wait(5)}) without answering")
        return dict(json.loads(line))

    def tell(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def close(self, grace: float = 10.0) -> None:
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(grace)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                self.process.wait(grace)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def run_pair(pair: int, budget: Budget, concurrency: int, same: bool = False) -> dict[str, dict[str, Any]]:
    """A fresh server of each side and one client: server CPU over each side's unary slices and stream slices,
    the slices alternating between the sides (off, on, off, on, ...). `same`: both servers without the guard
    (an A/A run, to see the harness's own noise and bias)."""
    bound = budget.warm * 4 + (budget.unary + budget.stream * 3) * budget.slices * 2 + SLACK * 2
    me = [sys.executable, __file__, "--size", str(SIZE)]
    with tempfile.TemporaryDirectory(prefix="toadstool-bench-") as state_dir:
        logs = {side: Path(state_dir) / f"server-{side}.log" for side in SIDES}
        servers: dict[str, Child] = {}
        client: Child | None = None
        try:
            for side in SIDES:
                with logs[side].open("w") as log:
                    guard = "off" if same else side
                    servers[side] = Child([*me, "--role", "server", "--guard", guard, "--max-seconds", str(bound)], log)
            ready = {side: servers[side].read(SLACK, f"the guard-{side} server") for side in SIDES}
            command = [*me, "--role", "client", "--concurrency", str(concurrency), "--max-seconds", str(bound)]
            for side in SIDES:
                command += ["--address", f"{side}={HOST}:{ready[side]['port']}"]
            command += ["--warm", str(budget.warm), "--unary", str(budget.unary), "--stream", str(budget.stream)]
            client = Child(command, sys.stderr)
            warmed = client.read(SLACK + budget.warm * 6, "the client")
            time.sleep(0.2)  # the cancelled sizing streams settle
            sums = {side: dict.fromkeys(SUMMED, 0.0) for side in SIDES}
            for phase, seconds in (("unary", budget.unary), ("stream", budget.stream * 3)):
                for _ in range(budget.slices):
                    for side in SIDES:
                        server, total = servers[side].process.pid, sums[side]
                        cpu, client_cpu = cpu_seconds(server), cpu_seconds(client.process.pid)
                        client.tell(f"{phase} {side}")
                        result = client.read(SLACK + seconds, f"the client ({phase}, guard {side})")
                        time.sleep(SETTLE)
                        total[f"server_cpu_{phase}_s"] += cpu_seconds(server) - cpu
                        total[f"client_cpu_{phase}_s"] += cpu_seconds(client.process.pid) - client_cpu
                        total[f"{phase}_seconds"] += result["seconds"]
                        for key in ("calls", "errors") if phase == "unary" else ("messages",):
                            total[key] += result[key]
            client.tell("quit")
        finally:
            if client is not None:
                client.close()
            for server in servers.values():
                server.close()
            for side, path in logs.items():
                errors = path.read_text(errors="replace").strip() if path.exists() else ""
                if errors:
                    print(f"[guard-{side} server stderr]\n{errors[-2000:]}", file=sys.stderr)
    runs = {}
    for side in SIDES:
        t = sums[side]
        calls, messages = int(t["calls"]), int(t["messages"])
        runs[side] = {
            "pair": pair,
            "side": side,
            "task_factory": ready[side]["task_factory"],
            "accept_loop_guarded": ready[side]["accept_loop_guarded"],
            "calls": calls,
            "errors": int(t["errors"]),
            "unary_seconds": t["unary_seconds"],
            "calls_per_s": calls / t["unary_seconds"],
            "server_cpu_unary_s": t["server_cpu_unary_s"],
            "server_us_per_call": t["server_cpu_unary_s"] / calls * 1e6 if calls else float("nan"),
            "server_cores_unary": t["server_cpu_unary_s"] / t["unary_seconds"],
            "client_cores_unary": t["client_cpu_unary_s"] / t["unary_seconds"],
            "messages": messages,
            "streams": budget.slices,
            "stream_seconds": t["stream_seconds"],
            "messages_per_s": messages / t["stream_seconds"],
            "server_cpu_stream_s": t["server_cpu_stream_s"],
            "server_us_per_message": t["server_cpu_stream_s"] / messages * 1e6 if messages else float("nan"),
            "server_cores_stream": t["server_cpu_stream_s"] / t["stream_seconds"],
            "client_cores_stream": t["client_cpu_stream_s"] / t["stream_seconds"],
            "warm_stream_rate": warmed["stream_rates"][side],
        }
    return runs


#: What run_pair adds up over a side's slices.
SUMMED = (
    "calls",
    "errors",
    "messages",
    "unary_seconds",
    "stream_seconds",
    "server_cpu_unary_s",
    "server_cpu_stream_s",
    "client_cpu_unary_s",
    "client_cpu_stream_s",
)


def print_run(pair: int, run: dict[str, Any]) -> None:
    print(
        f"  pair {pair} guard {run['side']:>3}: {fmt(run['calls'])} calls ({fmt(run['calls_per_s'])}/s,"
        f" server {run['server_cores_unary']:.2f} cores, client {run['client_cores_unary']:.2f}):"
        f" {run['server_us_per_call']:.2f} µs/call | {fmt(run['messages'])} messages"
        f" ({fmt(run['messages_per_s'])}/s, server {run['server_cores_stream']:.2f} cores):"
        f" {run['server_us_per_message']:.3f} µs/message",
        flush=True,
    )


def plot(pairs: list[dict[str, Any]], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    xs = [p["pair"] for p in pairs]
    ax.plot(xs, [p["unary_ratio"] for p in pairs], "o-", label="server CPU per unary call")
    ax.plot(xs, [p["message_ratio"] for p in pairs], "s-", label="server CPU per streamed message")
    ax.axhline(1.0, color="gray", linewidth=0.8)
    ax.set_xticks(xs)
    ax.set_xlabel("pair of servers (guard off, guard on)")
    ax.set_ylabel("guard on / guard off")
    ax.set_title("Cost of the accept-loop guard (Listener) on a minimal grpc.aio server", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def conduct(args: argparse.Namespace) -> int:
    mode = "smoke" if args.smoke else "quick" if args.quick else "full"
    budget = BUDGETS[mode]
    if args.pairs:
        budget = dataclasses.replace(budget, pairs=args.pairs)
    started = time.monotonic()
    print(
        f"Accept-loop guard: {budget.pairs} pairs of servers (guard off, guard on), each side {budget.slices} slices"
        f" of {budget.unary:g} s of unary calls ({args.concurrency} in flight), then {budget.slices} streams of"
        f" ~{budget.stream:g} s, slices alternating off/on; {SIZE}-byte messages",
        flush=True,
    )
    micro = factory_cost(budget.micro_rpcs, budget.micro_repetitions)
    print(
        f"  in process, the task factory alone (3 tasks per RPC, best of {micro['repetitions']}):"
        f" {micro['us_per_rpc']['off']:.2f} µs per RPC without it, {micro['us_per_rpc']['on']:.2f} with it:"
        f" {micro['extra_us_per_rpc']:+.2f} µs",
        flush=True,
    )
    runs: list[dict[str, Any]] = []
    pairs: list[dict[str, Any]] = []
    for pair in range(1, budget.pairs + 1):
        sides = run_pair(pair, budget, args.concurrency, args.same)
        for side in SIDES:
            print_run(pair, sides[side])
            runs.append(sides[side])
        off, on = sides["off"], sides["on"]
        point = {
            "pair": pair,
            "unary_ratio": ratio(on["server_us_per_call"], off["server_us_per_call"]),
            "message_ratio": ratio(on["server_us_per_message"], off["server_us_per_message"]),
            "extra_us_per_call": on["server_us_per_call"] - off["server_us_per_call"],
            "extra_us_per_message": on["server_us_per_message"] - off["server_us_per_message"],
            "calls_per_s_ratio": ratio(on["calls_per_s"], off["calls_per_s"]),
        }
        pairs.append(point)
        print(
            f"  pair {pair} ratio guard/no-guard: {point['unary_ratio']:.3f} per unary call"
            f" ({point['extra_us_per_call']:+.2f} µs), {point['message_ratio']:.3f} per message"
            f" ({point['extra_us_per_message']:+.3f} µs)",
            flush=True,
        )

    def of(side: str, key: str) -> dict[str, float]:
        return spread([r[key] for r in runs if r["side"] == side])

    summary = {
        "unary_ratio": spread([p["unary_ratio"] for p in pairs]),
        "message_ratio": spread([p["message_ratio"] for p in pairs]),
        "extra_us_per_call": spread([p["extra_us_per_call"] for p in pairs]),
        "extra_us_per_message": spread([p["extra_us_per_message"] for p in pairs]),
        "calls_per_s_ratio": spread([p["calls_per_s_ratio"] for p in pairs]),
        "us_per_call": {side: of(side, "server_us_per_call") for side in SIDES},
        "us_per_message": {side: of(side, "server_us_per_message") for side in SIDES},
        "calls_per_s": {side: of(side, "calls_per_s") for side in SIDES},
        "messages_per_s": {side: of(side, "messages_per_s") for side in SIDES},
    }
    # The comparison means something only if the guard was in place on one side and absent on the other.
    guard_checked = all(r["task_factory"] == (r["side"] == "on" and not args.same) for r in runs)
    accept_loop_guarded = all(r["accept_loop_guarded"] for r in runs if r["side"] == "on") and not args.same
    print("\nServer CPU, median [min..max] over runs:")
    for side in SIDES:
        print(
            f"  guard {side:>3}: {fmt_spread(summary['us_per_call'][side], 2)} µs per unary call,"
            f" {fmt_spread(summary['us_per_message'][side], 3)} µs per streamed message"
        )
    print(
        f"Ratio guard/no-guard, median [min..max] over {budget.pairs} pairs:"
        f" per unary call {fmt_spread(summary['unary_ratio'], 3)}"
        f" ({fmt_spread(summary['extra_us_per_call'], 2)} µs more),"
        f" per streamed message {fmt_spread(summary['message_ratio'], 3)}"
    )
    if args.same:
        print("(--same: both servers ran without the guard; the ratios show the harness's own noise)")
    elif not guard_checked or not accept_loop_guarded:
        print("WARNING: the guard was not in place as expected; the ratios do not measure it", file=sys.stderr)
    rows = [
        {
            "pair": r["pair"],
            "guard": r["side"],
            "calls": r["calls"],
            "errors": r["errors"],
            "calls_per_s": round(r["calls_per_s"], 1),
            "server_us_per_call": round(r["server_us_per_call"], 3),
            "server_cores_unary": round(r["server_cores_unary"], 3),
            "messages": r["messages"],
            "messages_per_s": round(r["messages_per_s"], 1),
            "server_us_per_message": round(r["server_us_per_message"], 4),
            "server_cores_stream": round(r["server_cores_stream"], 3),
            "unary_ratio_vs_off": round(pairs[r["pair"] - 1]["unary_ratio"], 4) if r["side"] == "on" else "",
            "message_ratio_vs_off": round(pairs[r["pair"] - 1]["message_ratio"], 4) if r["side"] == "on" else "",
        }
        for r in runs
    ]
    csv_path = write_csv(args.out / "listener_guard.csv", rows)
    print(f"\nCSV: {csv_path}")
    figures: dict[str, Any] = {
        "benchmark": "listener_guard",
        "mode": mode,
        "machine": machine(),
        "budget": {
            "pairs": budget.pairs,
            "warm": budget.warm,
            "slices": budget.slices,
            "unary": budget.unary,
            "stream": budget.stream,
        },
        "same": args.same,
        "concurrency": args.concurrency,
        "size": SIZE,
        "guard_checked": guard_checked,
        "accept_loop_guarded": accept_loop_guarded,
        "runs": runs,
        "pairs": pairs,
        "factory_alone": micro,
        **summary,
        "wall_seconds": round(time.monotonic() - started, 1),
        "csv": str(csv_path),
    }
    if args.plot:
        figures["png"] = str(plot(pairs, args.out / "listener_guard.png"))
        print(f"PNG: {figures['png']}")
    final_json(figures)
    return 0


def main(argv: list[str] | None = None) -> int:
    global SIZE
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="2 pairs, short slices (about 30 s)")
    mode.add_argument("--smoke", action="store_true", help="1 pair, one ~1 s slice per phase: checks the harness only")
    parser.add_argument("--pairs", type=int, help="pairs of servers, guard off and on (default by mode)")
    parser.add_argument("--concurrency", type=int, default=32, help="unary calls in flight (default 32)")
    parser.add_argument("--size", type=int, default=SIZE, help="bytes per request and streamed message")
    parser.add_argument(
        "--same", action="store_true", help="an A/A run: both servers without the guard (the harness's own noise)"
    )
    parser.add_argument("--plot", action="store_true", help="also write a PNG chart")
    parser.add_argument("--out", type=Path, default=RESULTS, help="directory for the CSV and PNG")
    parser.add_argument(
        "--role", choices=("conductor", "server", "client"), default="conductor", help=argparse.SUPPRESS
    )
    parser.add_argument("--guard", choices=SIDES, default="on", help=argparse.SUPPRESS)
    parser.add_argument("--address", action="append", default=[], help=argparse.SUPPRESS)
    parser.add_argument("--max-seconds", type=float, default=120.0, help=argparse.SUPPRESS)
    parser.add_argument("--warm", type=float, default=1.0, help=argparse.SUPPRESS)
    parser.add_argument("--unary", type=float, default=5.0, help=argparse.SUPPRESS)
    parser.add_argument("--stream", type=float, default=3.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    SIZE = args.size
    if args.role == "server":
        return server_main(args.guard == "on", args.max_seconds)
    if args.role == "client":
        budget = Budget(pairs=1, warm=args.warm, slices=1, unary=args.unary, stream=args.stream)
        addresses = dict(a.split("=", 1) for a in args.address)
        return client_main(addresses, args.concurrency, budget, args.max_seconds)
    return conduct(args)


if __name__ == "__main__":
    raise SystemExit(main())
