"""What the bridge sends each kind of device, against a real server and a real Mosquitto broker: hostile
names as plain text on every device, Tasmota left alone at start, every roll on the die at the display's
pace, AWTRIX apps kept alive by the bridge alone, and Home Assistant's spotlight entities kept from table
to table."""

from __future__ import annotations

import itertools
import json
import re

from mqtt_helpers import (  # noqa: F401
    Broker,
    ManualClock,
    Recorder,
    bridge_args,
    broker_fixture,
    kart_waiting_for_ann,
    publish,
    recording,
    retained,
    running_bridge,
    wait_until_waiting,
)
from toadstool.api.v1 import table_pb2
from toadstool.server.app import RunningServer
from toadstool_clients.bridge import formats
from toadstool_clients.bridge.topics import Topics
from toadstool_clients.connection import Client

TOPICS = Topics()
HOSTILE = ["{{#}}", "{{zigbee2mqtt/door}}", "Zoë the Magnificent #1", "#TIME #DD {{+}}"]
NUMBER = re.compile(rb"-?[0-9]+")


async def test_hostile_names_reach_every_device_as_plain_text(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    """AWTRIX 3 replaces `{{topic}}` in an app's text with that topic's payload and subscribes to it (a name
    `{{#}}` would subscribe the clock to the whole broker); WLED's scrolling text reads `#TIME` as the clock;
    Tasmota gets numbers. Whatever the names say, each device gets plain text, and names keep their letters."""
    created = await client.create_table("kart", 4, options={"track": "mini-loop"}, seed=5, turn_seconds=600)
    tid = created.table.table_id
    devices = ["--wled", f"{tid}=wled/m", "--awtrix", f"{tid}=clock", "--tasmota", f"{tid}=tm:1"]
    devices += ["--tasmota", f"{tid}=dice:roll", "--homeassistant"]
    app = formats.awtrix_topic("clock", tid)
    async with recording(broker.address) as recorder, running_bridge(*bridge_args(server.address, broker, *devices)):
        for seat, name in enumerate(HOSTILE):
            await client.join(tid, name, seat)
        await recorder.wait_for(lambda r: b'"playing"' in (r.latest(TOPICS.state(tid)) or b""))
        await recorder.wait_for(lambda r: r.on("cmnd/dice/DisplayNumber") and r.on("cmnd/tm/DisplayNumber"))
        await recorder.wait_for(lambda r: b"Zo" in (r.latest(app) or b"") and b"Zoe" in (r.latest("wled/m/api") or b""))
    texts = [json.loads(m.payload)["text"] for m in recorder.on(app) if m.payload]
    for text in texts:
        assert "{" not in text, text
        assert "}" not in text, text
    assert "((#))" in texts[-1], "the name is shown, its braces as parentheses"
    assert "((zigbee2mqtt/do" in texts[-1], "(names are cut to 16 characters in a display line)"
    assert "Zoë" in texts[-1], "AWTRIX draws Latin-1 letters itself"
    for m in recorder.on("wled/m/api"):
        name = json.loads(m.payload)["seg"][0]["n"]
        assert name.isascii(), name
        assert name.isprintable(), name
        assert "#" not in name, name
    for device in ("tm", "dice"):
        numbers = [m.payload for m in recorder.on(f"cmnd/{device}/DisplayNumber")]
        assert all(NUMBER.fullmatch(payload) for payload in numbers), numbers
    # Names are data: no name made the bridge publish anywhere but its own and the configured devices' topics.
    own = (TOPICS.prefix + "/", "homeassistant/", "wled/m/api", app, "cmnd/tm/", "cmnd/dice/")
    assert [m.topic for m in recorder.messages if not m.topic.startswith(own)] == []
    # The spectator state keeps the names exactly (JSON escapes them; it is no device's text).
    state = json.loads(recorder.latest(TOPICS.state(tid)) or b"")
    assert [seat["name"] for seat in state["seats"]] == HOSTILE


async def test_tasmota_gets_no_empty_command_at_start_and_a_leftover_retained_one_is_replaced(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    """An empty DisplayNumber shows 0 on a TM1637: a bridge starting sends none. A retained command an older
    bridge left (the broker would replay it to the device at every reconnect) is deleted, and the number the
    display should show follows at once."""
    table = await kart_waiting_for_ann(client, turn_seconds=600)
    tid = table.table_id
    args = bridge_args(server.address, broker, "--tasmota", f"{tid}=tm:1", "--tasmota", f"{tid}=dice:roll")
    async with recording(broker.address, "cmnd/#") as recorder:
        async with running_bridge(*args):
            await recorder.wait_for(lambda r: r.on("cmnd/tm/DisplayNumber") and r.on("cmnd/dice/DisplayNumber"))
            score = recorder.on("cmnd/tm/DisplayNumber")[-1].payload
        assert [m.payload for m in recorder.messages if not m.payload and "DisplayClear" not in m.topic] == []
        assert not recorder.on("cmnd/tm/DisplayClear"), "nothing was cleared at start"
        await publish(broker.address, "cmnd/tm/DisplayNumber", b"77", retain=True)  # an older bridge's
        await recorder.wait_for(lambda r: r.latest("cmnd/tm/DisplayNumber") == b"77")
        seen = len(recorder.messages)
        async with running_bridge(*args):
            await recorder.wait_for(lambda r: b"" in [m.payload for m in r.messages[seen:]])
            await recorder.wait_for(lambda r: r.latest("cmnd/tm/DisplayNumber") == score)
            assert "cmnd/tm/DisplayNumber" not in await retained(broker.address, "cmnd/#")
    after = [m.payload for m in recorder.messages[seen:] if m.topic == "cmnd/tm/DisplayNumber"]
    deleted = after.index(b"")
    assert after[deleted + 1 :] == [score], "deleted, then the number it should show at once"
    # (When the leftover came before the bridge knew the number, it cleared the display: that came first.)
    second_run = recorder.messages[seen:]
    last_number = max(n for n, m in enumerate(second_run) if m.topic == "cmnd/tm/DisplayNumber")
    assert all(n < last_number for n, m in enumerate(second_run) if m.topic == "cmnd/tm/DisplayClear")


def _history_rolls(steps: list[table_pb2.HistoryStep]) -> list[bytes]:
    return [str(event.roll.value).encode() for step in steps for event in step.events if event.HasField("roll")]


async def test_every_roll_reaches_the_die_in_order_one_at_a_time_at_the_displays_pace(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    """A start order's rolls arrive in one update; the die shows each of them, then the next one only when
    the display's pace (here a clock the test moves) has passed, and a value equal to the last is sent
    again (the die shows that a roll happened)."""
    created = await client.create_table(
        "kart", 4, bots=3, options={"track": "mini-loop"}, seed=9, bot_delay_ms=0, turn_seconds=600
    )
    tid = created.table.table_id
    clock = ManualClock()
    pace = 1.5
    args = bridge_args(server.address, broker, "--tasmota", f"{tid}=dice:roll", "--roll-pace", str(pace))
    dice = "cmnd/dice/DisplayNumber"
    async with recording(broker.address) as recorder, running_bridge(*args, clock=clock) as bridge:
        await recorder.wait_for(lambda r: r.latest(TOPICS.state(tid)))
        await client.join(tid, "Ann", 0)  # the table is full: the start order is rolled
        await wait_until_waiting(client, tid)
        had = _history_rolls(list(await client.history(tid)))
        assert len(had) >= 4, "the start order alone rolls once per seat"
        assert any(a == b for a, b in itertools.pairwise(had)), f"the seed rolls one value twice in a row: {had}"
        for shown in range(1, len(had) + 1):
            # The die got exactly `shown` rolls, and waits for the clock before the next.
            await recorder.wait_for(lambda r, n=shown: len(r.on(dice)) >= n and clock.sleeping(pace) == 1)
            assert [m.payload for m in recorder.on(dice)] == had[:shown]
            # The roll topic goes at the same pace (its own message, a moment later).
            await recorder.wait_for(
                lambda r, n=shown: json.loads(r.latest(TOPICS.roll(tid)) or b"{}").get("value") == int(had[n - 1])
            )
            clock.advance(pace)
        await recorder.wait_for(lambda r: not bridge.mirrors[tid].rolls and clock.sleeping() == 0)
    assert [m.payload for m in recorder.on(dice)] == had
    assert all(not m.retain for m in recorder.on(dice))


async def test_a_bridge_started_mid_game_shows_the_last_roll_and_fires_no_event_for_older_ones(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    """A first update carries the table's recent events, rolls of the past among them: the die shows the
    last one (the current roll) once, and Home Assistant fires no event for rolls made before the bridge
    watched; the next roll is an event and reaches the die."""
    created = await client.create_table(
        "kart", 4, bots=3, options={"track": "mini-loop"}, seed=9, bot_delay_ms=0, turn_seconds=600
    )
    tid = created.table.table_id
    seat = await client.join(tid, "Ann", 0)
    update = await wait_until_waiting(client, tid)
    before = _history_rolls(list(await client.history(tid)))
    assert len(before) > 1
    clock = ManualClock()
    args = bridge_args(server.address, broker, "--tasmota", f"{tid}=dice:roll", "--homeassistant")
    dice = "cmnd/dice/DisplayNumber"
    async with recording(broker.address) as recorder, running_bridge(*args, clock=clock):
        await recorder.wait_for(lambda r: r.on(dice) and clock.sleeping(0.05) == 1)
        assert [m.payload for m in recorder.on(dice)] == before[-1:]
        await client.act(tid, seat.seat_token, update.version, "roll")
        await recorder.wait_for(lambda r: r.on(TOPICS.roll_event(tid)))
        clock.advance(0.05)
        await recorder.wait_for(lambda r: len(r.on(dice)) == 2)
    after = _history_rolls(list(await client.history(tid)))[len(before) :]
    events = [json.loads(m.payload)["value"] for m in recorder.on(TOPICS.roll_event(tid))]
    assert events == [int(value) for value in after[: len(events)]], "events for the new rolls only, in order"
    assert recorder.on(dice)[1].payload == after[0]


async def test_awtrix_apps_carry_a_lifetime_and_the_bridge_sends_them_again_before_it_ends(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    """A killed bridge cannot delete its apps, so each app has a `lifetime`: the clock drops it after that
    long without an update. A running bridge sends its apps again well within it, also for a table that
    does not change (a player thinking for minutes)."""
    table = await kart_waiting_for_ann(client, turn_seconds=600)
    tid = table.table_id
    clock = ManualClock()
    app = formats.awtrix_topic("clock", tid)
    args = bridge_args(server.address, broker, "--awtrix", f"{tid}=clock", "--awtrix", "*=hall")
    async with recording(broker.address) as recorder, running_bridge(*args, clock=clock):
        await recorder.wait_for(lambda r: r.latest(app) and r.latest(formats.awtrix_topic("hall", tid)))
        payload = recorder.latest(app) or b""
        assert json.loads(payload)["lifetime"] == formats.AWTRIX_LIFETIME
        assert formats.AWTRIX_REFRESH * 3 <= formats.AWTRIX_LIFETIME, "sent again at least three times per lifetime"
        for refreshes in (1, 2):
            seen = len(recorder.on(app))
            await recorder.wait_for(lambda r: clock.sleeping(formats.AWTRIX_REFRESH) == 1)
            clock.advance(formats.AWTRIX_REFRESH)
            await recorder.wait_for(lambda r, n=seen: len(r.on(app)) > n)
            assert recorder.on(app)[-1].payload == payload, f"refresh {refreshes}: the same app again"
            assert recorder.latest(formats.awtrix_topic("hall", tid)), "the * clock's app too"
    found = await retained(broker.address, "clock/#")
    assert json.loads(found[app])["lifetime"] == formats.AWTRIX_LIFETIME, "what a rebooting clock gets expires too"


async def test_home_assistant_spotlight_entities_keep_their_ids_from_table_to_table(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    """A dashboard shows "the current game" through entities whose ids never change: the first table's
    game, then the next table's, with each seat's name and score and the last roll, every roll firing an
    event, under a prefix with a dot (which Home Assistant's ids may not contain)."""
    topics = Topics(prefix="home.games")
    args = bridge_args(server.address, broker, "--homeassistant", "--prefix", "home.games", "--linger", "30")
    first = await client.create_table(
        "uno", 2, bots=2, options={"target": "1"}, seed=2, manual_start=True, bot_delay_ms=20
    )
    async with recording(broker.address) as recorder, running_bridge(*args):
        await recorder.wait_for(lambda r: r.latest(topics.spotlight_state))
        await client.start(first.table.table_id, first.host_token)
        await recorder.wait_for(lambda r: b'"game":"uno"' in (r.latest(topics.spotlight_state) or b""))
        configs_before = {m.topic for m in recorder.messages if m.topic.startswith("homeassistant/") and m.payload}
        await recorder.wait_for(lambda r: b'"finished"' in (r.latest(topics.state(first.table.table_id)) or b""))
        second = await kart_waiting_for_ann(client, turn_seconds=600)
        # Handed over while the first table's result still lingers: the spotlight shows the game on.
        await recorder.wait_for(lambda r: b'"game":"kart"' in (r.latest(topics.spotlight_state) or b""))
        assert recorder.latest(topics.state(first.table.table_id)) != b""
        await recorder.wait_for(lambda r: r.latest(topics.spotlight_roll))
        update = await wait_until_waiting(client, second.table_id)
        await client.act(second.table_id, second.seat_token, update.version, "roll")  # Ann rolls: an event
        await recorder.wait_for(lambda r: r.on(topics.spotlight_roll_event))
    spotlight = [m for m in recorder.messages if topics.ha_spotlight_id in m.topic and m.payload]
    assert spotlight, "the spotlight's entities were announced"
    ids: dict[str, set[str]] = {}
    for m in spotlight:
        config = json.loads(m.payload)
        ids.setdefault(m.topic, set()).add(config["unique_id"])
        node, entity = m.topic.split("/")[2:4]
        assert re.fullmatch(r"[A-Za-z0-9_-]+", node), m.topic
        assert re.fullmatch(r"[A-Za-z0-9_-]+", entity), m.topic
        assert config["availability_mode"] == "all"
        assert [a["topic"] for a in config["availability"]] == [topics.status, topics.server]
    assert node == "toadstool_home_games_spotlight"
    assert all(len(unique) == 1 for unique in ids.values()), "one id per entity, whichever table it shows"
    assert {t for t in configs_before if topics.ha_spotlight_id in t} <= set(ids)
    names = {json.loads(m.payload)["name"] for m in spotlight}
    assert {"Game", "Phase", "Whose turn", "Last roll", "Seat 1 name", "Seat 1 score", "Roll"} <= names
    state = json.loads(recorder.latest(topics.spotlight_state) or b"")
    assert (state["game"], [seat["name"] for seat in state["seats"]]) == ("kart", ["Ann", "Bot 1"])
    event = json.loads(recorder.on(topics.spotlight_roll_event)[-1].payload)
    assert event["event_type"] == "roll"
    assert event["table"] == second.table_id
    assert 1 <= event["value"] <= 6
    # Per-table devices stay beside the spotlight, their ids sanitised too.
    table_configs = [m.topic for m in recorder.messages if topics.ha_device_id(second.table_id) in m.topic]
    assert f"homeassistant/event/{topics.ha_device_id(second.table_id)}/roll/config" in table_configs
