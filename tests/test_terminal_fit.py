"""The terminal at the sizes people use, on every game's largest table: every seat named on every screen
(80x24, 120x40, 60x20), no line cut without an ellipsis, a UNO hand broken between cards, your own last
move kept in view, the pause screen between hands and rounds, the game-over line and score lists by name,
the footer keeping "q: leave", number keys that choose at once, and a stale action sent again.

Screens are drawn from real views of seeded games played by bots (the server's own view and action
messages, as test_choices builds them); the stale action goes to a real server.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from functools import cache
from typing import Any

import pytest
from rich.text import Text

from toadstool.api.v1 import table_pb2
from toadstool.bots import RandomBot
from toadstool.engine import action_id, name_seats
from toadstool.games import get_game
from toadstool.selfplay import play
from toadstool.server.messages import action_message, game_view_message
from toadstool_clients.connection import Client
from toadstool_clients.terminal.app import TerminalClient
from toadstool_clients.terminal.events import with_named_scores
from toadstool_clients.terminal.menu import Menu
from toadstool_clients.terminal.pause import round_ended
from toadstool_clients.terminal.screen import fitted_keys, result_line, screen_lines

#: Each game's largest table.
LARGEST = {"uno": 10, "kart": 7, "levelup": 6, "powerup": 8}
SIZES = [(80, 24), (120, 40), (60, 20)]
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
#: Seat names of the largest tables: each distinct, none a prefix of another.
NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo"]


def _plain(lines: list[str]) -> list[str]:
    return [ANSI.sub("", line) for line in lines]


@cache
def _updates(game: str, players: int, seed: int = 4) -> tuple[table_pb2.Update, ...]:
    """Seat 0's update at every step of a seeded bot game (with or without choices), built as the server
    builds them."""
    engine = get_game(game).engine
    names = NAMES[:players]
    updates: list[table_pb2.Update] = []

    def observe(state: Any, seat: int | None, action: Any) -> None:
        update = table_pb2.Update(
            game=game, viewer_seat=0, to_act=engine.to_act(state), status=table_pb2.TABLE_STATUS_PLAYING
        )
        update.version = len(updates) + 1
        game_view_message(engine, engine.view(state, 0), names, into=update.view)
        for index, name in enumerate(names):
            update.seats.add(index=index, name=name, kind=table_pb2.SEAT_KIND_BOT if index else 0)
        for action in engine.legal_actions(state, 0):
            entry = update.legal_actions.add(
                id=action_id(action), label=name_seats(engine.describe(state, 0, action), names)
            )
            action_message(engine, action, into=entry.action)
        updates.append(update)

    play(engine, [RandomBot() for _ in range(players)], seed, observe=observe)
    return tuple(updates)


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("game", sorted(LARGEST))
def test_every_seat_of_the_largest_table_is_named_on_every_screen_and_nothing_is_cut_silently(
    game: str, width: int, height: int
) -> None:
    updates = _updates(game, LARGEST[game])
    for update in updates[:: max(1, len(updates) // 60)]:
        roomy = height >= 40  # as the client draws its menu (app.py)
        menu = (
            Menu.for_update(update).lines(width, one_per_line=roomy, most=None if roomy else 5)
            if update.legal_actions
            else []
        )
        lines = _plain(
            screen_lines(update, ["an event"], menu, Text(fitted_keys(["a: auto", "q: leave"], width)), width, height)
        )
        text = "\n".join(lines)
        assert len(lines) <= height, text
        assert all(len(line) <= width for line in lines), text
        assert lines[-1].strip().endswith("q: leave"), text
        if width < 80:  # smaller than people are promised every seat: cut only with an ellipsis
            continue
        assert "…" not in [line.strip() for line in lines], f"the game's drawing was cut short:\n{text}"
        shown = re.sub(r"\s+", " ", text)
        for name in NAMES[1 : LARGEST[game]]:
            assert re.search(rf"\b{name}\b", shown), f"{name} is not on the {width}x{height} screen:\n{text}"


def test_a_long_event_takes_two_lines_and_a_longer_one_ends_in_an_ellipsis() -> None:
    update = _updates("uno", 4)[3]
    dealt = "you were dealt " + ", ".join(f"red {n}" for n in range(9)) + " and the last card is green 7"
    longer = "you challenged Bob's Wild Draw Four and saw their hand: " + ", ".join(["yellow 7"] * 30)
    lines = _plain(screen_lines(update, [dealt, longer], [], Text("keys"), 80, 24))
    text = "\n".join(lines)
    assert "green 7" in text, f"a two-line event lost its end:\n{text}"
    cut = next(index for index, line in enumerate(lines) if "you challenged" in line)
    assert lines[cut + 1].endswith("…"), text
    assert all(len(line) <= 80 for line in lines)


@pytest.mark.parametrize(("width", "height"), [(60, 20), (80, 24)])
def test_a_uno_hand_is_broken_between_cards_never_inside_one(width: int, height: int) -> None:
    update = next(u for u in _updates("uno", 4, seed=2) if len(u.view.uno.hand) >= 14)
    lines = _plain(screen_lines(update, [], [], Text("keys"), width, height))
    start = next(i for i, line in enumerate(lines) if line.startswith("Your hand:"))
    hand = " ".join(lines[start : start + 3])
    from toadstool_clients.terminal.games.uno import card_text

    for card in update.view.uno.hand:
        assert card_text(card).plain.strip() in hand, f"{card_text(card).plain!r} is broken:\n" + "\n".join(lines)


def test_your_last_move_stays_in_view_after_others_have_acted() -> None:
    update = _updates("kart", 7)[40]
    log = ["You roll 5", "You land on field 12", *[f"Bot event {n}" for n in range(30)]]
    text = "\n".join(
        _plain(screen_lines(update, log, [], Text("keys"), 80, 24, mine=["You roll 5", "You land on field 12"]))
    )
    assert "Your last move: You roll 5 · You land on field 12" in text
    assert "Bot event 29" in text, text


@pytest.mark.parametrize("game", ["uno", "levelup", "powerup"])
def test_a_hand_or_round_that_ends_gets_a_pause_screen_naming_every_seat(game: str) -> None:
    updates = _updates(game, 4 if game != "levelup" else 3, seed=3)
    pauses = [lines for before, after in itertools.pairwise(updates) if (lines := round_ended(before, after))]
    assert pauses, "no hand or round ended in this seeded game"
    text = "\n".join(line.plain for line in pauses[0])
    assert " is over" in text
    for name in NAMES[1:3]:
        assert name in text, text
    screen = "\n".join(_plain(screen_lines(updates[-1], [], [], Text("keys"), 80, 24, pause=pauses[0])))
    assert " is over" in screen
    assert "Your choice" not in screen


def test_the_game_over_line_and_a_score_list_name_every_seat() -> None:
    update = table_pb2.Update(viewer_seat=0, status=table_pb2.TABLE_STATUS_FINISHED)
    for index, name in enumerate(["Ann", "Bob", "Cid", "Dee"]):
        update.seats.add(index=index, name=name)
    update.outcome.winners.append(1)
    update.outcome.scores.extend([0, 532, 103, 443])
    update.outcome.summary = "Bob won with 532 points"
    assert result_line(update).plain == "Game over: Bob won with 532 points  ·  you 0 · Bob 532 · Cid 103 · Dee 443"
    result = table_pb2.Event(round_result=True)
    said = with_named_scores(update, result, "Game over: Bob won (scores 0, 532, 103, 443)")
    assert said == "Game over: Bob won (you 0, Bob 532, Cid 103, Dee 443)"
    assert with_named_scores(update, result, "(scores 1, 2)") == "(scores 1, 2)"  # not the outcome's: left alone
    plain = table_pb2.Event()  # an event that marks no result keeps its words, whatever they list
    assert with_named_scores(update, plain, "(scores 0, 532, 103, 443)") == "(scores 0, 532, 103, 443)"


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_end_screen_shows_how_the_game_went_newest_lines_first_to_stay(width: int, height: int) -> None:
    """A long UNO game's account (one line a hand) in a box in place of the board: the last hands that
    fit, a count of the earlier ones, each line cut with an ellipsis, never past the screen's edge."""
    update = table_pb2.Update(viewer_seat=0, status=table_pb2.TABLE_STATUS_FINISHED, game="uno")
    for index, name in enumerate(["Ann", "Bob", "Cid", "Dee"]):
        update.seats.add(index=index, name=name)
    update.outcome.winners.append(1)
    update.outcome.scores.extend([120, 532, 103, 443])
    update.outcome.summary = "Bob won with 532 points"
    hands = [f"Hand {n}: {NAMES[n % 4]} went out and scored {10 * n} points in a long, long hand" for n in range(1, 21)]
    update.outcome.details.extend(hands)
    lines = _plain(screen_lines(update, ["Game over"], [], Text("q: leave"), width, height))
    screen = "\n".join(lines)
    assert len(lines) <= height
    assert all(len(line) <= width for line in lines)
    assert "How the game went" in screen
    assert "Hand 20: " in screen  # the newest hand is never the one left out
    shown = [n for n in range(1, 21) if f"Hand {n}: " in screen]
    assert shown == list(range(21 - len(shown), 21))
    if height < 40:
        assert f"… {20 - len(shown)} earlier" in screen
    else:  # room for the whole account
        assert shown == list(range(1, 21))
        assert "earlier" not in screen
    if width < len(hands[-1]) + 4:
        assert "…" in next(line for line in lines if "Hand 20: " in line)


