"""The choice tree (clients/toadstool_clients/choices.py) over real views of every game: each legal action
is reachable by exactly one path, no menu is long, a one-option level is never shown, and the recorded
cases in tests/choices_cases.json (which a TypeScript port checks too) still come out the same.

Regenerate the recorded cases after an intended change to the algorithm: `python tests/test_choices.py`.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format

from toadstool.api.v1 import table_pb2
from toadstool.bots import RandomBot
from toadstool.engine import action_id, name_seats
from toadstool.games import get_game
from toadstool.selfplay import play
from toadstool.server.messages import action_message, game_view_message
from toadstool_clients.choices import (
    MAX_ENTRIES,
    Choice,
    choice_tree,
    entry_label,
    forced_choice,
    may_play_for_you,
    tree_as_data,
)
from toadstool_clients.names import step_label

CASES = Path(__file__).resolve().parent / "choices_cases.json"
GAMES = {"uno": 3, "levelup": 3, "kart": 3, "powerup": 4}
SEEDS = (1, 2, 3)


@cache
def real_updates(game: str, seed: int) -> tuple[table_pb2.Update, ...]:
    """Every seat's update with legal actions at every step of one seeded random game, built as the server
    builds them (messages.game_view_message / action_message)."""
    engine = get_game(game).engine
    players = GAMES[game]
    names = [f"Player {seat + 1}" for seat in range(players)]
    updates: list[table_pb2.Update] = []

    def observe(state: Any, seat: int | None, action: Any) -> None:
        for viewer in range(players):
            legal = engine.legal_actions(state, viewer)
            if not legal:
                continue
            update = table_pb2.Update(game=game, viewer_seat=viewer, to_act=engine.to_act(state))
            game_view_message(engine, engine.view(state, viewer), names, into=update.view)
            for index, name in enumerate(names):
                update.seats.add(index=index, name=name)
            for action in legal:
                label = name_seats(engine.describe(state, viewer, action), names)
                entry = update.legal_actions.add(id=action_id(action), label=label)
                action_message(engine, action, into=entry.action)
            updates.append(update)

    play(engine, [RandomBot() for _ in range(players)], seed, observe=observe)
    return tuple(updates)


def all_updates(game: str) -> list[table_pb2.Update]:
    return [update for seed in SEEDS for update in real_updates(game, seed)]


def paths(node: Choice, prefix: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], str]]:
    """(entry numbers from the root, action id) for every action the tree offers, toggled twins included."""
    found: list[tuple[tuple[int, ...], str]] = []
    for number, child in enumerate(node.children):
        here = (*prefix, number)
        if child.is_leaf:
            assert child.action is not None
            found.append((here, child.action.id))
            found.extend(((*here, -1), toggled) for toggled in child.toggles.values())
        else:
            found.extend(paths(child, here))
    return found


def levels(node: Choice, depth: int = 0) -> list[tuple[int, Choice]]:
    result = [(depth, node)]
    for child in node.children:
        if not child.is_leaf:
            result.extend(levels(child, depth + 1))
    return result


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_legal_action_is_reachable_by_exactly_one_path(game: str) -> None:
    for update in all_updates(game):
        reached = [action for _, action in paths(choice_tree(update.legal_actions))]
        assert sorted(reached) == sorted(a.id for a in update.legal_actions), update.legal_actions
        assert len(set(reached)) == len(reached)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_no_menu_is_longer_than_the_limit_and_no_level_offers_a_single_option(game: str) -> None:
    for update in all_updates(game):
        for depth, node in levels(choice_tree(update.legal_actions)):
            assert len(node.children) <= MAX_ENTRIES, [a.label for a in update.legal_actions]
            if depth > 0:
                assert len(node.children) > 1, f"a one-option level below the root in {game}"


def _largest(game: str, kind: str) -> tuple[table_pb2.Update, Choice]:
    def kinds(update: table_pb2.Update) -> list[str]:
        return [getattr(a.action, game).WhichOneof("kind") for a in update.legal_actions]

    update = max(all_updates(game), key=lambda u: kinds(u).count(kind))
    assert kinds(update).count(kind) > 13, f"no seeded game offered many {kind} actions"
    return update, choice_tree(update.legal_actions)


@pytest.mark.parametrize(
    ("game", "kind"),
    [("levelup", "place"), ("levelup", "play_boo"), ("kart", "place_banana"), ("uno", "play_card")],
)
def test_the_long_menus_the_issue_names_become_short_levels(game: str, kind: str) -> None:
    update, root = _largest(game, kind)
    assert len(update.legal_actions) > len(root.children)
    for _, node in levels(root):
        assert len(node.children) <= MAX_ENTRIES


def test_a_placement_is_a_character_then_a_level() -> None:
    update = next(u for u in all_updates("levelup") if len(u.legal_actions) == 52)
    root = choice_tree(update.legal_actions)
    assert len(root.children) == 13
    label = entry_label(root.children[0], True, lambda k, f, v: step_label(update, k, f, v))
    assert label == "Place Mario"
    assert [entry_label(c, False, lambda k, f, v: step_label(update, k, f, v)) for c in root.children[0].children] == [
        "level 1",
        "level 2",
        "level 3",
        "level 4",
    ]


def test_a_wild_is_one_entry_then_its_colour_and_calling_uno_is_a_toggle() -> None:
    def has_wild_and_uno(update: table_pb2.Update) -> bool:
        plays = [a.action.uno.play_card for a in update.legal_actions if a.action.uno.HasField("play_card")]
        return any(p.uno for p in plays) and len({p.card_id for p in plays}) < len(plays) // 2

    update = next(u for u in all_updates("uno") if has_wild_and_uno(u))
    root = choice_tree(update.legal_actions)
    wild = next(c for c in root.children if not c.is_leaf)
    assert len(wild.children) == 4
    assert all(leaf.toggles.keys() == {"uno"} for leaf in wild.children)
    assert all("call UNO" not in leaf.action.label for leaf in root.leaves() if leaf.action is not None)


def test_the_tree_is_built_from_the_typed_actions_never_from_their_labels() -> None:
    for game in GAMES:
        for update in real_updates(game, 1)[:200]:
            scrambled = table_pb2.Update()
            scrambled.CopyFrom(update)
            for number, action in enumerate(scrambled.legal_actions):
                action.label = f"x{number % 3}"
            assert tree_as_data(choice_tree(scrambled.legal_actions)) == tree_as_data(choice_tree(update.legal_actions))


def test_a_single_option_is_a_forced_choice_and_secret_ones_are_never_auto_played() -> None:
    forced = [choice_tree(u.legal_actions) for u in all_updates("uno") if len(u.legal_actions) == 1]
    assert forced
    assert all(forced_choice(root) is not None for root in forced)
    accept = [
        forced_choice(choice_tree(u.legal_actions))
        for u in all_updates("uno")
        if len(u.legal_actions) == 1 and u.legal_actions[0].action.uno.HasField("accept_penalty")
    ]
    assert accept, "no seeded game had a Draw Two victim without a Super Star"
    assert not any(may_play_for_you(leaf) for leaf in accept if leaf is not None)
    passes = [
        forced_choice(choice_tree(u.legal_actions))
        for u in all_updates("powerup")
        if len(u.legal_actions) == 1 and u.legal_actions[0].action.powerup.HasField("pass")
    ]
    assert passes
    assert not any(may_play_for_you(leaf) for leaf in passes if leaf is not None)
    rolls = [
        forced_choice(choice_tree(u.legal_actions))
        for u in all_updates("kart")
        if len(u.legal_actions) == 1 and u.legal_actions[0].action.kart.HasField("roll")
    ]
    assert rolls
    assert all(leaf is not None and may_play_for_you(leaf) for leaf in rolls)


# ---- the recorded cases --------------------------------------------------------------------------------


def _pick_cases(game: str) -> list[table_pb2.Update]:
    """A handful of updates per game: the longest, one with a toggle, a forced one, and the first with
    more than one choice for each kind of action (a Boo, a placement, a banana, a shell, ...)."""
    updates = [u for seed in SEEDS for u in real_updates(game, seed)]
    chosen = [max(updates, key=lambda u: len(u.legal_actions))]
    chosen += [u for u in updates if any(leaf.toggles for leaf in choice_tree(u.legal_actions).leaves())][:1]
    chosen += [u for u in updates if len(u.legal_actions) == 1][:1]
    first_of_kind: dict[str, table_pb2.Update] = {}
    for update in updates:
        if len(update.legal_actions) > 1:
            for action in update.legal_actions:
                first_of_kind.setdefault(getattr(action.action, game).WhichOneof("kind"), update)
    chosen += list(first_of_kind.values())
    unique: dict[bytes, table_pb2.Update] = {}
    for update in chosen:
        unique.setdefault(update.SerializeToString(deterministic=True), update)
    return list(unique.values())


def recorded_cases() -> list[dict[str, Any]]:
    cases = []
    for game in sorted(GAMES):
        for update in _pick_cases(game):
            cases.append(
                {
                    "game": game,
                    "legal_actions": [json_format.MessageToDict(a) for a in update.legal_actions],
                    "tree": tree_as_data(choice_tree(update.legal_actions)),
                }
            )
    return cases


def test_the_recorded_cases_still_give_the_same_trees() -> None:
    cases = json.loads(CASES.read_text())
    assert {case["game"] for case in cases} == set(GAMES)
    for case in cases:
        legal = [json_format.ParseDict(a, table_pb2.LegalAction()) for a in case["legal_actions"]]
        assert tree_as_data(choice_tree(legal)) == case["tree"], case["game"]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    CASES.write_text(json.dumps(recorded_cases(), indent=1) + "\n")
    print(f"wrote {CASES}")
