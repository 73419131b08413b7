"""The bridge's settings: command-line options and the optional TOML config file, merged into one value.

It is for parsing and validating what the person running `toadstool bridge` asked for (which tables,
which broker, device tokens, displays). It is not for doing anything with them (`app`).

The config file keeps secrets (broker password, device tokens) off the command line, where other users
of the machine could read them in the process list:

    username = "toadstool"
    password = "secret"
    language = "de"                                # the displays' words (default: --lang, else the locale)
    [tables.k7m2qx]
    device_token = "..."                           # from the table's host: lets a button roll
    press_topics = ["zigbee2mqtt/dice_button/action"]
    wled = ["wled/matrix"]
    awtrix = ["awtrix_1a2b3c"]
    tasmota = ["tm1637_ann:0", "dice7seg:roll"]
    [tables."*"]                                   # displays that show one table after another
    wled = ["wled/hall"]

A WLED or Tasmota display shows one thing: giving it to two tables (a table id and "*" included), or one
Tasmota display two values, is refused. AWTRIX 3 clocks may serve several tables: each gets its own app.
The file is decoded into typed sections (msgspec Structs): an unknown key, or a value of the wrong type,
is refused naming the key and what it should be.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import msgspec

from toadstool_clients.bridge.formats import Devices, parse_tasmota
from toadstool_clients.bridge.publisher import BrokerConfig, parse_broker
from toadstool_clients.connection import server_address
from toadstool_clients.i18n import LANGUAGES, person_language
from toadstool_clients.language import LANG_VARIABLE

ALL_TABLES = "*"


class ConfigError(ValueError):
    """The options or the config file do not make sense; the message says what to fix."""


@dataclass
class TableSettings:
    """What the bridge does for one table beyond mirroring it (or for every table, under "*")."""

    device_token: str | None = None
    press_topics: list[str] = field(default_factory=list)
    devices: Devices = field(default_factory=Devices)


@dataclass
class BridgeConfig:
    server: str
    broker: BrokerConfig
    #: None: every table the server lists; else these table ids.
    tables: list[str] | None = None
    prefix: str = "toadstool"
    homeassistant: bool = False
    ha_prefix: str = "homeassistant"
    min_interval: float = 0.2
    poll: float = 2.0
    linger: float = 60.0
    max_backoff: float = 10.0
    server_tls_ca: str | None = None
    press_debounce: float = 1.0
    #: Seconds each die roll stays on a die display before the next roll of the same table is shown.
    roll_pace: float = 1.5
    per_table: dict[str, TableSettings] = field(default_factory=dict)
    #: The language of the words the bridge puts on displays itself and asks the server's texts in.
    language: str = LANGUAGES[0]

    def settings(self, table_id: str) -> TableSettings:
        """The settings of one table (empty when none were given)."""
        return self.per_table.get(table_id) or TableSettings()

    def devices(self, table_id: str) -> Devices:
        """The displays of one table: its own and those for every table ("*")."""
        shared = self.per_table.get(ALL_TABLES)
        own = self.settings(table_id).devices
        return own.merged(shared.devices) if shared else own


DESCRIPTION = (
    "Mirror public table state to MQTT (LED dice, score displays, Home Assistant). Topics and payloads: docs/mqtt.md."
)


def build_parser() -> argparse.ArgumentParser:
    """`toadstool bridge`'s parser on its own (`toadstool` itself adds the options to its subcommand)."""
    parser = argparse.ArgumentParser(prog="toadstool bridge", description=DESCRIPTION)
    add_arguments(parser)
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `toadstool bridge` (docs/mqtt.md explains each), but -v, which `toadstool` has."""
    parser.add_argument("--server", help="HOST[:PORT] of the game server (default: $TOADSTOOL_SERVER or 127.0.0.1)")
    parser.add_argument("--server-tls-ca", help="PEM certificate of a TLS game server (default: $TOADSTOOL_TLS_CA)")
    parser.add_argument("--broker", default="127.0.0.1", help="HOST[:PORT] of the MQTT broker (default 127.0.0.1:1883)")
    parser.add_argument("--tables", nargs="+", default=["all"], metavar="all|ID", help="tables to mirror (default all)")
    parser.add_argument("--prefix", default="toadstool", help="topic prefix (default toadstool)")
    parser.add_argument("--username", help="broker user name")
    parser.add_argument("--password", help="broker password (better: $TOADSTOOL_MQTT_PASSWORD or the config file)")
    parser.add_argument("--tls", action="store_true", help="connect to the broker over TLS (port 8883 by default)")
    parser.add_argument("--tls-ca", help="PEM CA certificate of the broker (implies --tls)")
    parser.add_argument("--homeassistant", action="store_true", help="announce tables to Home Assistant discovery")
    parser.add_argument("--ha-prefix", default="homeassistant", help="Home Assistant discovery prefix")
    parser.add_argument("--wled", action="append", default=[], metavar="ID=TOPIC", help="WLED device scrolls a table")
    parser.add_argument("--awtrix", action="append", default=[], metavar="ID=PREFIX", help="AWTRIX 3 custom app")
    parser.add_argument(
        "--tasmota", action="append", default=[], metavar="ID=TOPIC:SEAT|roll", help="Tasmota TM1637 number"
    )
    parser.add_argument(
        "--device-token", action="append", default=[], metavar="ID=TOKEN", help="let buttons roll at a table"
    )
    parser.add_argument(
        "--press-topic", action="append", default=[], metavar="ID=TOPIC", help="extra topic of a table's button"
    )
    parser.add_argument(
        "--lang",
        metavar="LANGUAGE",
        help="the displays' language, such as de or en (default: the config file's, else your locale, as $LANG)",
    )
    parser.add_argument("--config", help="TOML file with credentials, device tokens and displays (see docs/mqtt.md)")
    parser.add_argument("--min-interval", type=float, default=0.2, help="seconds between messages on one topic")
    parser.add_argument("--poll", type=float, default=2.0, help="seconds between table listings")
    parser.add_argument("--linger", type=float, default=60.0, help="seconds a finished table stays before clearing")
    parser.add_argument("--max-backoff", type=float, default=10.0, help="longest wait between reconnect attempts")
    parser.add_argument(
        "--roll-pace", type=float, default=1.5, help="seconds each roll stays on a die before the next (default 1.5)"
    )


def _pairs(values: Sequence[str], flag: str) -> list[tuple[str, str]]:
    pairs = []
    for value in values:
        table_id, sep, rest = value.partition("=")
        if not sep or not table_id or not rest:
            raise ConfigError(f"{flag} takes ID=VALUE (ID may be * for every table), not {value!r}")
        pairs.append((table_id, rest))
    return pairs


class _TableSection(msgspec.Struct, forbid_unknown_fields=True):
    """What `[tables.ID]` (or `[tables."*"]`) may say in the config file: a string or a list of strings each."""

    device_token: str | msgspec.UnsetType = msgspec.UNSET
    press_topics: str | list[str] = []
    wled: str | list[str] = []
    awtrix: str | list[str] = []
    tasmota: str | list[str] = []


class _ConfigFile(msgspec.Struct, forbid_unknown_fields=True):
    """The config file's top level; each `[tables.ID]` is decoded on its own so errors can name its ID."""

    username: str = ""
    password: str = ""
    language: str = ""
    tables: dict[str, object] = {}