@pytest.mark.parametrize("width", [60, 80, 120])
def test_the_footer_always_keeps_q_leave(width: int) -> None:
    keys = ["↑↓ Enter: choose", "1-9: choose", "Esc: back", "a: auto off", "h: host", "q: leave"]
    footer = fitted_keys(keys, width)
    assert len(footer) <= width
    assert footer.endswith("q: leave")
    assert ("a: auto off" in footer) == (width >= 80)


def test_a_whole_number_chooses_at_once_and_a_number_that_may_go_on_waits() -> None:
    few = next(u for u in _updates("uno", 4) if 2 <= len(Menu.for_update(u).entries) <= 9)
    menu = Menu.for_update(few)
    assert menu.type_digit("2")
    many = next(u for u in _updates("levelup", 6) if len(Menu.for_update(u).entries) >= 12)
    menu = Menu.for_update(many)
    assert not menu.type_digit("1")  # 1 or 10-19: wait
    assert menu.type_digit("2")
    assert menu.highlighted == 11


# ---- a stale action, at a real server ---------------------------------------------------------------------


async def _my_turn(terminal: TerminalClient, seconds: float = 30.0) -> table_pb2.Update:
    async def mine() -> table_pb2.Update:
        while True:
            latest = terminal.latest
            if latest is not None and latest.legal_actions and latest.viewer_seat in latest.to_act:
                return latest
            await asyncio.sleep(0.02)

    return await asyncio.wait_for(mine(), seconds)


