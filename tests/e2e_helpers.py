"""Scripted players for end-to-end tests: real clients that pick random legal actions from their stream."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

import grpc

from toadstool.api.v1 import table_pb2
from toadstool_clients.connection import Client

#: Refusals a racing scripted player may get when a bot or another seat moved first.
RACE_CODES = (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION)


async def first_update(client: Client, table_id: str, token: str | None, seconds: float = 10.0) -> table_pb2.Update:
    """The first update a stream of `table_id` (as `token`'s seat, or a spectator) is sent; the stream is closed."""
    call = client.watch(table_id, token)
    try:
        response = await asyncio.wait_for(call.read(), seconds)
        return response.update
    finally:
        call.cancel()


@dataclass
class Transcript:
    """Every update one viewer received, in order."""

    seat: int | None
    updates: list[table_pb2.Update] = field(default_factory=list)

    @property
    def last(self) -> table_pb2.Update:
        return self.updates[-1]


async def play_randomly(
    address: str,
    table_id: str,
    token: str | None,
    seat: int | None,
    seed: int,
    optional_rate: float = 0.3,
    max_messages: int = 50_000,
) -> Transcript:
    """Follow the table on its own channel and act at random until the game is over.

    Acts whenever the seat is waited for; takes optional actions (catches, any-time cards) now and then.
    """
    rng = random.Random(seed)
    transcript = Transcript(seat=seat)
    async with Client(address) as client:
        call = client.watch(table_id, token)
        async for response in call:
            update = response.update
            transcript.updates.append(update)
            if len(transcript.updates) > max_messages:
                raise AssertionError("too many updates: the game does not end")
            if update.status == table_pb2.TABLE_STATUS_FINISHED:
                call.cancel()
                break
            if token is None or not update.legal_actions:
                continue
            if seat not in update.to_act and rng.random() > optional_rate:
                continue
            choice = rng.choice(update.legal_actions)
            try:
                await client.act(table_id, token, update.version, choice.id)
            except grpc.aio.AioRpcError as error:
                if error.code() not in RACE_CODES:
                    raise
    return transcript


async def gather_players(coroutines: list[Coroutine[Any, Any, Transcript]], seconds: float = 90.0) -> list[Transcript]:
    """Run scripted players together, bounded in time."""
    return list(await asyncio.wait_for(asyncio.gather(*coroutines), seconds))