S = TypeVar("S", bound=msgspec.Struct)

#: msgspec's type names that TOML calls otherwise (TOML has no null).
_TOML_NAMES = {"object": "table", "null": ""}
_MISMATCH = re.compile(r"Expected `(?P<expected>[^`]+)`, got `(?P<got>[^`]+)`(?: - at `\$(?P<at>[^`]*)`)?$")
_UNKNOWN = re.compile(r"Object contains unknown field `(?P<key>[^`]+)`(?: - at `\$(?P<at>[^`]*)`)?$")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_MISSING = re.compile(r"Object missing required field `(?P<key>[^`]+)`(?: - at `\$(?P<at>[^`]*)`)?$")


def _key(where: str, at: str | None, key: str = "") -> str:
    """A dotted key path from a section ("tables.k7m2qx"), msgspec's path below it (".wled[0]") and a key."""
    return ".".join(part for part in (where, (at or "").lstrip("."), key) if part)


def _type_names(names: str) -> str:
    return " or ".join(n for n in (_TOML_NAMES.get(name, name) for name in names.split(" | ")) if n)


def explained(error: msgspec.ValidationError, type_: type[msgspec.Struct], where: str = "") -> str:
    """msgspec's validation message in the config file's words: which key, and what was expected there."""
    message = str(error)
    if found := _MISMATCH.match(message):
        key = _key(where, found["at"]) or "the file"
        return f"{key}: expected {_type_names(found['expected'])}, got {_type_names(found['got'])}"
    if found := _UNKNOWN.match(message):
        known = "" if found["at"] else f" (known: {', '.join(f.name for f in msgspec.structs.fields(type_))})"
        return f"unknown setting {_key(where, found['at'], found['key'])}{known}"
    if found := _MISSING.match(message):
        return f"missing setting {_key(where, found['at'], found['key'])}"
    return f"{message} (in {where})" if where else message


