"""Toadstool beside boardgame.io: the same people-acting load against both servers, run alternately, compared
pair by pair (issue #24).

Usage: ``python bench/peers.py [--quick] [--tables 10,100,250] [--pairs N] [--workers N]
[--transports grpc,play,connect,socket] [--out DIR]``

Why: a person choosing a server compares it with its peers, so the comparison must be one anyone can run
again. Side A is bench/load.py's "people acting" mode, unchanged (`load.run_point("toadstool", ...)`: a
real `toadstool serve` with its SQLite log, 4-seat UNO tables, one gRPC channel per seat, the seat to act
choosing from its own view). Side B is the same over the browser's transport, each seat's Watch and Acts
on one WebSocket (the same server and service; `load.run_point("socket", ...)`; `--transports` adds
"connect", Connect on HTTP/1.1 with one connection for a seat's Watch and one for its Acts, the browser's
fallback). Side C is a boardgame.io 0.50 server
(bench/peers/server.js: Koa + socket.io, a simplified UNO whose `playerView` hides the hands and the deck,
its default in-memory storage) under boardgame.io's own client (bench/peers/load.js: one socket.io
connection per seat, the same phases, windows and counting as bench/load.py's workers). Server CPU comes
from /proc on every side.

For each table count the sides run A B C A B C ... (`--pairs` rounds), each run with a fresh server and
fresh load processes, so slow drifts of the machine's other load fall on every side alike. Every round
gives ratios of each Toadstool side / boardgame.io (saturated views/s: above 1 is better for Toadstool;
server CPU per move, paced p99 act-to-view latency, server RSS per client, bytes per update: below 1 is),
printed per round and as median [min..max] over the rounds, with the other load on the machine during each
run: the load average and the cores busy with processes other than the benchmark's own (/proc/stat less
our processes' CPU).

Needs node (18 or newer) and `npm ci --prefix bench/peers`. Not for asserting speed: the test checks the
output's shape only. Everything binds 127.0.0.1; every process is bounded by time and stopped at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import subprocess
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import load
from children import die_with_parent, start_load_process
from common import (
    RESULTS,
    Figure,
    cpu_seconds,
    final_json,
    fmt,
    machine,
    other_load,
    percentile,
    print_ratio_spreads,
    rss_bytes,
    run_pairs,
    write_csv,
)

PEERS = Path(__file__).resolve().parent / "peers"
HOST = load.HOST
SEATS = load.SEATS

#: Table counts, windows and seconds per window, load processes, setup limit; and pairs per table count.
BUDGETS = {
    "full": (load.Budget(tables=(10, 100, 250), windows=3, window=4.0, workers=2), 3),
    # A smoke test of the harness: a few seconds a side, well under a minute in all.
    "quick": (load.Budget(tables=(3,), windows=1, window=1.5, workers=1, setup_timeout=30.0), 2),
}
#: Toadstool's sides, by transport (`--transports`): bench/load.py's target for each. All are the same
#: server and the same service; "connect" is the browser's transport (Connect over HTTP/1.1, binary
#: protobuf, served by uvicorn on the server's event loop), its seats driven by bench/raw_http.py, and
#: "socket" each seat's Watch and Acts on one WebSocket (toadstool.server.web_socket), what the browser's
#: table screen uses (Connect is its fallback); "play" each seat's Watch and Acts on one gRPC Play stream
#: (what the terminal and Tk clients use).
TOADSTOOL_SIDES = {
    "grpc": ("toadstool", "toadstool"),
    "play": ("toadstool/play", "play"),
    "connect": ("toadstool/connect", "connect-raw"),
    "socket": ("toadstool/socket", "socket"),
}
PEER = "boardgame.io"


# ----------------------------------------------------------------------------------------------------------
# Side B: the boardgame.io server and its Node load processes


def node() -> str:
    """The node program, and a clear error when it or the npm packages are missing."""
    found = shutil.which("node")
    if not found:
        raise SystemExit("bench/peers.py needs Node.js 18 or newer (`node` is not on PATH)")
    if not (PEERS / "node_modules" / "boardgame.io").is_dir():
        raise SystemExit("bench/peers.py needs its npm packages: npm ci --prefix bench/peers")
    return found


def _wait_ready(process: subprocess.Popen[str], timeout: float) -> None:
    line = load._read_line(process, timeout)
    if "ready" not in line:
        raise RuntimeError(f"the boardgame.io server said {line!r} instead of ready")


def run_peer_point(tables: int, budget: load.Budget) -> dict[str, Any]:
    """One boardgame.io server, its load processes, both phases: the raw per-window figures of one table
    count, in the shape of bench/load.py's run_point (so that load.summarise reads both sides alike)."""
    port = load.free_port()
    server = subprocess.Popen(
        [node(), str(PEERS / "server.js"), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=sys.stderr,
        text=True,
        cwd=PEERS,
        preexec_fn=die_with_parent,
    )
    workers: list[subprocess.Popen[str]] = []
    try:
        _wait_ready(server, 30.0)
        load.wait_for_port(port, server)  # type: ignore[arg-type]
        time.sleep(0.5)
        rss_idle = rss_bytes(server.pid)
        shares = [tables // budget.workers + (1 if i < tables % budget.workers else 0) for i in range(budget.workers)]
        for index, share in enumerate(s for s in shares if s):
            command = [node(), str(PEERS / "load.js"), "--server", f"http://{HOST}:{port}"]
            command += ["--tables", str(share), "--seed", str(index + 1)]
            workers.append(start_load_process(command, cwd=PEERS))
        setup_started = time.monotonic()
        for worker in workers:
            line = load._read_line(worker, budget.setup_timeout - (time.monotonic() - setup_started))
            if line.strip() != "READY":
                raise RuntimeError(f"a boardgame.io load process failed to set up: {line!r}")
        setup_seconds = time.monotonic() - setup_started
        print(f"  (boardgame.io: {tables} tables set up in {setup_seconds:.1f} s)", file=sys.stderr, flush=True)
        time.sleep(0.3)
        rss_ready = rss_bytes(server.pid)
        start_at = time.time() + 0.5
        order = {"paced_windows": budget.windows, "windows": budget.windows, "window": budget.window}
        order["start_at"] = start_at
        for worker in workers:
            assert worker.stdin is not None
            worker.stdin.write(json.dumps(order) + "\n")
            worker.stdin.flush()
        # Server CPU at every window boundary, on the workers' schedule (as bench/load.py does).
        marks = [start_at + i * budget.window for i in range(budget.windows + 1)]
        saturated_at = marks[-1] + load.GAP
        marks += [saturated_at + i * budget.window for i in range(budget.windows + 1)]
        cpu: list[float] = []
        client_cpu: list[float] = []
        for mark in marks:
            time.sleep(max(0.0, mark - time.time()))
            cpu.append(cpu_seconds(server.pid))
            client_cpu.append(sum(cpu_seconds(w.pid) for w in workers))
        results = [json.loads(load._read_line(worker, 30.0 + load.GAP * 2)) for worker in workers]
        rss_end = rss_bytes(server.pid)
    finally:
        for worker in workers:
            with contextlib.suppress(OSError):
                if worker.stdin is not None:
                    worker.stdin.close()
            load.stop(worker, 15.0)
        load.stop(server)
    n = budget.windows
    cpu_windows, client_windows = _phase_windows(cpu, n), _phase_windows(client_cpu, n)
    phases = {
        phase: _merge(results, phase, cpu_windows[phase], client_windows[phase]) for phase in ("paced", "saturated")
    }
    viewers = tables * SEATS
    return {
        "target": "boardgame.io",
        "tables": tables,
        "viewers": viewers,
        "setup_seconds": setup_seconds,
        "rss_idle": rss_idle,
        "rss_ready": rss_ready,
        "rss_end": rss_end,
        "memory_per_viewer": (rss_ready - rss_idle) / viewers,
        "window": budget.window,
        **phases,
    }


def _phase_windows(marks: list[float], n: int) -> dict[str, list[float]]:
    """CPU seconds per window of each phase, from a CPU reading at every mark (n windows a phase; the gap
    between the phases has a mark at each end and belongs to neither)."""
    return {
        "paced": [marks[i + 1] - marks[i] for i in range(n)],
        "saturated": [marks[n + 2 + i] - marks[n + 1 + i] for i in range(n)],
    }


def _number(value: Any) -> float:
    """JSON has no NaN: Node writes an empty window's percentile as null."""
    return float("nan") if value is None else float(value)


def _merge(
    results: list[dict[str, Any]], phase: str, cpu_windows: list[float], client_windows: list[float]
) -> list[dict[str, Any]]:
    """The load processes' windows added up, with the server's and the load processes' CPU of each window
    (bench/load.py's merge)."""
    merged = []
    for i, (server_cpu, client_cpu) in enumerate(zip(cpu_windows, client_windows, strict=True)):
        windows = [r[phase][i] for r in results]
        latencies = sorted(x for w in windows for x in w["latencies_sample"])
        accepted = sum(w["accepted"] for w in windows)
        messages = sum(w["messages"] for w in windows)
        p99s = [_number(w["latency_p99"]) for w in windows if w["latency_p99"] is not None]
        merged.append(
            {
                "accepted": accepted,
                "refused": sum(w["refused"] for w in windows),
                "messages": messages,
                "bytes": sum(w["bytes"] for w in windows),
                "latency_p50": percentile(latencies, 0.5),
                "latency_p99": max(p99s) if p99s else float("nan"),
                "latency_count": sum(w["latency_count"] for w in windows),
                "server_cpu": server_cpu,
                "cpu_per_action": server_cpu / accepted if accepted else float("nan"),
                "cpu_per_view": server_cpu / messages if messages else float("nan"),
                "client_cpu": client_cpu,
            }
        )
    return merged


# ----------------------------------------------------------------------------------------------------------
# The conductor: A B A B, ratios per pair


#: (name, what it is, the figure of a summary, True when above 1 is better for Toadstool)
FIGURES: tuple[Figure, ...] = (
    ("views_per_s", "saturated views/s", lambda s: s["saturated"]["views_per_s"]["median"], True),
    ("cpu_ms_per_move", "server CPU per move", lambda s: s["saturated"]["cpu_ms_per_action"]["median"], False),
    ("paced_p99_ms", "paced p99", lambda s: s["paced"]["latency_p99_ms"]["median"], False),
    ("rss_kib_per_client", "server RSS per client", lambda s: s["memory_per_viewer_kib"], False),
    ("bytes_per_update", "bytes per update", lambda s: s["saturated"]["mean_message_bytes"], False),
)


def run_side(side: str, tables: int, budget: load.Budget, store: str) -> dict[str, Any]:
    """One run of one side, its summary and the other load on the machine while it ran."""
    targets = dict(TOADSTOOL_SIDES.values())
    with other_load() as record:
        if side in targets:
            point = load.run_point(targets[side], tables, budget, 0, store)
        else:
            point = run_peer_point(tables, budget)
    summary = load.summarise(point)
    summary["other_load"] = record
    return summary


def _side_line(side: str, s: dict[str, Any]) -> str:
    q, o = s["saturated"], s["other_load"]
    # On a machine of few cores the load processes share it with the server: when the two fill it, views/s
    # measures both, and this says how much of it each had.
    clients = q["client_cpu_us_per_view"]["median"] * q["views_per_s"]["median"] / 1e6
    return (
        f"    {side:<17} {fmt(q['views_per_s']['median']):>7} views/s, {fmt(q['cpu_ms_per_action']['median'], 3)}"
        f" ms CPU/move, paced p99 {fmt(s['paced']['latency_p99_ms']['median'], 1)} ms,"
        f" {fmt(s['memory_per_viewer_kib'], 1)} KiB/client, {fmt(q['mean_message_bytes'])} B/update"
        f" | saturated: server {fmt(q['server_cpu_share']['median'], 2)} cores, load processes"
        f" {fmt(clients, 2)} cores ({fmt(q['client_cpu_us_per_view']['median'], 1)} µs/view)"
        f" | other load: {o['other_cores_busy']:.2f} cores busy, loadavg {o['loadavg_before']:.2f}"
        f"->{o['loadavg_after']:.2f} (this run: {o['own_cores_busy']:.2f} cores)"
    )


def _row(side: str, s: dict[str, Any]) -> dict[str, Any]:
    """A run's CSV columns after its figures."""
    return {
        "saturated_actions_per_s": round(s["saturated"]["actions_per_s"]["median"], 1),
        "refused": s["saturated"]["refused"] + s["paced"]["refused"],
        "other_cores_busy": s["other_load"]["other_cores_busy"],
        "own_cores_busy": s["other_load"]["own_cores_busy"],
        "loadavg": s["other_load"]["loadavg_before"],
    }


def conduct(args: argparse.Namespace) -> int:
    node()
    mode = "quick" if args.quick else "full"
    budget, pairs = BUDGETS[mode]
    if args.tables:
        budget = load.Budget(
            tuple(int(t) for t in args.tables.split(",")), budget.windows, budget.window, budget.workers, 240.0
        )
    if args.workers:
        budget = load.Budget(budget.tables, budget.windows, budget.window, args.workers, budget.setup_timeout)
    pairs = args.pairs or pairs
    ours = [TOADSTOOL_SIDES[t][0] for t in args.transports.split(",")]
    sides = (*ours, PEER)
    started = time.monotonic()
    points: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    for tables in budget.tables:
        order = ", ".join(f"{'ABCDEFG'[i]} = {side}" for i, side in enumerate(sides))
        print(f"{tables} tables x {SEATS} seats, {pairs} pairs, {order}:", flush=True)
        runs, made, spreads = run_pairs(
            sides,
            PEER,
            pairs,
            FIGURES,
            partial(run_side, tables=tables, budget=budget, store=args.server_store),
            side_line=_side_line,
            ratio_name=lambda side: f"ratio {side:<17}",
            row=_row,
            tables=tables,
        )
        rows += made
        print_ratio_spreads(spreads, FIGURES, str, PEER, "Toadstool", lambda value: f"{value:.2f}")
        points.append({"tables": tables, "runs": runs, "ratios": spreads})
    csv_path = write_csv(args.out / "peers.csv", rows)
    print(f"\nCSV: {csv_path}")
    final_json(
        {
            "benchmark": "peers",
            "mode": mode,
            "machine": machine(),
            "budget": {"tables": list(budget.tables), "windows": budget.windows, "window": budget.window},
            "pairs": pairs,
            "sides": list(sides),
            "workers": budget.workers,
            "server_store": args.server_store,
            "points": points,
            "wall_seconds": round(time.monotonic() - started, 1),
            "csv": str(csv_path),
        }
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 tables, 2 pairs, short windows (under a minute)")
    parser.add_argument("--tables", help="comma-separated table counts (default 10,100,250)")
    parser.add_argument("--pairs", type=int, help="A B pairs per table count (default 3; 2 with --quick)")
    parser.add_argument("--workers", type=int, help="load processes per side (default by mode)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="directory for the CSV")
    parser.add_argument(
        "--transports",
        default="grpc,socket",
        help="Toadstool's sides, comma-separated: grpc (one gRPC channel per seat, unary Acts), play (a seat's"
        " Watch and Acts on one gRPC Play stream), socket (the browser's"
        " table screen: a seat's Watch and Acts on one WebSocket) and connect (Connect over HTTP/1.1, the"
        " browser's fallback); each is compared with boardgame.io in the same pairs (default: grpc,socket)",
    )
    parser.add_argument(
        "--server-store",
        choices=("temp", "none"),
        default="temp",
        help="Toadstool's store: temp keeps its SQLite log (as deployed) in a throw-away directory; none: --no-db",
    )
    args = parser.parse_args(argv)
    unknown = set(args.transports.split(",")) - set(TOADSTOOL_SIDES)
    if unknown or not args.transports:
        parser.error(f"--transports takes {', '.join(TOADSTOOL_SIDES)} (comma-separated), not {args.transports!r}")
    return conduct(args)


if __name__ == "__main__":
    raise SystemExit(main())