def test_a_stale_action_still_legal_is_sent_again_and_one_no_longer_legal_reads_plainly(
    server_process: tuple[object, str],
) -> None:
    _, address = server_process

    async def scenario() -> tuple[str, int, int, str]:
        async with Client(address) as client:
            created = await client.create_table("uno", 2, 1, {"target": "1"}, seed=3)
            table_id = created.table.table_id
            joined = await client.join(table_id, "Ann", 0)
            terminal = TerminalClient(client, table_id, joined.seat_token)
            reader = asyncio.get_running_loop().create_task(terminal._read_stream())
            try:
                now = await _my_turn(terminal)
                if now.version == 0:  # a version to be older than: play one turn first
                    await client.act(table_id, joined.seat_token, now.version, now.legal_actions[0].id)
                    await terminal._newer_than(now.version)
                    now = await _my_turn(terminal)
                stale = table_pb2.Update()
                stale.CopyFrom(now)
                stale.version -= 1  # as if the table moved on (another seat's decision) just before
                await terminal._act(stale, now.legal_actions[0].id)
                accepted_note = terminal.note
                after = await asyncio.wait_for(terminal._newer_than(now.version), 30)
                assert after is not None
                moved_to = after.version
                now = await _my_turn(terminal)
                stale.CopyFrom(now)
                stale.version -= 1
                gone = "play:no-such-card"
                await terminal._act(stale, gone)
                return accepted_note, now.version, moved_to, terminal.note
            finally:
                reader.cancel()

    accepted_note, _, moved_to, refused_note = asyncio.run(scenario())
    assert accepted_note == "", accepted_note
    assert moved_to > 0
    assert refused_note == "The table moved on before your move arrived: look, and choose again."
    assert "version" not in refused_note


