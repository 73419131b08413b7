"""The Tk client's network thread runs every call in one task scope: a call's result or error reaches the Tk
side through the inbox, a failed call leaves the others running, a cancelled future cancels its call, and
closing cancels what still runs and ends the thread. No window needed: the Tk side is `drain`."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from toadstool_clients.tk.network import Network


def _drain_until(network: Network, done: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "the network thread never answered"
        network.drain()
        time.sleep(0.01)


@pytest.fixture
def network() -> Iterator[Network]:
    made = Network()
    yield made
    made.close()


def test_results_and_errors_reach_the_tk_side_and_one_failure_leaves_the_others_running(network: Network) -> None:
    results: list[object] = []
    errors: list[BaseException] = []
    release = threading.Event()
    cancelled = threading.Event()

    async def waits() -> str:
        try:
            while not release.is_set():
                await asyncio.sleep(0.01)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "still here"

    async def fails() -> None:
        raise ValueError("refused by the server")

    async def answers() -> int:
        return 42

    long_call = network.submit(waits(), results.append, errors.append)
    network.submit(fails(), results.append, errors.append)
    network.submit(answers(), results.append, errors.append)
    _drain_until(network, lambda: len(results) + len(errors) >= 2)
    assert results == [42]
    assert [str(e) for e in errors] == ["refused by the server"]
    assert not long_call.done(), "a sibling's failure ended another call"
    assert not cancelled.is_set(), "a sibling's failure cancelled another call"
    release.set()
    _drain_until(network, lambda: len(results) == 2)
    assert results == [42, "still here"]
    assert long_call.result(5) == "still here"


def test_a_cancelled_future_cancels_its_call_and_calls_no_callback(network: Network) -> None:
    started, cancelled = threading.Event(), threading.Event()
    told: list[object] = []

    async def forever() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    call = network.submit(forever(), told.append, told.append)
    assert started.wait(5)
    assert call.cancel()
    assert cancelled.wait(5), "the call went on after its future was cancelled"
    network.drain()
    assert told == []
    assert network.oldest_pending() is None


def test_closing_cancels_what_runs_ends_the_thread_and_later_calls_do_not_run() -> None:
    network = Network()
    started, cancelled = threading.Event(), threading.Event()

    async def forever() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    call = network.submit(forever())
    assert started.wait(5)
    network.close()
    assert cancelled.is_set(), "closing left a call running"
    assert call.cancelled()
    ran = threading.Event()

    async def late() -> None:
        ran.set()

    later = network.submit(late())
    assert later.cancelled()
    with pytest.raises(concurrent.futures.CancelledError):
        later.result(1)
    assert not ran.is_set()
