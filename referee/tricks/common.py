"""Errors and helpers shared by the trick-taking engines."""

from __future__ import annotations

import copy
import random
from typing import Any, Mapping, Sequence

from referee.core import Event, GameAlreadyOver, MalformedAction, RefereeError, StateBase, Violation


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


class TrickState(StateBase):
    """What the trick-taking games' states share: an action goes to the state's
    `_verify_<kind>` and `_apply_<kind>`, and only an action of the game's own module by a
    player at the table gets there; the game is over in phase "over"; views and snapshots are
    the state's `_public` with the cards each may see."""

    title = "trick game"  # the game's name in errors: "... is not a Bestia action"
    action_module = ""  # the module of the game's actions

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def _over(self) -> dict[str, Any]:
        """What GameAlreadyOver says of the ended game."""
        return {"result": self.result}

    def verify(self, action) -> None:
        if self.is_over:
            raise GameAlreadyOver("the game is over", **self._over())
        method = getattr(self, f"_verify_{action.kind}", None)
        if method is None or type(action).__module__ != self.action_module:
            raise MalformedAction(f"{action!r} is not a {self.title} action")
        if hasattr(action, "player") and action.player not in self.players:
            raise PlayerNotInGame(f"{action.player!r} is not at this table",
                                  player=action.player, players=self.players)
        method(action)

    def apply(self, action) -> list[Event]:
        self.verify(action)
        return getattr(self, f"_apply_{action.kind}")(action)

    def copy(self):
        """An independent copy (for look-ahead)."""
        return copy.deepcopy(self)

    def _public(self) -> dict[str, Any]:
        raise NotImplementedError

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


def read_options(given: Mapping[str, Any] | None, defaults: Mapping[str, Any],
                 choices: Mapping[str, Sequence[Any]] | None = None) -> dict[str, Any]:
    """Table options over their defaults. Values typed at the command line arrive as strings
    and are converted to the default's type; unknown names and values are named errors."""
    out = dict(defaults)
    for key, value in (given or {}).items():
        if key not in defaults:
            raise UnknownOption(f"no table option {key!r}", option=key, known=sorted(defaults))
        default = defaults[key]
        out[key] = _convert(key, value, default)
        allowed = (choices or {}).get(key)
        if allowed is not None and out[key] not in allowed:
            raise BadOption(f"option {key}={value!r}: choose one of {list(allowed)}",
                            option=key, value=value, choices=list(allowed))
    return out


def _convert(key: str, value: Any, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                low = value.strip().lower()
                if low in ("1", "true", "yes", "on", "si", "sì"):
                    return True
                if low in ("0", "false", "no", "off"):
                    return False
                raise ValueError(value)
            return bool(value)
        if isinstance(default, int) or (default is None and isinstance(value, str)
                                        and value.strip().lstrip("-").isdigit()):
            if isinstance(value, bool):
                raise ValueError(value)
            if isinstance(value, str) and value.strip().lower() in ("none", "off", ""):
                return None
            return int(value)
        return value
    except (TypeError, ValueError):
        raise BadOption(f"option {key}={value!r} is not a {type(default).__name__}",
                        option=key, value=value) from None
