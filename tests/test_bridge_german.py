"""The MQTT bridge in German (issue #43): `toadstool bridge --lang de` (or `language = "de"` in its config
file) puts its own display words in German (the WLED line's head, Home Assistant's entity names) and asks
the server for its texts in German (the phase on an AWTRIX clock), against a real server and a real
Mosquitto broker. A person's typed name stays data: braces still cannot reach AWTRIX as a placeholder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mqtt_helpers import Broker, bridge_args, broker_fixture, recording, running_bridge, wait_until_waiting  # noqa: F401
from toadstool.server.app import RunningServer
from toadstool_clients.bridge.config import ConfigError, build_parser, config_from_options
from toadstool_clients.bridge.topics import Topics
from toadstool_clients.connection import Client

TOPICS = Topics()


@pytest.fixture(autouse=True)
def english_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    """The person running the bridge has an English locale: only --lang (or the file) makes it German, and
    what the bridge keeps in TOADSTOOL_LANG is undone after the test."""
    for name in ("TOADSTOOL_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("TOADSTOOL_LANG", "")  # recorded, so the bridge's own setting is undone afterwards


@pytest.mark.timeout(60)
async def test_a_german_bridge_publishes_german_display_text(
    server: RunningServer, client: Client, broker: Broker
) -> None:
    playing = await client.create_table(
        "kart", 2, bots=1, options={"track": "mini-loop"}, seed=3, bot_delay_ms=0, name="Kartabend"
    )
    tid = playing.table.table_id
    await client.join(tid, "Jörg {temp}", 0)  # a name with an AWTRIX placeholder in it: data, never a topic
    await wait_until_waiting(client, tid)
    lobby = (await client.create_table("uno", 3, bots=0, name="Später")).table.table_id
    args = bridge_args(server.address, broker, "--homeassistant", "--lang", "de")
    args += ["--awtrix", f"{tid}=awtrix_1a2b", "--wled", f"{lobby}=wled/lobby"]
    awtrix = f"awtrix_1a2b/custom/toadstool_{tid}"
    async with recording(broker.address) as recorder, running_bridge(*args):
        await recorder.wait_for(lambda r: bool(r.latest(awtrix)) and bool(r.latest("wled/lobby/api")))
        text = json.loads(recorder.latest(awtrix) or b"")["text"]
        assert "Jörg (temp)" in text, text
        assert "{" not in text, text
        assert "}" not in text, text
        assert "to roll" not in text, f"the server's phase is asked for in German: {text}"
        assert "würfeln" in text or "Würfel" in text or "am Zug" in text, text
        line = json.loads(recorder.latest("wled/lobby/api") or b"")["seg"][0]["n"]
        assert line.split("|")[0] == "Warten", line
        turn_config = TOPICS.ha_config(tid, "turn")
        roll_config = TOPICS.ha_config(tid, "roll")
        # The entities' configs are separate messages: wait for both that are asserted on.
        await recorder.wait_for(lambda r: bool(r.latest(turn_config)) and bool(r.latest(roll_config)))
        assert json.loads(recorder.latest(turn_config) or b"")["name"] == "Wer ist am Zug"
        names = [json.loads(m.payload)["name"] for m in recorder.messages if m.topic.startswith("homeassistant/")
                 and m.payload]  # fmt: skip
        assert "Letzter Wurf" in names, names
        assert not {"Whose turn", "Last roll", "Phase ", "Roll"} & set(names), names


def test_the_config_files_language_and_an_unknown_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`language = "de"` in the file does what --lang does; a language the bridge has no words for is
    refused, saying which it has."""
    from toadstool_clients.i18n import person_language

    config_file = tmp_path / "bridge.toml"
    config_file.write_text('language = "de"\n')
    config = config_from_options(build_parser().parse_args(["--config", str(config_file)]))
    assert config.language == "de" == person_language()
    monkeypatch.setenv("TOADSTOOL_LANG", "")
    config_file.write_text('language = "fr"\n')
    with pytest.raises(ConfigError, match="speaks en, de"):
        config_from_options(build_parser().parse_args(["--config", str(config_file)]))
