"""Regression: a stream opened with a seat token keeps serving that seat after the token stops being valid
(kick / leave), so a removed person reads the next holder's private view, and its close corrupts the
next holder's connection count."""

from __future__ import annotations

import asyncio

import grpc

from toadstool.api.v1 import table_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.connection import Client


async def _drain(call: grpc.aio.UnaryStreamCall, seconds: float) -> tuple[list[table_pb2.Update], str | None]:
    """Every update `call` delivers within `seconds`, and the status code that ended it (if it ended)."""
    updates: list[table_pb2.Update] = []
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    try:
        while (left := end - loop.time()) > 0:
            response = await asyncio.wait_for(call.read(), left)
            if response is grpc.aio.EOF:
                return updates, "EOF"
            updates.append(response.update)
    except TimeoutError:
        return updates, None
    except grpc.aio.AioRpcError as error:
        return updates, error.code().name
    return updates, None


async def test_a_kicked_persons_open_stream_never_shows_the_next_holders_hand(server: RunningServer) -> None:
    async with Client(server.address) as client:
        created = await client.create_table("uno", 3, seed=11, manual_start=True, bot_delay_ms=60_000)
        table_id, host = created.table.table_id, created.host_token
        ann = await client.join(table_id, "Ann", 0)
        await client.join(table_id, "Bob", 1)
        ann_stream = client.watch(table_id, ann.seat_token)
        first = (await asyncio.wait_for(ann_stream.read(), 10)).update
        assert first.viewer_seat == 0
        await client.kick(table_id, host, 0)
        carol = await client.join(table_id, "Carol", 0)
        await client.add_bot(table_id, host, 2)
        await client.start(table_id, host)
        carol_first = (await asyncio.wait_for(client.watch(table_id, carol.seat_token).read(), 10)).update
        carol_hand = list(carol_first.view.uno.hand)
        assert carol_hand
        updates, _ = await _drain(ann_stream, 2.0)
        ann_stream.cancel()
    leaked = [u for u in updates if u.view.uno.hand]
    assert not leaked, (
        f"Ann was kicked, but her old stream delivered {len(leaked)} updates with seat 0's hand "
        f"(now Carol's: {[c.id for c in leaked[-1].view.uno.hand]}) and {len(leaked[-1].legal_actions)} legal actions"
    )


async def test_a_person_who_left_a_running_game_stops_seeing_the_bots_hand(server: RunningServer) -> None:
    async with Client(server.address) as client:
        created = await client.create_table("uno", 2, seed=12, bot_delay_ms=60_000)
        table_id = created.table.table_id
        ann = await client.join(table_id, "Ann", 0)
        await client.join(table_id, "Bob", 1)
        ann_stream = client.watch(table_id, ann.seat_token)
        await asyncio.wait_for(ann_stream.read(), 10)
        await client.leave(table_id, ann.seat_token)
        updates, status = await _drain(ann_stream, 1.5)
        ann_stream.cancel()
    assert updates or status == "UNAUTHENTICATED", "the stream went quiet without a status"
    assert not any(u.view.uno.hand for u in updates), "after LeaveTable the old stream still streams seat 0's hand"


async def test_closing_a_kicked_persons_stream_does_not_mark_the_new_holder_disconnected(
    server: RunningServer,
) -> None:
    async with Client(server.address) as client:
        created = await client.create_table("uno", 3, seed=13, manual_start=True)
        table_id, host = created.table.table_id, created.host_token
        ann = await client.join(table_id, "Ann", 0)
        ann_stream = client.watch(table_id, ann.seat_token)
        await asyncio.wait_for(ann_stream.read(), 10)
        await client.kick(table_id, host, 0)
        carol = await client.join(table_id, "Carol", 0)
        carol_stream = client.watch(table_id, carol.seat_token)
        await asyncio.wait_for(carol_stream.read(), 10)
        assert (await client.get_table(table_id)).seats[0].connected
        ann_stream.cancel()
        await asyncio.sleep(0.3)
        info = await client.get_table(table_id)
        carol_stream.cancel()
    assert info.seats[0].connected, "Carol's stream is open, but Ann's old stream closing marked seat 0 disconnected"
