"""The bridge's pure parts: what counts as a press, topic safety, the coalescing outbox, the command line."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from toadstool.api.v1 import table_pb2
from toadstool_clients.bridge import formats
from toadstool_clients.bridge.app import PressRefused, TableMirror, main, parse_press, request_id_for
from toadstool_clients.bridge.config import ConfigError, config_from_args, read_toml
from toadstool_clients.bridge.publisher import Outbox, parse_broker
from toadstool_clients.bridge.topics import Topics, safe_level
from toadstool_clients.names import counted, with_singular_counts


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


def _update(names: list[str], scores: list[int], phase: str, to_act: list[int]) -> table_pb2.Update:
    update = table_pb2.Update(
        table_id="t", status=table_pb2.TABLE_STATUS_PLAYING, phase=phase, scores=scores, to_act=to_act
    )
    for index, name in enumerate(names):
        update.seats.add(index=index, name=name)
    return update


def test_wled_text_keeps_one_layout_through_the_game_within_the_32_bytes_every_wled_keeps() -> None:
    """WLED keeps WLED_MAX_SEGNAME_LEN bytes of a segment name: 32 on an ESP8266 (wled00/const.h). The
    layout is the same at every turn (names fitted for every seat marked), so the line never jumps."""
    ann = _update(["Ann", "Bot 1"], [0, 2], "Ann to roll", [0])
    bot = _update(["Ann", "Bot 1"], [0, 2], "Bot 1 to roll", [1])
    assert formats.fitted_text(ann) == ">Ann 0|Bot 1 2"
    assert formats.fitted_text(bot) == "Ann 0|>Bot 1 2", "only the mark moves"
    crowded = ["Princess Peach", "Zoë the Magnificent #1", "Bot 11", "Bot 12"]
    turns = [formats.fitted_text(_update(crowded, [12, 45, 7, 0], "", [seat])) for seat in range(4)]
    assert len({text.replace(">", "") for text in turns}) == 1, f"the layout changed with the turn: {turns}"
    for seat, text in enumerate(turns):
        assert len(text.encode()) <= formats.WLED_TEXT_LIMIT == 32
        assert text.isascii()
        assert "#" not in text, "WLED's scrolling text would show the clock for #TIME"
        parts = text.split("|")
        assert [part.rsplit(" ", 1)[1] for part in parts] == ["12", "45", "7", "0"], "every score, in seat order"
        assert parts[seat].startswith(">"), "whose turn is marked"
        assert len({part.rsplit(" ", 1)[0].lstrip(">") for part in parts}) == 4, "names stay told apart"
    assert turns[0].split("|")[1].startswith("Zoe"), "transliterated, not dropped"
    finished = _update(["Ann", "Bot 1"], [3, 2], "Game over", [])
    finished.status = table_pb2.TABLE_STATUS_FINISHED
    finished.outcome.winners.append(0)
    finished.outcome.summary = "Ann wins the race on Mini Loop (1. Ann, 2. Bot 1)"
    assert formats.fitted_text(finished) == "Game over|*Ann 3|Bot 1 2"
    payload = formats.wled_payload(turns[0])
    assert "on" not in payload, "the bridge never switches the lamp on (or off)"
    assert payload == {"seg": [{"id": 0, "on": True, "fx": 122, "n": turns[0]}]}


def test_a_lobby_without_scores_is_a_wled_line_too() -> None:
    lobby = _update(["Ann", "Bob"], [], "Waiting for players (2 open seats)", [])
    lobby.status = table_pb2.TABLE_STATUS_LOBBY
    assert formats.fitted_text(lobby) == "Waiting"


def test_a_name_cannot_pass_for_the_wled_lines_marks() -> None:
    text = formats.fitted_text(_update(["*Ann", "Bo|b 9", ">"], [1, 2, 3], "", [1]))
    assert text == "Ann 1|>Bo b 9 2|P3 3"


def test_the_end_of_a_game_is_said_on_wled_even_when_the_host_ended_it_at_a_full_table() -> None:
    names = ["Alexandra", "Bartholomew", "Constantine", "Dorothea", "Bot 4", "Bot 5", "Bot 6", "Bot 7"]
    ended = _update(names, [100, 99, 98, 97, 96, 95, 94, 93], "", [])
    ended.status = table_pb2.TABLE_STATUS_FINISHED
    ended.outcome.ended = "ended by its host"
    text = formats.fitted_text(ended)
    assert text.startswith("Game over|"), text
    assert len(text) <= formats.WLED_TEXT_LIMIT


@pytest.mark.parametrize(
    ("name", "plain"),
    [
        ("Zoë", "Zoe"),
        ("Юля", "Yulya"),
        ("Søren Ølgård", "Soren Olgard"),
        ("王芳", "WangFang"),
        ("Ann #TIME", "Ann TIME"),
    ],
)
def test_names_keep_their_letters_in_ascii(name: str, plain: str) -> None:
    assert formats.ascii_text(name) == plain


HOSTILE = ["{{#}}", "{{zigbee2mqtt/door}}", "{{{a}}}", "#TIME #DD", "\x1b[2J\u0007", "Ann\n{{+}}", "}}{{", '"}]}']


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_name_is_plain_text_on_every_device(name: str) -> None:
    """AWTRIX 3 replaces `{{topic}}` with that topic's payload and subscribes to it; WLED's scrolling text
    reads `#` tokens; Tasmota numbers are digits. Whatever a name says, each device gets plain text."""
    update = _update([name.encode().decode("unicode_escape"), "Bot 1"], [1, 2], f"{name} to roll", [0])
    devices = formats.Devices(wled=["wled/m"], awtrix=["awtrix"], tasmota=[("tm", "0"), ("dice", "roll")])
    app = json.loads(formats.device_messages(update, devices)["awtrix/custom/toadstool_t"])
    assert "{" not in app["text"], app
    assert "}" not in app["text"], app
    assert app["lifetime"] == formats.AWTRIX_LIFETIME
    wled = json.loads(formats.device_messages(update, devices)["wled/m/api"])
    text = wled["seg"][0]["n"]
    assert "#" not in text, text
    assert text.isascii(), text
    assert text.isprintable(), text
    roll = formats.Roll("3.0", 3, 0, name, "move", 4)
    commands = {**formats.device_commands(update, devices), **formats.roll_commands(roll, devices)}
    assert commands == {"cmnd/tm/DisplayNumber": b"1", "cmnd/dice/DisplayNumber": b"4"}


def test_home_assistant_ids_keep_to_the_characters_it_allows() -> None:
    """Home Assistant ignores a discovery topic whose node or object id has a character outside
    [a-zA-Z0-9_-], so a prefix with a dot must not make one."""
    topics = Topics(prefix="home.games/toadstool")
    update = _update(["Ann"], [0], "Ann to roll", [0])
    update.table_id = "k7.m2"
    configs = [*formats.ha_discovery(update, topics), *formats.ha_spotlight_discovery(topics, 2)]
    for topic in configs:
        prefix, component, node, obj, config = topic.split("/")
        assert (prefix, config) == ("homeassistant", "config")
        assert component in {"sensor", "event"}
        assert re.fullmatch(r"[A-Za-z0-9_-]+", node), topic
        assert re.fullmatch(r"[A-Za-z0-9_-]+", obj), topic
    assert configs[0].split("/")[2] == "toadstool_home_games_toadstool_k7_m2"


def test_a_count_of_one_reads_in_the_singular() -> None:
    lobby = table_pb2.Update(
        table_id="t", status=table_pb2.TABLE_STATUS_LOBBY, phase="Waiting for players (1 open seats)"
    )
    assert formats.display_text(lobby) == "Waiting for players (1 open seat)"
    assert formats.state_payload(lobby)["phase"] == "Waiting for players (1 open seat)"
    assert with_singular_counts("Ann adds 1 coin points") == "Ann adds 1 coin point"
    assert with_singular_counts("Ann adds 3 coin points (2 open seats)") == "Ann adds 3 coin points (2 open seats)"
    assert with_singular_counts("Bot 1 points") == "Bot 1 points", "a name ending in 1 is not a count"
    assert [counted(n, "open seat") for n in (0, 1, 2)] == ["0 open seats", "1 open seat", "2 open seats"]


def test_home_assistant_discovery_says_which_application_supplies_it() -> None:
    update = _update(["Ann"], [0], "Ann to roll", [0])
    for payload in formats.ha_discovery(update, Topics()).values():
        origin = json.loads(payload)["origin"]
        assert origin["name"] == "Toadstool bridge"
        assert origin["sw_version"] == importlib.metadata.version("toadstool")
        assert set(origin) <= {"name", "sw_version", "support_url"}


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


async def test_events_go_out_each_in_order_repeats_included_and_a_clear_is_followed_by_its_state() -> None:
    """A die must show every roll (the same value twice is two rolls); a WLED display is cleared by deleting
    its retained text and then sending the state that clears it, unless new text came first."""
    outbox = Outbox(min_interval=0)
    sent: list[tuple[str, bytes, bool]] = []

    async def publish(topic: str, payload: bytes, retain: bool) -> None:
        sent.append((topic, payload, retain))

    for value in (b"4", b"4", b"2", b"4"):
        outbox.event("cmnd/dice/DisplayNumber", value)
    outbox.put("wled/a/api", b"{text}")
    outbox.clear("wled/b/api", then=b"{clear}")
    outbox.clear("wled/c/api", then=b"{clear}")
    outbox.put("wled/c/api", b"{next}")  # the next table's text replaces the clear and its state
    drain = asyncio.create_task(outbox.drain(publish))
    try:
        async with asyncio.timeout(5):
            while len(sent) < 8:
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
    finally:
        drain.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await drain
    assert [p for t, p, _ in sent if t == "cmnd/dice/DisplayNumber"] == [b"4", b"4", b"2", b"4"]
    assert all(not retain for t, _, retain in sent if t.startswith("cmnd/"))
    assert [(p, r) for t, p, r in sent if t == "wled/b/api"] == [(b"", True), (b"{clear}", False)]
    assert [(p, r) for t, p, r in sent if t == "wled/c/api"] == [(b"{next}", True)]
    assert outbox.sent["wled/b/api"] == b"{clear}", "the next text differs from what the display shows"


async def test_a_value_equal_to_the_one_published_or_on_its_way_is_never_sent_again() -> None:
    """A display that shows "3", then gets "5" and "3" again before "5" went out, must not get "3" twice;
    nor may a value put while the same value is being published go out a second time."""
    outbox = Outbox(min_interval=0)
    published: list[bytes] = []
    release = asyncio.Event()

    async def publish(topic: str, payload: bytes, retain: bool) -> None:
        if payload == b"7":
            await release.wait()
        published.append(payload)

    outbox.sent["tm"] = b"3"
    outbox.put("tm", b"5", retain=False)
    outbox.put("tm", b"3", retain=False)
    assert outbox.pending == {}, "back to what the display shows: nothing to send"
    drain = asyncio.create_task(outbox.drain(publish))
    try:
        outbox.put("tm", b"7", retain=False)
        async with asyncio.timeout(5):
            while "tm" not in outbox.inflight:
                await asyncio.sleep(0.01)
        outbox.put("tm", b"7", retain=False)
        assert outbox.pending == {}, "7 is on its way already"
        release.set()
        async with asyncio.timeout(5):
            while published != [b"7"]:
                await asyncio.sleep(0.01)
        outbox.reconnected()
        outbox.put("tm", b"7", retain=False)
        assert outbox.pending == {}, "a command is not repeated after a reconnect: the device has it"
    finally:
        drain.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await drain
    assert published == [b"7"]


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
        ["--roll-pace", "-1"],
        # One display, two tables (a table and *, too), or one TM1637 told to show two things.
        ["--wled", "*=wled/hall", "--wled", "k7m2qx=wled/hall"],
        ["--tasmota", "t1=tm:0", "--tasmota", "t2=tm:0"],
        ["--tasmota", "t1=tm:0", "--tasmota", "t1=tm:roll"],
    ],
)
def test_bad_options_are_refused_with_a_message_and_exit_status_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ConfigError):
        config_from_args(argv)
    assert main(argv) == 2
    assert "toadstool bridge:" in capsys.readouterr().err


def test_a_display_given_to_two_tables_is_refused_saying_which_and_why() -> None:
    with pytest.raises(ConfigError, match=r"WLED wled/hall is given for table \* and for table k7m2qx"):
        config_from_args(["--wled", "*=wled/hall", "--wled", "k7m2qx=wled/hall"])
    # An AWTRIX 3 clock shows each table as its own app: sharing one is fine, and so is a repeated option.
    config, _ = config_from_args(
        ["--awtrix", "*=awtrix_1", "--awtrix", "t1=awtrix_1", "--wled", "t1=w", "--wled", "t1=w"]
    )
    assert config.settings("t1").devices.awtrix == ["awtrix_1"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # A value of the wrong type names its key and what it should have been.
        ("[tables.k7m2qx]\ndevice_token = 30\n", "tables.k7m2qx.device_token: expected str, got int"),
        ('[tables."*"]\nwled = 5\n', 'tables."*".wled: expected str or array, got int'),
        ('[tables."*"]\nwled = ["wled/hall", 5]\n', 'tables."*".wled[1]: expected str, got int'),
        ("username = 5\n", "username: expected str, got int"),
        ("tables = 5\n", "tables: expected table, got int"),
        ("[tables]\nk7m2qx = 5\n", "tables.k7m2qx: expected table, got int"),
        # An unknown key says which keys are known there.
        ('usrname = "toadstool"\n', "unknown setting usrname (known: username, password, language, tables)"),
        (
            "[tables.k7m2qx]\nwled_topic = 'wled/hall'\n",
            "unknown setting tables.k7m2qx.wled_topic (known: device_token, press_topics, wled, awtrix, tasmota)",
        ),
        (
            "[tables.k7m2qx]\ntasmota = 'tm:left'\n",
            "tables.k7m2qx.tasmota: a Tasmota display is TOPIC:SEAT or TOPIC:roll",
        ),
        ('[tables."*"]\ndevice_token = "tok"\n', "a device token belongs to one table; it cannot be given for *"),
        ("password = \n", "is not valid TOML"),
    ],
)
def test_a_wrong_config_file_is_refused_naming_the_key_and_what_it_should_be(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "bridge.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as raised:
        config_from_args(["--config", str(path)])
    assert message in str(raised.value)


class _KartLike(msgspec.Struct, forbid_unknown_fields=True):
    """A file shape with required keys and a number, as a Kart track has (title, length)."""

    title: str
    length: int
    fields: dict[str, list[int]] = {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('title = "Tiny"\nlength = "30"\n', "length: expected int, got str"),
        ('title = "Tiny"\nlength = 3.5\n', "length: expected int, got float"),
        ('title = "Tiny"\n', "missing setting length"),
        ('title = "Tiny"\nlength = 30\n[fields]\nitem = [3, "9"]\n', "fields[...][1]: expected int, got str"),
        ('title = "Tiny"\nlength = 30\nlenght = 31\n', "unknown setting lenght (known: title, length, fields)"),
    ],
)
def test_the_typed_toml_reader_says_which_key_is_wrong_not_that_it_is_missing(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "track.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as raised:
        read_toml(str(path), _KartLike)
    assert str(raised.value) == f"in {path}: {message}"


def test_the_typed_toml_reader_gives_the_typed_value(tmp_path: Path) -> None:
    path = tmp_path / "track.toml"
    path.write_text('title = "Tiny"\nlength = 30\n[fields]\nitem = [3, 9]\n')
    assert read_toml(str(path), _KartLike) == _KartLike(title="Tiny", length=30, fields={"item": [3, 9]})


def test_the_game_server_does_not_import_mqtt() -> None:
    """The bridge is a client: a server (and every game) runs without MQTT code loaded."""
    code = (
        "import sys, toadstool.server.app, toadstool.server.service, toadstool.server.tables, toadstool.games;"
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


async def test_a_number_still_being_sent_when_its_table_is_cleared_does_not_hide_the_next_tables_same_number() -> None:
    """A shared display's number in flight when its table is cleared is forgotten with it: the next table's
    number goes out after DisplayClear even when it is the same value (else the display stayed blank)."""
    box = Outbox(0.0)
    sent: list[tuple[str, bytes]] = []
    gate = asyncio.Event()

    async def publish(topic: str, payload: bytes, retain: bool) -> None:
        if payload == b"4" and not gate.is_set():
            await gate.wait()  # Ann's number is in flight ...
        sent.append((topic, payload))

    box.put("cmnd/d/DisplayNumber", b"4", retain=False)
    drain = asyncio.create_task(box.drain(publish))
    await asyncio.sleep(0.01)
    # ... when Ann's table is cleared and Bea's, whose last roll is also 4, comes on.
    box.forget("cmnd/d/DisplayNumber")
    box.put("cmnd/d/DisplayClear", b"", retain=False, force=True)
    box.put("cmnd/d/DisplayNumber", b"4", retain=False)
    gate.set()
    try:
        async with asyncio.timeout(10):
            while sent[-1:] != [("cmnd/d/DisplayNumber", b"4")] or len(sent) < 2:
                await asyncio.sleep(0.01)
    finally:
        drain.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await drain
    clear = sent.index(("cmnd/d/DisplayClear", b""))
    assert ("cmnd/d/DisplayNumber", b"4") in sent[clear + 1 :]
