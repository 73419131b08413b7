"""Where the hard bots think: a small pool of worker processes, owned by the registry, that runs each planning
bot's search (toadstool.bots.HardBot) away from the server's process.

Why processes: the search is pure Python, so a thread that runs it holds the interpreter's lock for most of its
budget, and the event loop that serves every other table waits for it (bench/load.py, `--hard-tables`). In a
worker it holds that worker's lock instead; the thread that asked (autoplay.run_bots' `to_thread`) only waits
on a pipe for the answer, which releases the lock. Each worker is a fresh interpreter (`serve_decisions`,
never a fork of a process running gRPC's threads), started on the first hard decision that finds none free,
and it ends when its input does: when the registry closes the pool (`close`, which waits for it) or when the
server dies without closing it (its end of the pipe closes with it). No multiprocessing machinery, so no
helper process of its (the resource tracker) outlives the pool.

What travels is the decision, not the bot: the game's name, the bot's budget, its view, the legal actions,
a seed drawn from the table's generator and the hints of the seat's memory (`HardBot.remember`: what the seat
saw in its earlier views, kept by the seat's HardBot here; plain tuples, None for a game without one). The
worker builds the hard bot once per game and budget (`level_bot`, as the table did) and answers with the index
of its choice in the legal actions. The seat keeps its HardBot (what the table shows, the host changes and
tests look at, and its memory); only where it thinks moves.

Not here: what the bot decides (toadstool.bots) or when it acts (`autoplay`). A pool that cannot answer (a
worker killed, a view that does not pickle, a game the workers do not know) never stops a table: the decision
is thought in the caller's thread as before, with the same seed, and the log says why once (a killed worker
is started again for the next decision, MAX_RESTARTS times).
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import IO, Any

from toadstool.bots import BotLevel, Budget, HardBot, level_bot
from toadstool.engine import Bot
from toadstool.games import GAMES

log = logging.getLogger(__name__)

#: How many workers may end unexpectedly (killed by hand, by the out-of-memory killer) and be started again
#: before the server thinks in its own threads for good.
MAX_RESTARTS = 3


def default_processes() -> int:
    """One worker per core the server may use, less the event loop's own; at least one."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores - 1)


class Unavailable(Exception):
    """The pool cannot think this decision (closed, broken, or the decision does not pickle)."""


class _Worker:
    """One thinking process (`serve_decisions`): a decision at a time over its pipes."""

    def __init__(self) -> None:
        path = os.pathsep.join(p for p in sys.path if p)  # what this process imports, as spawn would give it
        self.process = subprocess.Popen(
            [sys.executable, "-c", f"from {__name__} import serve_decisions; serve_decisions()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": path},
        )

    def ask(self, decision: bytes) -> object:
        """Send one decision and wait for its answer (the wait releases the interpreter's lock); EOFError if
        the process ended, OSError if its pipe broke."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None
        assert stdout is not None
        stdin.write(len(decision).to_bytes(4, "big") + decision)
        stdin.flush()
        return pickle.loads(_read_exactly(stdout, int.from_bytes(_read_exactly(stdout, 4), "big")))

    def stop(self, patience: float = 5.0) -> None:
        """Close its input (it ends when it reads the end) and wait for it; kill it if it does not."""
        with contextlib.suppress(OSError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        try:
            self.process.wait(patience)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


class ThinkingPool:
    """Up to `processes` worker processes that think hard bots' decisions; started as decisions need them
    (`choose`), ended by `close`. Thread-safe: each table's decision comes from a thread of its own, and waits
    for a free worker when all are thinking."""

    def __init__(self, processes: int) -> None:
        self.processes = max(1, processes)
        self._idle: list[_Worker] = []
        self._all: list[_Worker] = []
        self._starting = 0
        self._free = threading.Condition()
        self._closed = False
        self._restarts = 0
        self._said: set[str] = set()

    def choose(
        self, game: str, bot: Bot, view: Any, legal: Sequence[Any], must_act: bool, rng: random.Random
    ) -> Any | None:
        """`bot.choose(view, legal, must_act, rng)`, thought in a worker when the bot searches: a hard bot that
        must act and has a choice to make, on the CPU-time budget it has by default (`Budget.clock`)."""
        if not (type(bot) is HardBot and must_act and len(dict.fromkeys(legal)) > 1):
            return bot.choose(view, legal, must_act, rng)  # no search: nothing to think away
        seed = rng.getrandbits(64)
        budget = bot.budget
        hints = bot.remember(view)  # the seat's memory stays here, with its bot
        try:
            if budget.clock is not time.thread_time:  # a clock of the caller's (tests): think here
                raise Unavailable("its budget is on a clock of its own")
            index = self._think(game, budget, view, list(legal), seed, hints)
        except Unavailable as why:
            self._say_once(str(why))
            return bot.decide(view, legal, must_act, random.Random(seed), hints)
        return None if index is None else legal[index]

    def _think(self, game: str, budget: Budget, view: Any, legal: list[Any], seed: int, hints: Any) -> int | None:
        try:
            decision = pickle.dumps(
                (game, budget.ms, budget.iterations, view, legal, seed, hints), pickle.HIGHEST_PROTOCOL
            )
        except Exception as error:  # a view or an action that does not pickle (a plug-in game's)
            raise Unavailable(f"a {game} decision does not pickle ({error})") from None
        worker = self._take()
        try:
            answer = worker.ask(decision)
        except (EOFError, OSError, ValueError, pickle.UnpicklingError):  # ended, or closed meanwhile
            self._lost(worker)
            raise Unavailable("a thinking process ended unexpectedly") from None
        self._give_back(worker)
        if isinstance(answer, str):
            raise Unavailable(answer)
        return answer if isinstance(answer, int) else None

    def _take(self) -> _Worker:
        """An idle worker, a new one while there are fewer than `processes`, else the first to be free."""
        with self._free:
            while True:
                if self._closed:
                    raise Unavailable("the thinking processes are closed")
                if self._restarts > MAX_RESTARTS:
                    raise Unavailable(f"thinking processes ended unexpectedly {self._restarts} times")
                if self._idle:
                    return self._idle.pop()
                if len(self._all) + self._starting < self.processes:
                    self._starting += 1
                    break
                self._free.wait()
        started: _Worker | None = None
        try:
            started = _Worker()
        except OSError as error:
            raise Unavailable(f"a thinking process cannot start ({error})") from None
        finally:
            with self._free:
                self._starting -= 1
                if started is not None:
                    self._all.append(started)
                self._free.notify()
        return started

    def _give_back(self, worker: _Worker) -> None:
        with self._free:
            if not self._closed:
                self._idle.append(worker)
                self._free.notify()
                return
        worker.stop()  # the pool closed while it thought

    def _lost(self, worker: _Worker) -> None:
        """A worker died (killed by hand or by the out-of-memory killer): the next decision starts another."""
        with self._free:
            if worker in self._all:
                self._all.remove(worker)
            closed = self._closed
            if not closed:
                self._restarts += 1
            self._free.notify()
        if not closed:
            log.warning("a bot's thinking process ended unexpectedly; another is started for the next decision")
        worker.stop(0.0)

    def _say_once(self, why: str) -> None:
        if why not in self._said and not self._closed:
            self._said.add(why)
            log.warning("a hard bot thinks in the server's process (%s)", why)

    def pids(self) -> list[int]:
        """The worker processes' ids (none before the first hard decision)."""
        with self._free:
            return [worker.process.pid for worker in self._all]

    def close(self) -> None:
        """End the workers and wait for them: each finishes the decision it is thinking (its thread gets the
        answer) and ends at the end of its input. Blocking: call it off the event loop."""
        with self._free:
            self._closed = True
            workers, self._idle = list(self._all), []
            self._free.notify_all()
        for worker in workers:
            worker.stop()
        with self._free:
            self._all.clear()