def typed(value: object, type_: type[S], source: str, where: str = "") -> S:
    """Decoded TOML data (`value`, the section `where` of the file `source`) as `type_`; a ConfigError says
    which key is wrong and what it should be."""
    try:
        return msgspec.convert(value, type=type_)
    except msgspec.ValidationError as error:
        raise ConfigError(f"in {source}: {explained(error, type_, where)}") from None


def read_toml(path: str, type_: type[S]) -> S:
    """The TOML file at `path` as `type_` (a msgspec Struct); ConfigError says what is wrong and where."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise ConfigError(f"cannot read the config file {path}: {error.strerror}") from None
    try:
        decoded = msgspec.toml.decode(data)
    except msgspec.DecodeError as error:
        raise ConfigError(f"the config file {path} is not valid TOML: {error}") from None
    return typed(decoded, type_, path)


def _section(table_id: str) -> str:
    """The TOML key of a table's section: tables.k7m2qx, or quoted as the file must write it (tables."*")."""
    return f"tables.{table_id}" if _BARE_KEY.fullmatch(table_id) else f'tables."{table_id}"'


def _strings(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _file_settings(path: str) -> tuple[_ConfigFile, dict[str, TableSettings]]:
    """The config file's top level and its `[tables.ID]` sections (see the module's docstring)."""
    data = read_toml(path, _ConfigFile)
    per_table: dict[str, TableSettings] = {}
    for table_id, value in data.tables.items():
        section = typed(value, _TableSection, path, _section(table_id))
        settings = per_table.setdefault(table_id, TableSettings())
        if isinstance(section.device_token, str):
            if table_id == ALL_TABLES:
                raise ConfigError("a device token belongs to one table; it cannot be given for *")
            settings.device_token = section.device_token
        settings.press_topics += _strings(section.press_topics)
        settings.devices.wled += _strings(section.wled)
        settings.devices.awtrix += _strings(section.awtrix)
        try:
            settings.devices.tasmota += [parse_tasmota(spec) for spec in _strings(section.tasmota)]
        except ValueError as error:
            raise ConfigError(f"in {path}: {_section(table_id)}.tasmota: {error}") from None
    return data, per_table


def _refuse_shared_displays(per_table: dict[str, TableSettings]) -> None:
    """A WLED or Tasmota display given to two tables (or "*" and a table), or one Tasmota display given two
    values, would flip between them with every update: refuse it, saying which."""
    owners: dict[str, tuple[str, str]] = {}
    for table_id, settings in per_table.items():
        for topic, what in settings.devices.command_topics():
            owner = owners.setdefault(topic, (table_id, what))
            if owner[0] != table_id:
                raise ConfigError(
                    f"{what} is given for table {owner[0]} and for table {table_id}: a display shows one table "
                    f"(give it to one table id, or to * to show one table after another)"
                )
            if owner[1] != what:
                raise ConfigError(f"{owner[1]} and {what} are one display; it can show one of them only")


def config_from_args(argv: Sequence[str]) -> tuple[BridgeConfig, bool]:
    """The bridge's config and whether to log verbosely; ConfigError says what is wrong."""
    args = build_parser().parse_args(list(argv))
    return config_from_options(args), args.verbose


def config_from_options(args: argparse.Namespace) -> BridgeConfig:
    """The bridge's config from its parsed options (and the config file they name); ConfigError says what
    is wrong."""
    file, per_table = _file_settings(args.config) if args.config else (_ConfigFile(), {})

    def table(table_id: str) -> TableSettings:
        return per_table.setdefault(table_id, TableSettings())

    for table_id, token in _pairs(args.device_token, "--device-token"):
        if table_id == ALL_TABLES:
            raise ConfigError("a device token belongs to one table; it cannot be given for *")
        table(table_id).device_token = token
    for table_id, topic in _pairs(args.press_topic, "--press-topic"):
        table(table_id).press_topics.append(topic)
    for table_id, topic in _pairs(args.wled, "--wled"):
        table(table_id).devices.wled.append(topic)
    for table_id, prefix in _pairs(args.awtrix, "--awtrix"):
        table(table_id).devices.awtrix.append(prefix)
    for table_id, spec in _pairs(args.tasmota, "--tasmota"):
        try:
            table(table_id).devices.tasmota.append(parse_tasmota(spec))
        except ValueError as error:
            raise ConfigError(str(error)) from None
    for settings in per_table.values():
        for topic in settings.press_topics:
            if not topic or any(ch in topic for ch in "+#"):
                raise ConfigError(f"a press topic must be one concrete topic, not {topic!r}")
    _refuse_shared_displays(per_table)

    _choose_language(getattr(args, "lang", None) or file.language)
    tls = bool(args.tls or args.tls_ca)
    host, port = parse_broker(args.broker, tls)
    password = args.password or os.environ.get("TOADSTOOL_MQTT_PASSWORD") or file.password or None
    username = args.username or file.username or None
    broker = BrokerConfig(
        host=host,
        port=port,
        username=username,
        password=password,
        tls=tls,
        tls_ca=args.tls_ca,
        max_backoff=args.max_backoff,
    )
    if "all" in args.tables and len(args.tables) > 1:
        raise ConfigError("--tables takes either all or table ids, not both")
    if any(ch in args.prefix for ch in "+#") or not args.prefix.strip("/"):
        raise ConfigError(f"--prefix must be a plain topic prefix, not {args.prefix!r}")
    for name in ("min_interval", "poll", "linger", "max_backoff", "roll_pace"):
        if getattr(args, name) < 0:
            raise ConfigError(f"--{name.replace('_', '-')} cannot be negative")
    config = BridgeConfig(
        server=server_address(args.server),
        broker=broker,
        tables=None if args.tables == ["all"] else list(args.tables),
        prefix=args.prefix.strip("/"),
        homeassistant=args.homeassistant,
        ha_prefix=args.ha_prefix.strip("/"),
        min_interval=args.min_interval,
        poll=max(0.05, args.poll),
        linger=args.linger,
        max_backoff=args.max_backoff,
        server_tls_ca=args.server_tls_ca,
        roll_pace=args.roll_pace,
        per_table=per_table,
        language=person_language(),
    )
    return config


def _choose_language(chosen: str) -> None:
    """The bridge's language, when the options or the file name one: kept where `toadstool --lang` keeps it
    for a client process (TOADSTOOL_LANG), so that the server's texts it asks for and its own words on the
    displays are both in it. None named: the locale's, as every client."""
    if not chosen:
        return
    if chosen.replace("_", "-").split("-")[0].lower() not in LANGUAGES:
        raise ConfigError(f"the bridge speaks {', '.join(LANGUAGES)}, not {chosen!r}")
    os.environ[LANG_VARIABLE] = chosen
