"""The shared working copy (toadstool.games.working_copy): what it copies, how it freezes, and its seed."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from toadstool.engine import Event
from toadstool.games.working_copy import WorkingCopy


@dataclass(frozen=True, slots=True)
class _State:
    turn: int
    hand: tuple[int, ...]
    rows: tuple[tuple[int, ...], ...]
    winners: tuple[int, ...]
    rng_state: int
    events: tuple[Event, ...]
    extra: tuple[int, ...] = ()


class _Copy(WorkingCopy[_State]):
    REBUILT = frozenset({"extra"})

    turn: int
    hand: list[int]
    rows: list[list[int]]
    winners: tuple[int, ...]

    def freeze(self) -> _State:
        return self.frozen(extra=(len(self.hand),))


class _Reseeding(_Copy):
    NEW_SEED_EVERY_APPLY = True


STATE = _State(turn=1, hand=(3, 4), rows=((1,), (2, 2)), winners=(0,), rng_state=42, events=(Event(text="old"),))


def test_lists_are_copies_and_freeze_back_to_tuples() -> None:
    work = _Copy(STATE)
    assert (work.turn, work.hand, work.rows, work.winners, work.events) == (1, [3, 4], [[1], [2, 2]], (0,), [])
    work.hand.append(5)
    work.rows[0].append(9)
    work.turn = 2
    work.events.append(Event(text="new"))
    assert (STATE.hand, STATE.rows) == ((3, 4), ((1,), (2, 2))), "the state it came from is untouched"
    after = work.freeze()
    assert after == _State(
        turn=2,
        hand=(3, 4, 5),
        rows=((1, 9), (2, 2)),
        winners=(0,),
        rng_state=42,
        events=(Event(text="new"),),
        extra=(3,),
    )


def test_the_seed_moves_on_only_when_the_rng_was_used_unless_asked() -> None:
    assert _Copy(STATE).freeze().rng_state == 42
    used = _Copy(STATE)
    drawn = used.rng.random()
    expected = random.Random(42)
    assert drawn == expected.random()
    assert used.freeze().rng_state == expected.getrandbits(64)
    assert _Reseeding(STATE).freeze().rng_state == random.Random(42).getrandbits(64)


def test_a_field_left_out_is_refused_when_the_class_is_defined() -> None:
    with pytest.raises(TypeError, match=r"neither copies nor rebuilds _State\.rows, extra"):

        class _Forgetful(WorkingCopy[_State]):
            turn: int
            hand: list[int]
            winners: tuple[int, ...]


def test_a_list_over_a_field_that_is_not_a_tuple_is_refused() -> None:
    with pytest.raises(TypeError, match=r"turn is a list but _State\.turn is not a tuple"):

        class _Wrong(WorkingCopy[_State]):
            REBUILT = frozenset({"extra"})
            turn: list[int]
            hand: list[int]
            rows: list[list[int]]
            winners: tuple[int, ...]


def test_the_rebuilt_fields_are_required_when_freezing() -> None:
    with pytest.raises(TypeError, match="extra"):
        _Copy(STATE).frozen()


def test_rebuilt_names_only_fields_of_the_state() -> None:
    with pytest.raises(TypeError, match=r"_Typo\.REBUILT names extras, not fields of _State"):

        class _Typo(_Copy):
            REBUILT = frozenset({"extra", "extras"})
