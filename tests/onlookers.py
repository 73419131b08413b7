"""Onlookers: a live table with a person's stream and a spectator's stream open, and a second client calling
the server all along, for as long as a hostile test runs.

The oracle of "the server stayed reachable throughout" (issue #17): a fuzzer that only checks the server at
the end misses a listener that was down for seconds in between, and one that never holds a stream open
misses a server that cannot restart its listener while streams are open. Every call here is synchronous
gRPC in threads of its own, bounded in time; the streams are never re-opened, so a stream that had to
reconnect is a failure, not a hiccup. When a game ends, the onlookers sit down at a new one.

Not for: what the views contain (the fuzzers' own oracles check that).
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from types import TracebackType

import grpc

from toadstool.api.v1 import service_pb2, service_pb2_grpc, table_pb2
from toadstool_clients.connection import SEAT_TOKEN_KEY

#: Codes a call racing the very moment grpcio's accept loop dies may get (it was never applied); the
#: onlookers retry those with a short backoff, as every client does, and fail only when retries do not get
#: through either (a fuzzer sends hostile packets back to back, so one call can race two or three of those
#: moments in a row). Calls wait for the channel to be ready (`wait_for_ready`), as a client riding through
#: a reconnect does.
RACED = frozenset({grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE})
PROBE_TRIES = 5
PROBE_TIMEOUT = 5.0
PROBE_PAUSE = 0.02


@dataclass
class _Stream:
    """One open Watch stream: what it received and how it ended."""

    who: str
    updates: int = 0
    last_version: int = 0
    error: str = ""
    finished: bool = False


@dataclass
class Onlookers:
    """Start with `with Onlookers(address) as onlookers:`; call `onlookers.check()` after the hostile part."""

    address: str
    seed: int = 7
    streams: list[_Stream] = field(default_factory=list)
    probes: int = 0
    raced: int = 0
    failures: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._channel = grpc.insecure_channel(self.address)
        self._stub = service_pb2_grpc.ToadstoolServiceStub(self._channel)
        self._calls: list[grpc.Future] = []
        self._threads: list[threading.Thread] = []
        self._rng = random.Random(self.seed)

    def __enter__(self) -> Onlookers:
        self._sit_down()
        prober = threading.Thread(target=self._probe, name="onlookers-probe", daemon=True)
        prober.start()
        self._threads.append(prober)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        with self._lock:
            for call in self._calls:
                call.cancel()
            threads = list(self._threads)
        for thread in threads:
            thread.join(timeout=15)
        self._channel.close()

    # -- a table, a person and a spectator ----------------------------------------------------------------

    def _call(self, method: str, request: object) -> object:
        """A unary call that rides through a reconnect, retried when it raced the accept loop's death."""
        for attempt in range(PROBE_TRIES):
            try:
                return getattr(self._stub, method)(request, timeout=PROBE_TIMEOUT, wait_for_ready=True)
            except grpc.RpcError as error:
                if error.code() not in RACED or attempt == PROBE_TRIES - 1:  # type: ignore[attr-defined]
                    raise
                time.sleep(PROBE_PAUSE * 2**attempt)
        raise AssertionError("unreachable")

    def _sit_down(self) -> None:
        """A UNO table of one person and three slow bots, its person's stream and a spectator's stream."""
        try:
            created = self._call(
                "CreateTable",
                service_pb2.CreateTableRequest(
                    game="uno", players=4, bots=3, seed=self._rng.randrange(2**32), bot_delay_ms=30, name="Onlookers"
                ),
            )
            table_id = created.table.table_id  # type: ignore[attr-defined]
            joined = self._call("JoinTable", service_pb2.JoinTableRequest(table_id=table_id, name="Onlooker"))
        except grpc.RpcError as error:
            with self._lock:
                self.failures.append(f"could not sit down at a new table: {error.code()}: {error.details()}")  # type: ignore[attr-defined]
            return
        seat_index = joined.seat  # type: ignore[attr-defined]
        token = ((SEAT_TOKEN_KEY, joined.seat_token),)  # type: ignore[attr-defined]
        seat = _Stream(f"seat {seat_index} of {table_id}")
        spectator = _Stream(f"spectator of {table_id}")
        with self._lock:
            self.streams += [seat, spectator]
        for stream, metadata, acting in ((seat, token, True), (spectator, (), False)):
            thread = threading.Thread(
                target=self._watch,
                args=(stream, table_id, metadata, token if acting else None, seat_index),
                name=f"onlookers-{stream.who}",
                daemon=True,
            )
            thread.start()
            with self._lock:
                self._threads.append(thread)

    def _watch(
        self,
        stream: _Stream,
        table_id: str,
        metadata: tuple[tuple[str, str], ...],
        token: tuple[tuple[str, str], ...] | None,
        seat: int,
    ) -> None:
        """Follow one stream to its table's end. A stream that never got its first update because it raced
        the accept loop's death is opened again (as any client would); one that was flowing must never end."""
        for attempt in range(PROBE_TRIES):
            call = self._stub.Watch(service_pb2.WatchRequest(table_id=table_id), metadata=metadata, wait_for_ready=True)
            with self._lock:
                self._calls.append(call)
            received = stream.updates
            try:
                for response in call:
                    update = response.update
                    with self._lock:
                        stream.updates += 1
                        stream.last_version = update.version
                    if update.status == table_pb2.TABLE_STATUS_FINISHED:
                        stream.finished = True
                        call.cancel()
                        if token is not None and not self._stop.is_set():
                            self._sit_down()
                        return
                    if token is not None and seat in update.to_act and update.legal_actions:
                        self._act(table_id, token, update)
                return
            except grpc.RpcError as error:
                code = error.code()  # type: ignore[attr-defined]
                if self._stop.is_set() or (code == grpc.StatusCode.CANCELLED and stream.finished):
                    return
                if stream.updates == received and code in RACED and attempt < PROBE_TRIES - 1:
                    continue  # it never opened: it raced the moment the accept loop died
                stream.error = f"{code}: {error.details()}"  # type: ignore[attr-defined]
                with self._lock:
                    self.failures.append(f"the stream of the {stream.who} ended: {stream.error}")
                return

    def _act(self, table_id: str, token: tuple[tuple[str, str], ...], update: table_pb2.Update) -> None:
        """Play a legal action as the person; a refusal because the table moved on meanwhile is fine."""
        request = service_pb2.ActRequest(
            table_id=table_id,
            version=update.version,
            action_id=self._rng.choice(update.legal_actions).id,
            request_id=uuid.uuid4().hex,
        )
        raced = limited = 0
        while not self._stop.is_set():
            try:
                self._stub.Act(request, metadata=token, timeout=PROBE_TIMEOUT, wait_for_ready=True)
                return
            except grpc.RpcError as error:
                code = error.code()  # type: ignore[attr-defined]
                if code in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                    return  # the table moved on meanwhile
                raced += code in RACED
                limited += code == grpc.StatusCode.RESOURCE_EXHAUSTED  # the action-rate limit: back off
                if code not in (*RACED, grpc.StatusCode.RESOURCE_EXHAUSTED) or raced >= PROBE_TRIES or limited > 100:
                    with self._lock:
                        self.failures.append(f"the person's action failed: {code}: {error.details()}")  # type: ignore[attr-defined]
                    return
                time.sleep(PROBE_PAUSE * (1 + limited))

    # -- a second client, calling all along ---------------------------------------------------------------

    def _probe(self) -> None:
        while not self._stop.is_set():
            for attempt in range(PROBE_TRIES):
                try:
                    self._stub.ListGames(service_pb2.ListGamesRequest(), timeout=PROBE_TIMEOUT, wait_for_ready=True)
                    break
                except grpc.RpcError as error:
                    if self._stop.is_set():
                        return
                    code = error.code()  # type: ignore[attr-defined]
                    if code not in RACED or attempt == PROBE_TRIES - 1:
                        with self._lock:
                            self.failures.append(
                                f"the server was unreachable: ListGames failed {attempt + 1} times, last {code}: "
                                f"{error.details()}"  # type: ignore[attr-defined]
                            )
                        break
                    with self._lock:
                        self.raced += 1
                    self._stop.wait(PROBE_PAUSE * 2**attempt)
            with self._lock:
                self.probes += 1
            self._stop.wait(PROBE_PAUSE)

    # -- the oracle ---------------------------------------------------------------------------------------

    def counts(self) -> list[int]:
        with self._lock:
            return [stream.updates for stream in self.streams]

    def check(self, seconds: float = 20.0) -> None:
        """Nothing failed so far, and the streams open now still flow: each receives new updates and the
        prober gets answers, within `seconds` (a bound for a loaded machine, not a speed requirement)."""
        before = self.counts()
        probes = self.probes
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self._lock:
                open_streams = [
                    (stream, before[i] if i < len(before) else 0)
                    for i, stream in enumerate(self.streams)
                    if not stream.finished and not stream.error
                ]
                flowing = all(stream.updates > seen for stream, seen in open_streams)
            if self.failures or (open_streams and flowing and self.probes > probes):
                break
            time.sleep(0.05)
        assert not self.failures, "while the server was under attack:\n" + "\n".join(self.failures[:10])
        assert self.probes > probes, "the second client got no answer at the end"
        assert open_streams, "no stream was open at the end"
        assert flowing, "open streams stopped receiving updates: " + ", ".join(
            f"{stream.who}: {stream.updates} updates (version {stream.last_version})" for stream, _ in open_streams
        )
