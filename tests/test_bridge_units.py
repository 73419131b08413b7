"""The bridge's pure parts: what counts as a press, topic safety, the coalescing outbox, the command line."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from toadstool.v1 import table_pb2
from toadstool_clients.bridge import formats
from toadstool_clients.bridge.app import PressRefused, TableMirror, main, parse_press, request_id_for
from toadstool_clients.bridge.config import ConfigError, config_from_args
from toadstool_clients.bridge.publisher import Outbox, parse_broker
from toadstool_clients.bridge.topics import Topics, safe_level


@pytest.mark.parametrize("payload", [b"roll", b"ROLL", b"single", b"press", b'{"action":"single"}', b'{"id":7}'])
def test_a_plain_press_or_a_buttons_single_click_is_a_roll_press(payload: bytes) -> None:
    assert parse_press(payload) is not None


def test_a_press_carries_the_devices_own_id_so_a_repeat_is_the_same_request() -> None:
    press = parse_press(b'{"action":"roll","id":"abc"}')
    assert press is not None
    assert press.press_id == "abc"
    assert request_id_for("t1", "abc") == request_id_for("t1", "abc")
    assert request_id_for("t1", "abc") != request_id_for("t2", "abc")


@pytest.mark.parametrize("payload", [b"", b"  ", b'{"action":""}'])
def test_empty_messages_and_device_state_reports_are_ignored(payload: bytes) -> None:
    assert parse_press(payload) is None


@pytest.mark.parametrize("payload", [b"play_card:card_id=3", b'{"action":"vote"}', b"[1]", b"{bad json"])
def test_anything_but_a_roll_press_is_refused(payload: bytes) -> None:
    with pytest.raises(PressRefused):
        parse_press(payload)


def test_a_hostile_table_id_stays_one_topic_level_without_wildcards() -> None:
    level = safe_level("a/b+#c d\x00")
    assert "/" not in level
    assert "+" not in level
    assert "#" not in level
    assert " " not in level
    assert Topics().state("x/../#") == "toadstool/tables/x_..__/state"


def test_press_topics_name_their_table_and_nothing_else() -> None:
    topics = Topics()
    assert topics.table_of_press("toadstool/tables/k7m2qx/press") == "k7m2qx"
    assert topics.table_of_press("toadstool/tables/k7m2qx/press/result") is None
    assert topics.table_of_press("other/tables/k7m2qx/press") is None


def test_display_text_strips_control_characters_from_names() -> None:
    update = table_pb2.Update(table_id="t", phase="Ann\x1b[31m to play", scores=[3])
    update.seats.add(index=0, name="Ann\nEvil\x07")
    assert formats.display_text(update) == "Ann [31m to play | Ann Evil 3"
    payload = json.loads(formats.encode(formats.state_payload(update)))
    assert payload["seats"][0]["name"] == "Ann\nEvil\x07"  # JSON carries it escaped, exactly


async def test_a_burst_on_one_topic_sends_only_the_latest_value_at_a_bounded_rate() -> None:
    outbox = Outbox(min_interval=0.2)
    sent: list[tuple[str, bytes, float]] = []
    loop = asyncio.get_running_loop()

    async def publish(topic: str, payload: bytes, retain: bool) -> None:
        sent.append((topic, payload, loop.time()))

    drain = asyncio.create_task(outbox.drain(publish))
    started = loop.time()
    try:
        for n in range(200):
            outbox.put("a", str(n).encode())
            outbox.put("b", b"same")
            await asyncio.sleep(0.003)
        await asyncio.sleep(0.5)
    finally:
        drain.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await drain
    on_a = [(payload, at) for topic, payload, at in sent if topic == "a"]
    assert on_a[-1][0] == b"199", "the latest value always arrives"
    assert len(on_a) <= (loop.time() - started) / 0.2 + 1, "at most one message per interval"
    assert len(on_a) < 50, "200 changes were coalesced"
    assert all(b[1] - a[1] >= 0.19 for a, b in itertools.pairwise(on_a))
    assert [payload for topic, payload, _ in sent if topic == "b"] == [b"same"], "an unchanged value is sent once"


async def test_after_a_reconnect_everything_retained_is_sent_again_and_cleared_topics_are_not() -> None:
    outbox = Outbox(min_interval=0)
    outbox.put("keep", b"1")
    outbox.put("gone", b"2")
    outbox.pending.clear()
    outbox.sent.update({"keep": b"1", "gone": b"2"})
    outbox.clear("gone")
    outbox.pending.clear()
    outbox.reconnected()
    assert outbox.pending == {"keep": (b"1", True)}


def test_broker_addresses_default_to_the_mqtt_ports() -> None:
    assert parse_broker("mqtt.local") == ("mqtt.local", 1883)
    assert parse_broker("mqtt.local", tls=True) == ("mqtt.local", 8883)
    assert parse_broker("10.0.0.2:1884") == ("10.0.0.2", 1884)
    assert parse_broker("[::1]:1885") == ("::1", 1885)


def test_the_config_file_keeps_device_tokens_and_displays_per_table(tmp_path: Path) -> None:
    path = tmp_path / "bridge.toml"
    path.write_text(
        'password = "pw"\n[tables.k7m2qx]\ndevice_token = "tok"\npress_topics = ["z2m/button/action"]\n'
        'tasmota = ["tm:1", "dice:roll"]\n[tables."*"]\nwled = "wled/hall"\n'
    )
    config, _ = config_from_args(["--config", str(path), "--tables", "k7m2qx", "--awtrix", "k7m2qx=awtrix_1"])
    assert config.tables == ["k7m2qx"]
    assert config.broker.password == "pw"
    assert config.settings("k7m2qx").device_token == "tok"
    assert config.settings("k7m2qx").press_topics == ["z2m/button/action"]
    devices = config.devices("k7m2qx")
    assert devices.tasmota == [("tm", "1"), ("dice", "roll")]
    assert devices.awtrix == ["awtrix_1"]
    assert devices.wled == ["wled/hall"]
    assert config.devices("other").wled == ["wled/hall"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--device-token", "*=tok"],
        ["--tasmota", "t1=tm:left"],
        ["--wled", "no-equals-sign"],
        ["--tables", "all", "k7m2qx"],
        ["--prefix", "a/#"],
        ["--press-topic", "t1=z2m/+/action"],
        ["--config", "/nonexistent/bridge.toml"],
    ],
)
def test_bad_options_are_refused_with_a_message_and_exit_status_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ConfigError):
        config_from_args(argv)
    assert main(argv) == 2
    assert "toadstool bridge:" in capsys.readouterr().err


def test_the_game_server_does_not_import_mqtt() -> None:
    """The bridge is a client: a server (and every game) runs without MQTT code loaded."""
    code = (
        "import sys, toadstool.server, toadstool.service, toadstool.tables, toadstool.games;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('aiomqtt', 'paho', 'toadstool_clients')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_stream_that_stays_behind_the_table_listing_is_taken_for_stuck() -> None:
    """A silently dead connection never ends a stream; the bridge notices the listing moving on without it."""
    mirror = TableMirror("t1", update=table_pb2.Update(table_id="t1", version=5))
    listing = table_pb2.TableInfo(table_id="t1", version=9)
    assert not mirror.lags(listing), "one listing ahead is just a stream a moment behind"
    assert not mirror.lags(listing)
    assert mirror.lags(listing), "still short of what was listed a poll ago, twice: stuck"
    healthy = TableMirror("t2", update=table_pb2.Update(table_id="t2", version=9))
    for version in (9, 12, 15, 20):
        assert not healthy.lags(table_pb2.TableInfo(table_id="t2", version=version))
        healthy.update = table_pb2.Update(table_id="t2", version=version)


async def test_a_change_put_while_its_topic_is_being_published_is_not_lost() -> None:
    """The turn topic goes "-" (lobby), "Ann" (playing), then "-" again (finished) while "Ann" is still in
    flight: the last value must reach the broker, not be mistaken for a repeat of the lobby's "-"."""
    outbox = Outbox(min_interval=0)
    published: list[bytes] = []

    async def publish(topic: str, payload: bytes, retain: bool) -> None:
        if payload == b"Ann":
            outbox.put(topic, b"-")  # the game finished while "Ann" was on its way
        await asyncio.sleep(0)
        published.append(payload)

    outbox.put("t/turn", b"-")
    drain = asyncio.create_task(outbox.drain(publish))
    try:
        async with asyncio.timeout(5):
            while published != [b"-"]:
                await asyncio.sleep(0.01)
            outbox.put("t/turn", b"Ann")
            while len(published) < 3:
                await asyncio.sleep(0.01)
    finally:
        drain.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await drain
    assert published == [b"-", b"Ann", b"-"]
