"""What the trick-taking engines share beyond the cards: setup errors and helpers, and the
state both games build on (`TrickState`)."""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, Self

from referee.core import (
    Action,
    Event,
    GameAlreadyOver,
    MalformedAction,
    RefereeError,
    StateBase,
    TableOption,
    Violation,
    read_table_options,
)
from referee.tricks.cards import Deck, RankOrder
from referee.tricks.holdings import Holdings
from referee.tricks.policies import Claim, OutOfTurn, Rules, TrickContext


class SetupError(RefereeError):
    """A table setup the game cannot start from."""


class BadPlayerCount(SetupError):
    """Too few or too many players for the game or variant."""


class BadTeams(SetupError):
    """Teams that the game does not allow (Beccaccino: partners sit opposite)."""


class UnknownOption(SetupError):
    """A table option the game does not know."""


class BadOption(SetupError):
    """A table option with a value the game does not allow."""


class BadDeal(SetupError):
    """An explicit deal that is not a deal of this deck (a card twice, a wrong hand size...)."""


class PlayerNotInGame(Violation):
    """A name that is not a player at this table."""


class OutOfOrder(Violation):
    """An action that does not belong to the current phase of the deal (e.g. a card played
    while the players are still declaring)."""


class NotYourRole(Violation):
    """An action that only a given player may take (the battezzante declares trump...)."""


_NO_PLAYER = object()  # an action without a `player` field


class SeenAction(Protocol):
    """The games' `Show` action: `cards` seen in `player`'s hand."""

    @property
    def player(self) -> str: ...

    @property
    def cards(self) -> tuple[str, ...]: ...

    def to_dict(self) -> dict[str, Any]: ...


