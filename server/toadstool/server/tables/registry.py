"""The registry of tables: creates, finds, restores and forgets tables, owns the server-wide beat, backlog
and group commit, and shuts them all down.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from toadstool.api.scopes import TaskScope, logged
from toadstool.bots import game_options, level_bot, table_budget, table_options
from toadstool.engine import (
    BadOptions,
    Event,
    creation_record,
    listing,
    parse_options,
    preview,
)
from toadstool.games import GAMES, GameSpec
from toadstool.i18n import tr, trn
from toadstool.server.memory_store import MemoryStore
from toadstool.server.records import DiskUnavailable, StoredAction, StoredSeat, StoredTable, StoreUnreadable, TableStore
from toadstool.server.tables import autoplay
from toadstool.server.tables.backlog import Backlog
from toadstool.server.tables.errors import ErrorKind, TableError
from toadstool.server.tables.pacing import Beat, Clock
from toadstool.server.tables.seats import (
    MAX_TABLE_NAME_LENGTH,
    Seat,
    SeatKind,
    Status,
    checked_level,
    new_token,
    printable,
    sanitize_name,
)
from toadstool.server.tables.table import GroupCommit, Table
from toadstool.server.tables.thinking import ThinkingPool

log = logging.getLogger(__name__)


#: Finished tables kept (replayable) before the oldest are forgotten.
KEEP_FINISHED = 200
#: How long a finished table stays in the table listing (ListTables) after it finished: a day, so a lobby
#: shows tonight's results and not last week's (GetTable, Watch and History still find it until forgotten).
LISTED_FINISHED_SECONDS = 24 * 3600

#: Longest turn clock or takeover grace a table may ask for (a day).
MAX_CLOCK_SECONDS = 86_400


class TableRegistry:
    """All tables of one server, the tasks that run their bots and clocks, and their durable store.

    Use it as an async context manager so those tasks end with it: entering it opens the registry's
    task scope, leaving it cancels every table's scope and waits for them (docs/design.md, principle 7).
    Each table's scope holds its bots and clocks; a runner's failure is logged and ends only that runner
    (see `_table_tasks`), so one broken table never cancels another's game. Its beat, backlog and tables
    tell the time by the event loop, or by `clock` if one is given (tests move one by
    hand; a clock set later is given to the tables created from then on). When a table finished is told by
    `wall_clock` (Unix seconds, kept across restarts; tests give one they move too).
    """

    def __init__(
        self,
        bot_delay: float = 0.6,
        max_tables: int = 1000,
        store: TableStore | None = None,
        clock: Clock | None = None,
        abandon_seconds: float = 0.0,
        wall_clock: Callable[[], float] = time.time,
        bot_processes: int = 0,
    ) -> None:
        self.tables: dict[str, Table] = {}
        self.wall_clock = wall_clock
        #: Seconds an unfinished table waits once every person has gone before it is ended (0: never).
        self.abandon_seconds = abandon_seconds
        self.bot_delay = bot_delay
        self.max_tables = max_tables
        #: Where every table's log is written: in memory unless a store is given (`serve` gives SQLite's).
        self.store: TableStore = store if store is not None else MemoryStore()
        self.clock = clock
        self.backlog = Backlog() if clock is None else Backlog(clock=clock.time)
        self.beat = Beat(self.backlog, clock)
        self.moves = GroupCommit()
        #: The worker processes its hard bots think in (`thinking`: made on the first hard decision, ended by
        #: `aclose`); None (`bot_processes` 0): they think in threads of this process.
        self.thinking = ThinkingPool(bot_processes) if bot_processes > 0 else None
        #: Set when the server shuts down, so open streams can say so and end.
        self.closing = False
        #: The scope of every table's scope (one task each), open between `async with` and `aclose`.
        self._scope: TaskScope | None = None
        #: Tables created before the registry was entered (synchronous use): their tasks start on `async with`.
        self._unstarted: list[Table] = []
        #: A finished table's follow-up (PlayAgain) and its host token, by the finished table's id. In memory
        #: only: after a restart the finished table names none, and the first PlayAgain makes a new one.
        self._next: dict[str, tuple[str, str]] = {}

    async def __aenter__(self) -> TableRegistry:
        self._scope = TaskScope()
        await self._scope.__aenter__()
        self.load()
        unstarted, self._unstarted = self._unstarted, []
        for table in unstarted:
            self._spawn_tasks(table)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Leave the task scope: every table's bot and clock tasks are cancelled, and this waits until each
        has really ended, then for the hard bots' worker processes to end."""
        scope, self._scope = self._scope, None
        if scope is not None:
            await scope.__aexit__(None, None, None)
        self.moves.close()
        if self.thinking is not None:
            await asyncio.to_thread(self.thinking.close)

    def shutting_down(self) -> None:
        """Tell every open stream that the server is going away."""
        self.closing = True
        for table in self.tables.values():
            table.touch()

    def load(self) -> int:
        """Bring back every table from the store (after a restart) that this registry does not serve yet;
        returns how many it serves."""
        stored_tables = self.store.tables()
        while True:
            try:
                stored, seats, actions, notes = next(stored_tables)
            except StopIteration:
                break
            except StoreUnreadable as error:  # damage the store's check at opening did not see
                log.error(
                    "%s cannot be read past the %d tables restored so far (%s); `toadstool db check` says more",
                    self.store.path,
                    len(self.tables),
                    error,
                )
                break
            if stored.table_id in self.tables:  # made by this registry before it was entered: live already
                continue
            try:
                table = self._restore(stored, seats, actions, notes)
            except Exception as error:  # one broken table must not keep every other table away
                log.warning(
                    "table %s cannot be restored (%s); it stays in the file but is not served", stored.table_id, error
                )
                continue
            self.tables[table.table_id] = table
            self._spawn_tasks(table)
        return len(self.tables)

    def _table(self, setup: StoredTable, spec: GameSpec, record: dict[str, Any]) -> Table:
        """The one place a `Table` is built: from its setup as stored (a new table's, made a moment before it
        is stored, or one read back), its game, its creation record, and what every table of this server
        shares (its beat, group commit, thinking processes, clocks and abandonment wait). Its seats start empty."""
        return Table(
            table_id=setup.table_id,
            spec=spec,
            players=setup.players,
            raw_options=setup.options,
            options=record,
            seed=setup.seed,
            name=setup.name,
            manual_start=setup.manual_start,
            bot_delay=setup.bot_delay,
            host_token_hash=setup.host_token_hash,
            device_token_hash=setup.device_token_hash,
            turn_seconds=setup.turn_seconds,
            takeover_seconds=setup.takeover_seconds,
            abandon_seconds=self.abandon_seconds,
            ended=setup.ended,
            finished_at=setup.finished_at,
            seats=[Seat(index=i) for i in range(setup.players)],
            store=self.store,
            beat=self.beat,
            moves=self.moves,
            thinking=self.thinking,
            clock=self.clock,
            wall_clock=self.wall_clock,
        )

    def _restore(
        self, stored: StoredTable, seats: list[StoredSeat], actions: list[StoredAction], notes: dict[int, list[str]]
    ) -> Table:
        spec = GAMES.get(stored.game)
        if spec is None:
            raise RuntimeError(f"this server does not know the game {stored.game!r}")
        # A table stored before creation records were kept resolves its options (a Kart track by name) this
        # once; the record is written back below, so it never reads them again.
        record = stored.record
        if record is None:
            record = creation_record(spec.engine, parse_options(spec.engine.options, game_options(stored.options)))
        table = self._table(stored, spec, record)
        now = table.now()
        for seat in seats:
            kind = SeatKind(seat.kind)
            table.seats[seat.seat] = Seat(
                index=seat.seat,
                name=seat.name,
                kind=kind,
                token_hash=seat.token_hash,
                bot=level_bot(spec, seat.bot_level, table_budget(stored.options)) if kind is SeatKind.BOT else None,
                away_since=now if kind is SeatKind.HUMAN else None,
                bot_level=seat.bot_level,
            )
        if stored.started and stored.finished_version is not None:
            table.restored_finished(stored.finished_version)
        elif stored.finished_version is not None:  # ended in the lobby: nothing to replay
            table.status = Status.FINISHED
            table.events.extend((0, Event(text=text)) for text in notes.get(0, ()))
        elif stored.started:
            table.replay(actions, notes)
        else:
            table.events.extend((0, Event(text=text)) for text in notes.get(0, ()))
        if stored.record is None:
            self.store.set_record(table.table_id, table.options)
        if not stored.started and table.status is Status.LOBBY:
            # A full table that should have started by itself (stored by a server before joins and starts
            # were one transaction, and killed between the two) starts now, as it would have then.
            try:
                table.maybe_autostart()
            except (TableError, DiskUnavailable) as error:  # it waits in the lobby for its host's StartTable
                log.warning("table %s is full but cannot start by itself (%s)", table.table_id, error)
        return table

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise TableError(
                ErrorKind.UNKNOWN_TABLE,
                tr("there is no table {table} on this server; list tables to see them", table=preview(table_id)),
            )
        return table

    def create(
        self,
        game: str,
        players: int,
        bots: int = 0,
        options: Mapping[str, str] | None = None,
        seed: int | None = None,
        name: str = "",
        manual_start: bool = False,
        bot_delay: float | None = None,
        turn_seconds: float = 0.0,
        takeover_seconds: float = 0.0,
        bot_level: int = 0,
    ) -> tuple[Table, str]:
        """Create a table (validated in full before anything is stored); returns it and its host token. Its
        `bots` play at `bot_level` (toadstool.bots.BotLevel's value; 0: normal)."""
        spec = GAMES.get(game)
        if spec is None:
            raise TableError(
                ErrorKind.BAD_REQUEST,
                tr("unknown game {game}; this server hosts: {games}", game=preview(game), games=listing(GAMES)),
            )
        engine = spec.engine
        if not engine.min_players <= players <= engine.max_players:
            raise TableError(
                ErrorKind.BAD_REQUEST,
                tr(
                    "{game} takes {min} to {max} players, not {players}",
                    game=tr(engine.title),
                    min=engine.min_players,
                    max=engine.max_players,
                    players=players,
                ),
            )
        if not 0 <= bots <= players:
            raise TableError(
                ErrorKind.BAD_REQUEST,
                tr("bots must be between 0 and {players}, not {bots}", players=players, bots=bots),
            )
        bot_level = checked_level(bot_level)
        for what, value in (("turn_seconds", turn_seconds), ("takeover_seconds", takeover_seconds)):
            if not 0 <= value <= MAX_CLOCK_SECONDS:
                raise TableError(
                    ErrorKind.BAD_REQUEST,
                    tr("{field} must be 0 (off) to {max}, not {value}", field=what, max=MAX_CLOCK_SECONDS, value=value),
                )
        raw = {name: printable(value) for name, value in (options or {}).items()}
        try:
            record = creation_record(engine, game_options(parse_options(table_options(engine), raw)))
        except BadOptions as error:
            raise TableError(ErrorKind.BAD_REQUEST, error.text) from None
        if seed is not None and not 0 <= seed < 2**63:
            raise TableError(
                ErrorKind.BAD_REQUEST, tr("the seed must be 0 to {max}, not {seed}", max=2**63 - 1, seed=seed)
            )
        self._forget_finished()
        if sum(1 for t in self.tables.values() if t.status is not Status.FINISHED) >= self.max_tables:
            raise TableError(
                ErrorKind.LIMIT,
                trn(
                    "this server holds its maximum of {n} table",
                    "this server holds its maximum of {n} tables",
                    self.max_tables,
                ),
            )
        clean_name = sanitize_name(name, MAX_TABLE_NAME_LENGTH, of_table=True) if name.strip() else ""
        table_id = self._new_id()
        host_token, host_hash = new_token()
        setup = StoredTable(
            table_id=table_id,
            game=spec.name,
            players=players,
            options=raw,
            record=record,
            seed=seed if seed is not None else secrets.randbits(63),
            name=clean_name or f"{engine.title} {table_id}",
            manual_start=manual_start,
            bot_delay=self.bot_delay if bot_delay is None else bot_delay,
            turn_seconds=turn_seconds,
            takeover_seconds=takeover_seconds,
            host_token_hash=host_hash,
            device_token_hash=None,
            started=False,
        )
        table = self._table(setup, spec, record)
        # The table, its seats and the start they trigger are one transaction: a crash in between would leave
        # a full table nobody can start (its creator never got the host token).
        with table.one_write():
            self.store.add_table(setup, [seat.stored() for seat in table.seats])
            for index in range(players - bots, players):
                table.seat_bot(index, bot_level)
            table.maybe_autostart()
        self.tables[table_id] = table
        self._spawn_tasks(table)
        return table, host_token

    def listed(self) -> list[Table]:
        """The tables a listing shows, oldest first: every unfinished one, and those finished less than
        LISTED_FINISHED_SECONDS ago (by the wall clock; one finished at an unknown time counts as just now)."""
        since = self.wall_clock() - LISTED_FINISHED_SECONDS
        return [t for t in self.tables.values() if t.finished_at is None or t.finished_at > since]

    def next_table(self, table_id: str) -> tuple[Table, str] | None:
        """The follow-up of a finished table (PlayAgain) and its host token, while it is still listed."""
        found = self._next.get(table_id)
        if found is None or found[0] not in self.tables:
            return None
        return self.tables[found[0]], found[1]

    def play_again(self, finished: Table) -> tuple[Table, str]:
        """The follow-up of a finished table, made once: the same game, options, clocks and player count, a
        bot in each seat a bot held, and each person's seat left open for them (they take it with their old
        seat, PlayAgain). Refused while the game is still on; every later call returns the same table."""
        found = self.next_table(finished.table_id)
        if found is not None:
            return found
        if finished.status is not Status.FINISHED:
            raise TableError(
                ErrorKind.NOT_PLAYING,
                tr("the game at table {table} is not over yet: play again after it", table=finished.table_id),
            )
        # A name of its own is kept; a default one ("UNO Super Mario k7m2qx") names the old id: a new default.
        default = finished.name == f"{finished.spec.engine.title} {finished.table_id}"
        table, host_token = self.create(
            game=finished.spec.name,
            players=finished.players,
            options=finished.raw_options,
            name="" if default else finished.name,
            bot_delay=finished.bot_delay,
            turn_seconds=finished.turn_seconds,
            takeover_seconds=finished.takeover_seconds,
        )
        for seat in finished.seats:
            if seat.kind is SeatKind.BOT and table.status is Status.LOBBY:
                table.add_bot(seat.index, seat.bot_level)
        self._next[finished.table_id] = (table.table_id, host_token)
        return table, host_token

    def _forget_finished(self) -> None:
        """Keep only the most recent finished tables (their history stays replayable until then)."""
        finished = [t for t in self.tables.values() if t.status is Status.FINISHED]
        for table in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            del self.tables[table.table_id]
            self.store.delete_table(table.table_id)

    def _new_id(self) -> str:
        alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
        while True:
            table_id = "".join(secrets.choice(alphabet) for _ in range(6))
            if table_id not in self.tables:
                return table_id

    def _spawn_tasks(self, table: Table) -> None:
        if self._scope is None:  # not entered yet (the registry used synchronously): started on `async with`
            self._unstarted.append(table)
            return
        if table.status is not Status.FINISHED:
            self._scope.create_task(self._table_tasks(table), name=f"table-{table.table_id}")

    async def _table_tasks(self, table: Table) -> None:
        """One table's scope: its bots, and its clocks if it has any, until its game ends or the registry
        closes. A runner's failure is logged (never lost, and an ERROR fails any test) and ends only that
        runner: the table's other runner goes on (its clock still ends an abandoned game), as do all the
        other tables. A plain TaskGroup: it waits for its runners, which end with the game, and the
        registry's scope, when left, cancels it and with it them."""
        async with asyncio.TaskGroup() as tasks:
            runners = [("bots", autoplay.run_bots)]
            if table.turn_seconds or table.takeover_seconds or table.abandon_seconds:
                runners.append(("clocks", autoplay.run_clocks))
            for kind, runner in runners:
                name = f"{kind}-{table.table_id}"
                tasks.create_task(logged(log, f"task {name}", runner, table), name=name)
