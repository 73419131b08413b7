"""The terminal's own words in German (issue #43): with a German locale (or `--lang de`) the screen's chrome
(the turn line, seats, the events heading, the end screen's account, the footer's keys, the host menu) is
German from the clients' catalogue, fits 80x24 and 60x20, and none of the English chrome is left. The
server's texts (phases, events) are the server's, in the language the client asks for; the scores the game's
end lists in them are named by the outcome's numbers, in German as in English (a real game to its end).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from rich.text import Text

from toadstool.api.v1 import table_pb2
from toadstool_clients.i18n import _, person_language
from toadstool_clients.terminal.host import HostMenu
from toadstool_clients.terminal.screen import screen_lines

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
#: The English chrome that must not be on a German screen.
ENGLISH = ["Waiting for players", "Seats:", "Events", "open seat", "How the game went", "Game over", "(you",
           "q: leave", "the only choice", "Host controls", "Start now", "Add a bot", "End the table",
           "disconnected"]  # fmt: skip


@pytest.fixture
def german(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TOADSTOOL_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "de_DE.UTF-8")


def _plain(lines: list[str]) -> str:
    return "\n".join(ANSI.sub("", line) for line in lines)


def _lobby() -> table_pb2.Update:
    update = table_pb2.Update(viewer_seat=0, status=table_pb2.TABLE_STATUS_LOBBY, game="uno", table_name="Abend")
    update.seats.add(index=0, name="Anna", kind=table_pb2.SEAT_KIND_HUMAN, connected=True)
    update.seats.add(index=1, name="Bot 1", kind=table_pb2.SEAT_KIND_BOT, bot_level=3)
    update.seats.add(index=2, name="Ben", kind=table_pb2.SEAT_KIND_HUMAN, connected=False)
    update.seats.add(index=3, kind=table_pb2.SEAT_KIND_EMPTY)
    return update


def test_the_language_follows_the_locale_and_lang(german: None, monkeypatch: pytest.MonkeyPatch) -> None:
    assert person_language() == "de"
    assert _("Your turn") == "Du bist am Zug"
    monkeypatch.setenv("TOADSTOOL_LANG", "en")
    assert person_language() == "en"
    assert _("Your turn") == "Your turn"


@pytest.mark.parametrize(("width", "height"), [(80, 24), (60, 20)])
def test_the_lobby_and_the_host_menu_are_german_and_fit(german: None, width: int, height: int) -> None:
    update = _lobby()
    keys = Text("   ".join([_("↑↓ Enter: choose"), _("Esc: back"), _("h: host"), _("q: leave")]))
    menu = HostMenu(update).lines(width)
    lines = screen_lines(update, [], menu, keys, width, height)
    screen = _plain(lines)
    assert len(lines) <= height
    assert all(len(ANSI.sub("", line)) <= width for line in lines)
    for word in ("Warten auf Spieler (1 freier Platz)", "Plätze:", "Anna (du)", "schwerer Bot", "getrennt",
                 "Gastgeber", "Jetzt starten", "Bot hinzufügen", "Tisch beenden", "q: gehen"):  # fmt: skip
        assert word in screen, (word, screen)
    for word in ENGLISH:
        assert word not in screen, (word, screen)


def test_the_end_screen_is_german(german: None) -> None:
    update = _lobby()
    update.status = table_pb2.TABLE_STATUS_FINISHED
    update.seats[3].CopyFrom(table_pb2.Seat(index=3, name="Cem", kind=table_pb2.SEAT_KIND_HUMAN, connected=True))
    update.outcome.winners.append(1)
    update.outcome.scores.extend([10, 520, 30, 0])
    update.outcome.details.extend(f"Runde {n}: Bot 1 ging raus und bekam {n * 10} Punkte" for n in range(1, 30))
    screen = _plain(screen_lines(update, ["Spiel vorbei"], [], Text(_("q: leave")), 80, 24))
    assert "So lief das Spiel" in screen
    assert "frühere)" in screen
    assert "Spiel vorbei: Bot 1 gewinnt" in screen
    for word in ENGLISH:
        assert word not in screen, (word, screen)


def test_events_keep_the_servers_german_words(german: None) -> None:
    """The "you" rewriting knows English grammar only: a German event naming the viewer stays as it is."""
    from toadstool_clients.terminal.events import in_your_words

    update = _lobby()
    event = table_pb2.Event(seat=0, text="Anna zieht eine Karte")
    assert in_your_words(update, event) == "Anna zieht eine Karte"


def test_cards_and_menu_steps_are_named_as_the_server_names_them_in_german(german: None) -> None:
    """The clients' card and step words follow the glossary and the server's order ("Aussetzen Blau")."""
    from toadstool.api.v1 import uno_pb2
    from toadstool_clients.names import step_label, uno_card_name

    red_five = uno_pb2.UnoCard(color=uno_pb2.UNO_COLOR_RED, kind=uno_pb2.UNO_KIND_NUMBER, number=5)
    blue_skip = uno_pb2.UnoCard(color=uno_pb2.UNO_COLOR_BLUE, kind=uno_pb2.UNO_KIND_SKIP)
    wild_four = uno_pb2.UnoCard(kind=uno_pb2.UNO_KIND_WILD_DRAW_FOUR)
    assert [uno_card_name(c) for c in (red_five, blue_skip, wild_four)] == ["Rot 5", "Aussetzen Blau", "Zieh Vier"]
    update = table_pb2.Update(viewer_seat=0, game="kart")
    update.view.kart.SetInParent()
    assert step_label(update, "play_card", "", None) == "Spielen"
    assert step_label(update, "place_banana", "field", 12) == "Feld 12"
    assert step_label(update, "pay_coins", "coins", 3) == "3 Münzen"
    assert step_label(update, "pay_coins", "coins", 1) == "1 Münze"


def test_your_turn_in_german_does_not_say_the_phase_again(german: None) -> None:
    from toadstool_clients.terminal.screen import turn_line

    update = _lobby()
    update.status = table_pb2.TABLE_STATUS_PLAYING
    update.to_act.append(0)
    update.phase = "Anna ist am Zug"
    assert turn_line(update).plain.startswith("Du bist am Zug   · Abend")
    update.phase = "Runde 2: Abstimmung über Peach"
    assert turn_line(update).plain.startswith("Du bist am Zug · Runde 2: Abstimmung über Peach")


# The games' board drawings in German (issue #43): every word the terminal draws itself on a board comes
# from the clients' catalogue; the words in a view (phases, Power Up cards, track names) are the server's,
# asked for in German as the client asks for them (the server still names Power Up's ? cards and their effects
# in English: its part, not the client's).

#: English words of each game's board drawing (full, medium and compact) that a German board never shows.
BOARD_ENGLISH = {
    "uno": ["Top card", "Your hand", "Colour:", "Draw pile", "Discard pile", "clockwise", "Player", "Cards",
            "Score", "(you)", "dealer", "catchable", "played a draw", "showed you", "pile ", "target", "pts",
            "play a card", "answer the", "Hand 1", "no cards", "You drew", "Pending"],
    "powerup": ["Round ", "Dealer", "Supply", "Passes", "Seat", "Lives", "Modifier", "Value", "? cards",
                "(you)", "to act", "to answer", "decided", "winner", "aims a", "Boo showed", "Your ? cards",
                "Played this round", "Keep or trade", "Reveal and modify", "face down",
                "immune", " lives", " life", "dealer"],
    "levelup": ["Round ", " of 3", "Board", "Characters", "? blocks", "to place", "Players", "Power Ups",
                "Held", "Vote", "Rounds", "Points", "Nominee", "champion", "Your favourites", "Your Power Ups",
                "last objective", "'s ", "voted", " pts", "No! cards", "Coin", "Super Mushroom", "Goomba",
                "Double Cherry", "Thwomp", "Yes!", "No!"],
    "kart": ["Driver", "Lap", "Field", "Progress", "Coins", "Skips", "Halved", "Start area",
             " laps", " fields", "shortcuts", "plain", " item", "booster", "mushroom", "banana",
             "Item deck", "Dice:", "before the roll", "race over", "(you)", " lap ", "field ", " coin",
             "last roll", "bank ", "target", "Final ranking"],
}  # fmt: skip
NAMES = ["Anna", "Ben", "Cem", "Dora"]
SIZES = [(80, 24), (120, 40)]


def german_updates(game: str, seed: int) -> list[table_pb2.Update]:
    """Every seat's update with legal actions at every step of one seeded random game, its view said in
    German as the server says it to a German client (seats named by German names)."""
    from test_choices import GAMES

    from toadstool.bots import RandomBot
    from toadstool.engine import action_id, name_seats
    from toadstool.games import get_game
    from toadstool.selfplay import play
    from toadstool.server.messages import action_message, game_view_message, said

    engine = get_game(game).engine
    names = NAMES[: GAMES[game]]
    updates: list[table_pb2.Update] = []

    def observe(state: object, seat: int | None, action: object) -> None:
        for viewer in range(len(names)):
            legal = engine.legal_actions(state, viewer)
            if not legal:
                continue
            update = table_pb2.Update(game=game, viewer_seat=viewer, to_act=engine.to_act(state))
            update.status = table_pb2.TABLE_STATUS_PLAYING
            game_view_message(engine, engine.view(state, viewer), names, into=update.view, language="de")
            update.phase = update.view.WhichOneof("game") and getattr(update.view, game).phase
            for index, name in enumerate(names):
                update.seats.add(index=index, name=name, kind=table_pb2.SEAT_KIND_HUMAN, connected=True)
            for action in legal:  # labelled as the server labels them for a German client
                label = name_seats(said(engine.describe(state, viewer, action), "de"), names)
                action_message(engine, action, into=update.legal_actions.add(id=action_id(action), label=label).action)
            updates.append(update)

    play(engine, [RandomBot() for _ in names], seed, observe=observe)
    return updates


def _board_lines(update: table_pb2.Update, width: int, **how: bool) -> list[str]:
    from toadstool_clients.terminal.games import render_game
    from toadstool_clients.terminal.screen import _lines

    return [ANSI.sub("", line) for line in _lines(render_game(update, **how), width)]


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("game", sorted(BOARD_ENGLISH))
def test_each_games_board_is_german_and_fits(german: None, game: str, width: int, height: int) -> None:
    """Every drawing of the board (full, medium, compact, and the screen that holds it) in German has none
    of the English board words and fits the terminal: no line wider, none cut short with an ellipsis."""
    from toadstool_clients.terminal.menu import Menu

    updates = german_updates(game, 2)
    for update in updates[:: max(1, len(updates) // 40)]:
        drawings = {
            "full": _board_lines(update, width),
            "compact": _board_lines(update, width, compact=True),
            "medium": _board_lines(update, width, medium=True),
        }
        for kind, lines in drawings.items():
            board = "\n".join(lines)
            for word in BOARD_ENGLISH[game]:
                assert word not in board, (game, kind, word, board)
        compact = drawings["compact"]
        effects = [card.name for card in update.view.powerup.hand]  # the server's words, one line each
        cut = [line for line in compact if line.rstrip().endswith("…") and not any(e in line for e in effects)]
        assert not cut, ("a compact board line was cut", "\n".join(compact))
        menu = Menu.for_update(update).lines(width, one_per_line=height >= 40)
        screen = _plain(screen_lines(update, [], menu, Text(_("q: leave")), width, height)).split("\n")
        assert len(screen) <= height
        assert all(len(line) <= width for line in screen), "\n".join(screen)
        if len(menu) <= 6:  # a menu of a dozen long German labels, one a line, leaves the board no room
            assert "…" not in [line.strip() for line in screen], "\n".join(screen)


#: Where a person's look at the German boards is kept (captures of each game at each size).
SHOTS = Path(os.environ.get("TOADSTOOL_SHOTS", Path(__file__).resolve().parent.parent / "test-output" / "boards"))


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("game", sorted(BOARD_ENGLISH))
def test_a_real_german_game_in_a_real_terminal_shows_a_german_board(
    tmp_path: Path, game: str, width: int, height: int
) -> None:
    """`toadstool play GAME --bots 2 --lang de` in tmux: the first screen that asks for a choice shows the
    board with no English board word, fits the terminal and never scrolled; it is saved for a person."""
    from terminal_helpers import Tmux, terminal_env

    from conftest import toadstool_command

    track = ["--option", "track=mushroom-loop"] if game == "kart" else []  # else `play` asks for one
    command = toadstool_command(
        "play", game, "--bots", "2", "--seed", "5", "--bot-delay", "0.01", "--lang", "de", *track
    )
    tmux = Tmux(tmp_path / "tmux.sock", command, width, height, terminal_env(tmp_path))
    try:
        screen = tmux.wait_for(lambda shown: "Deine Wahl" in shown, timeout=60)
        assert tmux.history_size() == 0, "the screen scrolled"
    finally:
        tmux.close()
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / f"terminal-{game}-{width}x{height}.txt").write_text(screen)
    lines = screen.rstrip("\n").split("\n")
    assert len(lines) <= height, screen
    assert all(len(line) <= width for line in lines), screen
    for word in [*BOARD_ENGLISH[game], *ENGLISH]:
        assert word not in screen, (word, screen)


def test_the_game_over_events_scores_are_named_in_german_from_the_outcome(german: None) -> None:
    """The scores a game's end lists are found by the outcome's numbers on an event marking a result, not by
    the word before them: "(Punkte 0, 532)" reads "(du 0, Ben 532)"."""
    from toadstool_clients.terminal.events import with_named_scores

    update = _lobby()
    update.status = table_pb2.TABLE_STATUS_FINISHED
    update.outcome.scores.extend([0, 532, 103, 443])
    result = table_pb2.Event(round_result=True)
    said = with_named_scores(update, result, "Spiel vorbei: Bot 1 gewinnt (Punkte 0, 532, 103, 443)")
    assert said == "Spiel vorbei: Bot 1 gewinnt (du 0, Bot 1 532, Ben 103, Spieler 4 443)"


#: The game-over event's line at the end of a real UNO game, its scores named, per language of the client.
GAME_OVER_LINE = {
    "de": re.compile(r"· Spiel vorbei: .+ gewinnt \(du (-?\d+), Bot 1 (-?\d+), Bot 2 (-?\d+)\)"),
    "en": re.compile(r"· Game over: .+ won \(you (-?\d+), Bot 1 (-?\d+), Bot 2 (-?\d+)\)"),
}
#: What a screen that waits for a key says (a choice, the pause after a hand), per language.
ASKS = {"de": ("Deine Wahl", "zurück zum Spiel"), "en": ("Your choice", "back to the game")}
#: The result line's scores by name, per language.
RESULT_SCORES = {
    "de": re.compile(r"· +du (-?\d+) · Bot 1 (-?\d+) · Bot 2 (-?\d+)$", re.M),
    "en": re.compile(r"· +you (-?\d+) · Bot 1 (-?\d+) · Bot 2 (-?\d+)$", re.M),
}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("language", sorted(GAME_OVER_LINE))
def test_a_real_uno_game_played_to_its_end_names_the_game_over_scores_in_each_language(
    tmp_path: Path, language: str
) -> None:
    """`toadstool play uno --bots 2 --lang LANG` in tmux, Enter until the game is over: the event log's
    game-over line names every seat's score ("(du 0, Bot 1 188, Bot 2 0)"), the same scores the result line
    shows, and keeps no bare list in either language's words."""
    import time

    from terminal_helpers import EXITED, Tmux, terminal_env

    from conftest import toadstool_command

    command = toadstool_command(
        "play", "uno", "--bots", "2", "--seed", "5", "--bot-delay", "0.01", "--option", "target=1", "--lang", language
    )
    asks = ASKS[language]
    tmux = Tmux(tmp_path / "tmux.sock", command, 80, 24, terminal_env(tmp_path))
    try:
        deadline, last = time.monotonic() + 120, ""
        while True:  # Enter on each new screen that asks (a key on no such screen would wait for the shell)
            screen = tmux.wait_for(lambda shown: EXITED in shown or any(ask in shown for ask in asks), timeout=60)
            if EXITED in screen:
                break
            assert time.monotonic() < deadline, f"the game did not end; the screen:\n{screen}"
            if screen != last:
                tmux.send("Enter")
                last = screen
            time.sleep(0.05)
        final = tmux.wait_for(lambda shown: EXITED in shown, timeout=10)
    finally:
        tmux.close()
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / f"terminal-uno-game-over-{language}.txt").write_text(final)
    assert f"{EXITED}0" in final, final
    over = GAME_OVER_LINE[language].search(final)
    result = RESULT_SCORES[language].search(final)
    assert over, final
    assert result, final
    assert over.groups() == result.groups(), final
    for bare in ("(Punkte ", "(scores "):
        assert bare not in final, final
