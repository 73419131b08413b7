"""The web port accepts every connection waiting in the kernel at once (toadstool.server.web_accept): under
uvloop, libuv accepts one per turn of the event loop, so on a busy server a burst of browsers waited one
turn each (seconds at 250 tables, issue #24).

Real sockets on loopback and real loops (asyncio's and uvloop's); turns of the loop are counted, never
time: the connections are opened while the loop is held, as they pile up while a busy server works.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable, Callable

import pytest
import uvloop

from toadstool.api.scopes import TaskScope
from toadstool.server import web
from toadstool.server.limits import Limits
from toadstool.server.service import ToadstoolService
from toadstool.server.tables import TableRegistry
from toadstool.server.web_accept import ACCEPT_BATCH, BatchAcceptor

WAITING = 100  # connections that arrive while the loop is busy (fewer than one batch)


class Counted(asyncio.Protocol):
    made: list[asyncio.BaseTransport]

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.made.append(transport)


def _listening() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(512)
    sock.setblocking(False)
    return sock


async def _turns_until_all_accepted(start: Callable[[socket.socket, type[Counted]], Awaitable[object]]) -> int:
    """How many turns of the running loop it takes to accept WAITING connections opened while it was held."""
    made: list[asyncio.BaseTransport] = []
    protocol = type("Counting", (Counted,), {"made": made})
    sock = _listening()
    serving = await start(sock, protocol)
    port = sock.getsockname()[1]
    # Opened from the loop's own thread, so the loop cannot run meanwhile: the kernel completes each
    # handshake and queues the connection, as it does while a busy server is in the middle of a turn.
    clients = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(WAITING)]
    try:
        for turn in range(10 * WAITING):
            if len(made) == WAITING:
                return turn
            await asyncio.sleep(0)
        raise AssertionError(f"only {len(made)} of {WAITING} connections accepted in {10 * WAITING} turns")
    finally:
        for client in clients:
            client.close()
        for transport in made:
            transport.close()
        if isinstance(serving, BatchAcceptor):
            await serving.close()
        elif isinstance(serving, asyncio.AbstractServer):
            serving.close()
        sock.close()


async def _batch_acceptor(sock: socket.socket, protocol: type[Counted]) -> BatchAcceptor:
    tasks = TaskScope()  # the hand-overs' scope: empty again once the acceptor has closed
    await tasks.__aenter__()
    acceptor = BatchAcceptor(sock, protocol, None, asyncio.get_running_loop(), tasks)
    acceptor.start()
    return acceptor


async def _loops_own_server(sock: socket.socket, protocol: type[Counted]) -> asyncio.AbstractServer:
    return await asyncio.get_running_loop().create_server(protocol, sock=sock)


@pytest.mark.parametrize("loop_factory", [asyncio.new_event_loop, uvloop.new_event_loop], ids=["asyncio", "uvloop"])
def test_connections_that_piled_up_are_all_accepted_at_the_next_wake_up(loop_factory: Callable[[], object]) -> None:
    assert WAITING <= ACCEPT_BATCH
    with asyncio.Runner(loop_factory=loop_factory) as runner:  # type: ignore[arg-type]
        turns = runner.run(_turns_until_all_accepted(_batch_acceptor))
    # A few turns however many wait: the port's wake-up, each hand-over's task, the transport's connection_made.
    assert turns <= 5, f"{WAITING} waiting connections took {turns} turns of the loop to be accepted"


def test_uvloops_own_server_accepts_one_connection_a_turn_which_is_why_the_web_port_does_its_own() -> None:
    """What BatchAcceptor is for (libuv PR #3696). Should a libuv release accept in batches again, this
    fails, and web_accept may go."""
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        turns = runner.run(_turns_until_all_accepted(_loops_own_server))
    assert turns >= WAITING // 2, f"uvloop accepted {WAITING} connections in {turns} turns"


async def test_a_tls_client_that_never_finishes_its_handshake_costs_nothing_once_the_acceptor_closes() -> None:
    """A connection still in its TLS handshake when the port closes is dropped, and closing waits for it."""
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)  # no certificate: no handshake can finish
    made: list[asyncio.BaseTransport] = []
    sock = _listening()
    tasks = TaskScope()
    await tasks.__aenter__()
    counting = type("Counting", (Counted,), {"made": made})
    acceptor = BatchAcceptor(sock, counting, context, asyncio.get_running_loop(), tasks)
    acceptor.start()
    silent = socket.create_connection(sock.getsockname(), timeout=5)  # connects, then never says hello
    try:
        for _ in range(100):
            if acceptor._handing_over:
                break
            await asyncio.sleep(0)
        assert len(acceptor._handing_over) == 1, "the silent client's handshake is under way"
        await asyncio.wait_for(acceptor.close(), 5)
        assert not acceptor._handing_over
        assert made == [], "no protocol was made for a connection that never finished its handshake"
    finally:
        silent.close()
        sock.close()


async def _answers_to_waiting_calls(web_port: int, turn_limit: int, waiting: int = WAITING) -> tuple[int, int]:
    """Open `waiting` connections to the web port while the loop is held, each with a Connect call already
    sent; then count the loop's turns until every one is answered. Returns (answered, turns)."""
    call = (
        b"POST /toadstool.v1.ToadstoolService/ListGames HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        b"content-type: application/json\r\ncontent-length: 2\r\n\r\n{}"
    )
    clients = []
    for _ in range(waiting):
        client = socket.create_connection(("127.0.0.1", web_port), timeout=5)
        client.sendall(call)
        client.setblocking(False)
        clients.append(client)
    answered: set[int] = set()
    try:
        for turn in range(turn_limit):
            for index, client in enumerate(clients):
                if index not in answered:
                    with contextlib.suppress(BlockingIOError):
                        if client.recv(65536).startswith(b"HTTP/1.1 200"):
                            answered.add(index)
            if len(answered) == waiting:
                return len(answered), turn
            await asyncio.sleep(0)
        return len(answered), turn_limit
    finally:
        for client in clients:
            client.close()


def test_the_servers_web_port_answers_calls_that_piled_up_without_a_turn_for_each_connection() -> None:
    """The real web listener of `toadstool serve`, on uvloop as deployed: a burst of browsers' calls is
    answered within a few dozen turns of the loop, where accepting one connection a turn needs a hundred."""

    async def main() -> tuple[int, int]:
        async with TableRegistry() as registry:
            service = ToadstoolService(registry, Limits())
            async with web.web_listener(service, "127.0.0.1", 0, grace=1.0) as listener:
                return await _answers_to_waiting_calls(listener.port, turn_limit=10 * WAITING)

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        answered, turns = runner.run(main())
    assert answered == WAITING
    assert turns < WAITING // 2, f"{WAITING} calls waiting on new connections took {turns} turns to be answered"


async def test_a_connection_accepted_but_not_yet_handed_over_is_closed_with_the_port() -> None:
    made: list[asyncio.BaseTransport] = []
    sock = _listening()
    tasks = TaskScope()
    await tasks.__aenter__()
    acceptor = BatchAcceptor(
        sock, type("Counting", (Counted,), {"made": made}), None, asyncio.get_running_loop(), tasks
    )
    acceptor.start()
    client = socket.create_connection(sock.getsockname(), timeout=5)
    try:
        acceptor._accept()  # accepted now; its hand-over to the protocol would run at the next turn
        assert len(acceptor._handing_over) == 1
        await acceptor.close()
        assert made == []
        assert client.recv(1) == b"", "the client was left connected to a port that had closed"
    finally:
        client.close()
        sock.close()


def test_leaving_the_web_listener_closes_the_connections_it_accepted() -> None:
    """uvicorn's shutdown still knows every connection the batch acceptor handed to it."""

    async def main() -> bytes:
        async with TableRegistry() as registry:
            service = ToadstoolService(registry, Limits())
            async with web.web_listener(service, "127.0.0.1", 0, grace=1.0) as listener:
                idle = socket.create_connection(("127.0.0.1", listener.port), timeout=5)
                for _ in range(20):  # a few turns: accepted and handed over
                    await asyncio.sleep(0)
            try:
                return await asyncio.to_thread(idle.recv, 1)
            finally:
                idle.close()

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        assert runner.run(main()) == b"", "an idle browser connection outlived the server"


def test_a_burst_bigger_than_the_sockets_first_backlog_is_all_queued_and_answered() -> None:
    """The port listens with uvicorn's backlog (2048), as uvicorn's own server did: 600 browsers arriving
    while the loop is held all complete their handshake (with the socket's first backlog of 512, the rest
    would wait for SYN retries) and are all answered."""

    async def main() -> tuple[int, int]:
        async with TableRegistry() as registry:
            service = ToadstoolService(registry, Limits())
            async with web.web_listener(service, "127.0.0.1", 0, grace=1.0) as listener:
                return await _answers_to_waiting_calls(listener.port, turn_limit=4000, waiting=600)

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        answered, _turns = runner.run(main())
    assert answered == 600
