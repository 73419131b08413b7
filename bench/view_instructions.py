"""Instructions per move of building every viewer's live message, counted by callgrind (issue #24).

Usage: ``python bench/view_instructions.py [--base DIR ...] [--tables 20] [--rounds 30] [--people]
[--languages en,de]``

Why: on this 2-core shared machine a timed micro-benchmark of the views moves by a third from run to run,
while valgrind's callgrind counts instructions, which are the same for the same code and inputs whatever else
the machine does. Each side runs UNO tables of 4 seats in-process (no network, no store): each round every
table makes its bot's move through the group commit, then each of its 4 seats' live messages is built
(`messages.watch_response`, what a Watch stream sends after a move). A second run makes the same moves and
builds nothing; the difference, divided by the moves, is the views' cost per move. `--languages` gives the
4 viewers their languages in turn (`en,de`: two English and two German viewers at every table, each
language's parts built once per version: docs/design.md §11.4); a side other than English alone needs a tree
that says texts per language. `--base` names folders
holding another version's `server/` tree (as bench/ab_server.py's), measured the same way; the last side is
this working tree's. Needs valgrind (Debian's package). Prints millions of instructions per move per side
and each side's ratio to the first.

With `--people`, the whole in-process path of a person's move instead, as the service runs it: tables of 4
people, each move a person's `Act` (its token, its rate limit, the validation ladder, the group commit), each
seat's `Watch` stream consuming what the service yields (the generators both transports iterate), and the
table's own tasks (bots, clocks) running and woken as in the server. It is counted as the difference between a
run of `--rounds` rounds and one of half as many, divided by the moves between them, so setting up the
tables counts for nothing. No transport and no disk: those are bench/ab_server.py's to measure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _live_messages(
    tables: list[Any], sent: dict[str, list[int]], build: bool, languages: tuple[str, ...] = ("en",)
) -> None:
    """After a round of moves: each table's 4 seats' live messages (`build`), or only what they were sent."""
    from toadstool.server import messages

    for table in tables:
        positions = sent[table.table_id]
        for viewer in range(4):
            if build and languages == ("en",):  # as a tree before languages is called
                messages.watch_response(table, viewer, None, positions[viewer])
            elif build:
                language = languages[viewer % len(languages)]
                messages.watch_response(table, viewer, None, positions[viewer], language)  # type: ignore[call-arg]
            positions[viewer] = len(table.events)


async def play(tables: int, rounds: int, build_views: bool, languages: tuple[str, ...] = ("en",)) -> int:
    """The measured work (run under callgrind by `count`); returns the moves made."""
    from toadstool.server.memory_store import MemoryStore
    from toadstool.server.tables import TableRegistry

    # Bots move only when told to here; the log in memory (both trees since 041995c have it), so no disk
    # is counted and a tree whose registry writes to a store when given none pays the same.
    async with TableRegistry(bot_delay=3600.0, store=MemoryStore()) as registry:
        made = [registry.create("uno", 4, bots=4, seed=seed)[0] for seed in range(tables)]
        await asyncio.sleep(0)
        sent = {table.table_id: [len(table.events)] * 4 for table in made}
        moves = 0
        for _ in range(rounds):
            proposed = []
            for table in made:
                choice = table.bot_choice() if table.state is not None else None
                if choice is None or table.engine.outcome(table.state) is not None:
                    continue
                seat, action = choice
                proposed.append(
                    registry.moves.propose(table, seat, action, table.engine.apply(table.state, seat, action))
                )
            await asyncio.gather(*proposed)
            moves += len(proposed)
            _live_messages(made, sent, build_views, languages)
        return moves


async def play_people(tables: int, rounds: int) -> int:
    """`--people`'s measured work: each move a person's `Act` through the service, each seat's `Watch` stream
    consuming what the service yields (the very generators a transport iterates); returns the moves made."""
    from toadstool.api import SEAT_TOKEN_KEY
    from toadstool.api.v1 import service_pb2
    from toadstool.server.limits import Limits
    from toadstool.server.memory_store import MemoryStore
    from toadstool.server.service import ToadstoolService
    from toadstool.server.tables import Status, TableRegistry
    from toadstool.server.tables.action_ids import id_of
    from toadstool.server.web_transport import WebAbort, WebContext

    received = [0]  # messages the streams were sent, all told

    async def watch(context: WebContext, table_id: str) -> None:
        with contextlib.suppress(WebAbort):
            async for _message in service.Watch(service_pb2.WatchRequest(table_id=table_id), context):
                received[0] += 1

    async with TableRegistry(bot_delay=3600.0, store=MemoryStore()) as registry:
        service = ToadstoolService(registry, Limits(actions_per_second=1e9, action_burst=10**9))
        made, contexts, streams = [], {}, []
        for seed in range(tables):
            table, _ = registry.create("uno", 4, seed=seed)
            for seat in range(4):
                _, token = table.join(f"Person {seat + 1}", seat)
                context = WebContext({SEAT_TOKEN_KEY: token}, f"ipv4:127.0.0.{seat + 1}:{seed + 1000}")
                contexts[table.table_id, seat] = context
                streams.append(asyncio.ensure_future(watch(context, table.table_id)))
            made.append(table)
        for _ in range(3):  # the tables' tasks and the streams start and wait
            await asyncio.sleep(0)
        moves = 0
        for turn in range(rounds):
            acting = []
            for table in made:
                if table.status is not Status.PLAYING:
                    continue
                seat = table.engine.to_act(table.state)[0]
                action = table.engine.legal_actions(table.state, seat)[0]
                request = service_pb2.ActRequest(
                    table_id=table.table_id, version=table.version, request_id=f"move-{turn}", action_id=id_of(action)
                )
                acting.append(service.Act(request, contexts[table.table_id, seat]))
            await asyncio.gather(*acting)
            moves += len(acting)
            for _ in range(3):  # the streams the moves woke send their messages
                await asyncio.sleep(0)
        for stream in streams:
            stream.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
        if received[0] < 4 * moves:  # each move's message to each of its table's 4 streams, at least
            raise RuntimeError(f"the streams were sent {received[0]} messages for {moves} moves: they fell behind")
        return moves


def count(
    server: Path | None,
    tables: int,
    rounds: int,
    build_views: bool,
    people: bool = False,
    languages: tuple[str, ...] = ("en",),
) -> tuple[int, int]:
    """(instructions, moves) of one run of `play` under callgrind, with `server` first on the import path."""
    env = dict(os.environ, PYTHONHASHSEED="0")  # the same hashes, so the same dict layouts, in every run
    if server is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(server / "server"), env.get("PYTHONPATH")) if p)
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "callgrind.out"
        child = f"import sys; sys.path.insert(0, {str(ROOT / 'bench')!r}); import view_instructions as v, asyncio; "
        call = f"play({tables}, {rounds}, {build_views}, {languages!r})"
        if people:
            call = f"play_people({tables}, {rounds})"
        child += f"print('moves', asyncio.run(v.{call}))"
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", child],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=True,
        )
    collected = re.search(r"Collected : (\d+)", result.stderr)
    moves = re.search(r"moves (\d+)", result.stdout)
    if collected is None or moves is None:
        raise RuntimeError(f"callgrind gave no count:\n{result.stderr[-2000:]}")
    return int(collected.group(1)), int(moves.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, action="append", default=[], help="a folder with another server/")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--people", action="store_true", help="the whole in-process path of a person's move")
    parser.add_argument("--languages", default="en", help="the viewers' languages in turn, e.g. en,de")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (apt-get install valgrind)")
    sides: list[Path | None] = [*args.base, None]
    figures = []
    moves = 0
    what = "a person's move through the service, 4 streams' messages included" if args.people else "4 viewers' messages"
    for side in sides:
        if args.people:
            fewer, fewer_moves = count(side, args.tables, args.rounds // 2, build_views=True, people=True)
            more, more_moves = count(side, args.tables, args.rounds, build_views=True, people=True)
            moves = more_moves - fewer_moves
            if moves <= 0:
                raise RuntimeError(f"the longer run made no more moves ({fewer_moves} and {more_moves})")
            per_move = (more - fewer) / moves
        else:
            languages = tuple(args.languages.split(","))
            without, moves = count(side, args.tables, args.rounds, False, languages=languages)
            with_views, moves_again = count(side, args.tables, args.rounds, True, languages=languages)
            if moves != moves_again:
                raise RuntimeError(f"the two runs made different moves ({moves} and {moves_again})")
            per_move = (with_views - without) / moves
        figures.append(per_move)
        name = str(side) if side is not None else "this tree"
        print(f"{name}: {per_move / 1e6:.3f} M instructions per move for {what} ({moves} moves)")
    for side, figure in zip(sides[1:], figures[1:], strict=True):
        print(f"{side or 'this tree'} / {sides[0] or 'this tree'}: {figure / figures[0]:.3f}")
    print(
        json.dumps(
            {"benchmark": "view_instructions", "people": args.people, "moves": moves, "instructions_per_move": figures}
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