def _screen(update: table_pb2.Update, width: int = 80, height: int = 24) -> str:
    menu = Menu.for_update(update).lines(width, one_per_line=height >= 40, most=None if height >= 40 else 5)
    return "\n".join(
        _plain(screen_lines(update, [], menu if update.legal_actions else [], Text("keys"), width, height))
    )


def test_level_up_marks_you_when_it_is_your_vote_and_labels_no_cards_and_votes() -> None:
    votes = [u for u in _updates("levelup", 6) if len(u.to_act) > 1 and 0 in u.to_act]
    assert votes, "no simultaneous vote in this seeded game"
    screen = _screen(votes[0])
    assert "▶ you" in screen, screen
    assert "No! cards" in screen or "No! " in screen
    revealed = next(u for u in _updates("levelup", 6) if any(s.revealed_vote for s in u.view.levelup.seats))
    assert re.search(r"voted (Yes!|No!)", _screen(revealed)), _screen(revealed)


def test_level_up_at_120x40_has_the_whole_board_beside_the_players_table() -> None:
    update = next(u for u in _updates("levelup", 6) if u.legal_actions and u.view.levelup.round == 1)
    screen = _screen(update, 120, 40)
    assert "Board" in screen
    assert "Players" in screen
    assert re.search(r"Power Ups\s+No!\s+Blocks\s+Voted\s+Rounds", screen), screen
    assert "Your Power Ups:" in screen


def test_power_up_levels_read_plainly_and_your_cards_say_what_they_do() -> None:
    update = next(u for u in _updates("powerup", 8) if len(u.view.powerup.hand) >= 1 and u.legal_actions)
    screen = _screen(update)
    assert not re.search(r"Level x\d", screen), screen
    assert "(face down) =" not in screen
    card = update.view.powerup.hand[0]
    assert f"{card.name}  {card.effect[:20]}" in screen, screen


def test_the_kart_legend_and_shortcuts_are_drawn_at_80x24_and_a_banana_is_a_b() -> None:
    update = next(u for u in _updates("kart", 7) if u.view.kart.banana_fields and u.legal_actions)
    screen = _screen(update)
    for words in ("? item", "» boost", "m mushroom", "T Thwomp", "b banana", "A╌A shortcut"):
        assert words in screen, screen
    track = next(line for line in screen.splitlines() if line.startswith(("·", "?")))
    assert "(" not in track
    assert "b" in track[:60]
    cuts = next(line for line in screen.splitlines() if "╌" in line and "shortcut" not in line[:60])
    assert "A╌" in cuts[:60], screen


def test_kart_at_120x40_shows_the_karts_table_beside_the_compact_track_when_the_full_drawing_does_not_fit() -> None:
    update = next(u for u in _updates("kart", 7) if len(u.legal_actions) >= 2)
    screen = _screen(update, 120, 40)
    assert re.search(r"Kart\s+┃ Driver\s+┃ Lap\s+┃ Field\s+┃ Progress\s+┃ Coins\s+┃ Item", screen), screen
    assert "b banana" in screen