def think(
    pool: ThinkingPool | None, game: str, bot: Bot, view: Any, legal: Sequence[Any], must_act: bool, rng: random.Random
) -> Any | None:
    """`bot`'s choice at a table of `game`: a hard bot's search in `pool`'s workers, this thread waiting for it;
    any other decision, or any without a pool, in this thread."""
    if pool is None:
        return bot.choose(view, legal, must_act, rng)
    return pool.choose(game, bot, view, legal, must_act, rng)


# -- in the worker -------------------------------------------------------------------------------------------

#: The hard bots this worker has built, by game and budget.
_bots: dict[tuple[str, float | None, int | None], HardBot] = {}


def _think_in_worker(decision: bytes) -> int | str | None:
    """A worker's part: the hard bot's choice for one pickled decision, as its index in the legal actions
    (None: no action), or a string saying why it cannot think it here."""
    game, ms, iterations, view, legal, seed, hints = pickle.loads(decision)
    legal = list(legal)
    key = (game, ms, iterations)
    bot = _bots.get(key)
    if bot is None:
        spec = GAMES.get(game)
        if spec is None:
            return f"the thinking processes do not know the game {game!r}"
        made = level_bot(spec, BotLevel.HARD, Budget(ms=ms, iterations=iterations))
        if not isinstance(made, HardBot):
            return f"the thinking processes have no hard bot for {game!r}"
        bot = _bots[key] = made
    choice = bot.decide(view, legal, True, random.Random(seed), hints)
    if choice is None:
        return None
    try:
        return int(legal.index(choice))
    except ValueError:  # pickled back, it would not be the same action: the caller thinks it itself
        return f"a {game} bot chose an action that is not among the legal ones"


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the other end closed its pipe")
    return data


def serve_decisions() -> None:
    """A worker's life: read decisions on stdin and answer each on stdout, until stdin ends (the server closed
    the pool, or died). Ctrl+C is the server's to handle; whatever the games print goes to stderr."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    decisions = sys.stdin.buffer
    while True:
        try:
            decision = _read_exactly(decisions, int.from_bytes(_read_exactly(decisions, 4), "big"))
        except EOFError:
            return
        answer: object
        try:
            answer = _think_in_worker(decision)
        except Exception as error:  # a bug in a search: the server's thread thinks it and says so
            answer = f"the search failed in its process ({error!r})"
        reply = pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
        try:
            answers.write(len(reply).to_bytes(4, "big") + reply)
            answers.flush()
        except BrokenPipeError:  # the server died while this thought: nobody to answer
            return