class TrickState(StateBase):
    """What the trick-taking games' states share: an action goes to the state's
    `_verify_<kind>` and `_apply_<kind>`, and only an action of the game's own module by a
    player at the table gets there; the game is over in phase "over"; views and snapshots are
    the state's `_public` with the cards each may see.

    It also gives both games: the table's contract (`referee.core.TableState`) but for
    `standings()` and the steps before the tricks (`_waiting_before_play`); the current
    trick's context, turn check and playable cards; and the cards seen in a hand
    (`_verify_seen`, `_apply_seen`), where each game's `_revealed` says what an earlier offence
    that a card brings to light costs."""

    title = "trick game"  # the game's name in errors: "... is not a Bestia action"
    action_module = ""  # the module of the game's actions
    seen_in: tuple[str, ...] | None = None  # the phases a card may be seen in a hand (None: any)

    # What every game's state holds (set by the game's constructor and deal).
    players: list[str]
    phase: str
    seed: Any
    result: dict[str, Any] | None
    deck: Deck
    order: RankOrder
    rules: Rules
    holdings: Holdings
    trump: str | None
    trick: list[tuple[str, str]]
    trick_no: int
    leader: str | None
    turn: str | None

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def _over(self) -> dict[str, Any]:
        """What GameAlreadyOver says of the ended game."""
        return {"result": self.result}

    def verify(self, action: Action) -> None:
        if self.is_over:
            raise GameAlreadyOver("the game is over", **self._over())
        method = getattr(self, f"_verify_{action.kind}", None)
        if method is None or type(action).__module__ != self.action_module:
            raise MalformedAction(f"{action!r} is not a {self.title} action")
        player = getattr(action, "player", _NO_PLAYER)
        if player is not _NO_PLAYER and player not in self.players:
            raise PlayerNotInGame(f"{player!r} is not at this table", player=player, players=self.players)
        method(action)

    def apply(self, action: Action) -> list[Event]:
        self.verify(action)
        events: list[Event] = getattr(self, f"_apply_{action.kind}")(action)
        return events

    def copy(self) -> Self:
        """An independent copy (for look-ahead)."""
        return copy.deepcopy(self)

    # -- the table's contract ----------------------------------------------------------
    @property
    def to_play(self) -> str | None:
        """Whose card is due: the player to play while the tricks are being played."""
        return self.turn if self.phase == "play" else None

    @property
    def leading(self) -> bool:
        """Whether the next card opens a trick."""
        return self.phase == "play" and not self.trick

    def waiting_for(self) -> dict[str, Any]:
        """What the referee expects next: {"step": "over"}, {"step": "play", "player": ...,
        "trick": n}, or the game's step before the tricks (`_waiting_before_play`)."""
        if self.is_over:
            return {"step": "over"}
        if self.phase == "play":
            return {"step": "play", "player": self.turn, "trick": self.trick_no + 1}
        return self._waiting_before_play()

    def _waiting_before_play(self) -> dict[str, Any]:
        raise NotImplementedError

    def standings(self) -> dict[str, Any]:
        raise NotImplementedError

    # -- the tricks --------------------------------------------------------------------
    def context(self) -> TrickContext:
        """What the play rules look at for the next card of the current trick."""
        return TrickContext(
            tuple(self.trick), self.trump, self.order, self.trick_no, frozenset(self.holdings.gone), self.deck.suits
        )

    def _verify_turn(self, player: str) -> None:
        if player != self.turn:
            raise OutOfTurn(f"it is {self.turn}'s turn, not {player}'s", turn=self.turn, player=player)

    def playable(self, player: str) -> list[str]:
        """The cards `player` may play now: the legal ones of a known hand, else every card
        that may still be in it."""
        if self.holdings.full:
            return self.holdings.legal(player, self.rules, self.context())
        return [
            c for c in self.deck.cards if c not in self.holdings.gone and self.holdings.holder_of(c) in (None, player)
        ]

    def _revealed(self, player: str, card: str, claims: list[Claim], how: str) -> list[Event]:
        """The events of the earlier offences that `card`, played or shown (`how`: "plays",
        "shows"), brings to light."""
        raise NotImplementedError

    # -- cards seen in a hand ----------------------------------------------------------
    def _verify_seen(self, a: SeenAction) -> None:
        if self.seen_in is not None and self.phase not in self.seen_in:
            raise OutOfOrder("no hands are out now")
        if not a.cards or not all(isinstance(c, str) for c in a.cards):
            raise MalformedAction("seen: name the cards", action=a.to_dict())
        self.holdings.verify_shown(a.player, list(a.cards))

    def _apply_seen(self, a: SeenAction) -> list[Event]:
        events = [Event("seen", {"player": a.player, "cards": list(a.cards)})]
        for card in a.cards:
            events += self._revealed(a.player, card, self.holdings.show(a.player, [card], self.order), "shows")
        return events

    # -- views -------------------------------------------------------------------------
    def _public(self) -> dict[str, Any]:
        raise NotImplementedError

    def _public_trick(self) -> dict[str, Any]:
        """The current trick in a view: its number (in the play phase), cards, leader, turn."""
        return {
            "trick_no": self.trick_no + 1 if self.phase == "play" else None,
            "trick": [list(p) for p in self.trick],
            "leader": self.leader,
            "turn": self.turn,
        }

    def view(self, viewer: str | None = None) -> dict[str, Any]:
        out = self._public()
        out["cards"] = self.holdings.view(viewer)
        return out

    def snapshot(self) -> dict[str, Any]:
        out = self._public()
        out["seed"] = self.seed
        out["cards"] = self.holdings.snapshot()
        return out


def seeded_shuffle(cards: Sequence[str], *key: object) -> list[str]:
    """A shuffle fixed by the seed and the deal number: replaying a game deals the same cards."""
    out = list(cards)
    random.Random(":".join(str(k) for k in key)).shuffle(out)
    return out


def read_players(setup: Any) -> list[str]:
    """The setup's players, in order: a setup is an object and its players a list of names
    (their number and uniqueness are the game's to check)."""
    if not isinstance(setup, Mapping):
        raise SetupError("the setup is an object: {players: [...], options: {...}}", setup=setup)
    players = setup.get("players") or []
    if not isinstance(players, (list, tuple)) or not all(isinstance(p, str) and p for p in players):
        raise BadPlayerCount("players is a list of names, in the order of play", players=players)
    return list(players)


def read_options(given: Any, declared: Mapping[str, TableOption]) -> dict[str, Any]:
    """Table options over their defaults (`referee.core.read_table_options`): values typed at
    the command line arrive as strings and are read as the option's type; unknown names and
    values of the wrong type are named errors."""
    return read_table_options(given, declared, BadOption, UnknownOption)
