"""A tiny game that follows the engine contract, so the log and the scorekeeper are tested
without depending on any real game: players add 1 to 3 in seat order; whoever brings the total
to the target wins."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from referee.core import Action, ActionCodec, Event, GameAlreadyOver, MalformedAction, RefereeError, Violation


class BadSetup(RefereeError):
    """The toy game's setup is wrong."""


class NotYourTurn(Violation):
    """Someone other than the player to move."""


class BadAmount(Violation):
    """An amount outside 1..3."""


@dataclasses.dataclass(frozen=True)
class Add(Action):
    kind = "add"
    player: str
    amount: int


CODEC = ActionCodec([Add])


class ToyState:
    def __init__(self, players: list[str], target: int) -> None:
        self.players = players
        self.target = target
        self.total = 0
        self.turn = 0
        self.history: list[list[Any]] = []
        self.winner: str | None = None

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def verify(self, action: Action) -> None:
        if not isinstance(action, Add):
            raise MalformedAction(f"not a toy action: {action!r}")
        if self.is_over:
            raise GameAlreadyOver("the game is over", winner=self.winner)
        if action.player != self.players[self.turn]:
            raise NotYourTurn(f"it is {self.players[self.turn]}'s turn", player=action.player)
        if not isinstance(action.amount, int) or not 1 <= action.amount <= 3:
            raise BadAmount(f"add 1, 2 or 3, not {action.amount}", amount=action.amount)

    def can(self, action: Action) -> bool:
        try:
            self.verify(action)
        except Violation:
            return False
        return True

    def apply(self, action: Action) -> list[Event]:
        self.verify(action)
        assert isinstance(action, Add)
        self.total += action.amount
        self.history.append([action.player, action.amount])
        events = [Event("added", {"player": action.player, "amount": action.amount, "total": self.total})]
        if self.total >= self.target:
            self.winner = action.player
            events.append(Event("game_over", {"winner": action.player}))
        self.turn = (self.turn + 1) % len(self.players)
        return events

    def legal_actions(self) -> list[Action]:
        if self.is_over:
            return []
        return [Add(self.players[self.turn], n) for n in (1, 2, 3)]

    def view(self, viewer: str | None = None) -> dict[str, Any]:
        return self.snapshot()

    def snapshot(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "target": self.target,
            "total": self.total,
            "turn": self.players[self.turn],
            "history": [list(h) for h in self.history],
            "winner": self.winner,
        }


class ToyEngine:
    name = "toy"
    version = "1.0"
    codec = CODEC

    def new_game(self, setup: Mapping[str, Any]) -> ToyState:
        players = list(setup.get("players") or [])
        if len(players) < 2 or len(set(players)) != len(players):
            raise BadSetup("the toy game needs at least two players with distinct names")
        target = (setup.get("options") or {}).get("target", 21)
        if not isinstance(target, int) or target < 1:
            raise BadSetup(f"target must be a positive integer, not {target!r}")
        return ToyState(players, target)

    def parse_command(self, state: ToyState, text: str) -> Action:
        words = text.split()
        if words and words[0].lower() == "add":
            words = words[1:]
        if len(words) != 2 or not words[1].lstrip("-").isdigit():
            raise MalformedAction(f"cannot read {text!r}", hint="add PLAYER N")
        return Add(words[0], int(words[1]))

    def render(self, state: ToyState) -> str:
        if state.is_over:
            return f"total {state.total}/{state.target}; {state.winner} won"
        return f"total {state.total}/{state.target}; {state.players[state.turn]} to play"

    def command_help(self) -> str:
        return "add PLAYER N        PLAYER adds N (1 to 3) to the total"


ENGINE = ToyEngine()
