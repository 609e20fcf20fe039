"""The Beccato! engine object that `referee.core.get_engine("beccato")` returns."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.beccato import text
from referee.beccato.actions import CODEC
from referee.beccato.state import BeccatoState
from referee.beccato.table import Table
from referee.core import Action, GameState, TableEngine
from referee.secrecy import PUBLIC, SECRET_SETUP_KEYS, Discreet, Viewer


class BeccatoEngine:
    name = "beccato"
    version = "1.1"
    codec = CODEC
    lead_calls: tuple[str, ...] = ()  # no tricks: nothing is announced with a lead

    def new_game(self, setup: Mapping[str, Any]) -> BeccatoState:
        return BeccatoState(Table.from_setup(setup))

    def parse_command(self, state: GameState, text_line: str) -> Action:
        return text.parse_command(_beccato(state), text_line)

    def render(self, state: GameState) -> str:
        """The table as everyone at it may see it (no hand, no signal)."""
        return text.render(_beccato(state), PUBLIC)

    def command_help(self) -> str:
        return text.command_help()

    # -- who sees what (referee.secrecy) ---------------------------------------------------
    def render_for(self, state: GameState, viewer: Viewer) -> str:
        return text.render(_beccato(state), viewer)

    def view_for(self, state: GameState, viewer: Viewer) -> dict[str, Any]:
        s = _beccato(state)
        if viewer.everything:
            return s.snapshot()
        out = s.view(viewer.player)
        out["signals"] = {t: (sig if viewer.sees_team(t) else "hidden") for t, sig in s.signals.items()}
        if viewer.player is None and viewer.teams:
            out["team"] = next(iter(viewer.teams))
        return out

    def public_setup(self, setup: Mapping[str, Any], viewer: Viewer) -> dict[str, Any]:
        """Without the seed, the explicit deals and egg order, and the other teams' signals."""
        if viewer.everything:
            return dict(setup)
        out = {k: v for k, v in setup.items() if k not in SECRET_SETUP_KEYS}
        signals = setup.get("signals")
        if isinstance(signals, Mapping):
            mine = {t: sig for t, sig in signals.items() if viewer.sees_team(str(t))}
            if mine:
                out["signals"] = mine
            else:
                out.pop("signals", None)
        return out

    def public_action(self, action: Mapping[str, Any], viewer: Viewer) -> tuple[dict[str, Any], list[str]]:
        """A card passed on is known to the passer; the card drawn from the imaginary seat to
        its drawer; a new signal to its team."""
        out = dict(action)
        hidden: list[str] = []
        kind = action.get("kind")
        secret: tuple[str, bool] | None = None
        if kind == "pass":
            secret = ("card", viewer.sees_player(action.get("player")))
        elif kind == "draw_from_pile":
            secret = ("card", viewer.everything)
        elif kind == "change_signal":
            secret = ("signal", viewer.sees_team(action.get("team")))
        if secret is not None:
            field, seen = secret
            if not seen and out.get(field) is not None:
                out[field] = None
                hidden.append(field)
        return out, hidden

    def public_event(self, event: Mapping[str, Any], viewer: Viewer) -> dict[str, Any]:
        out = dict(event)
        if event.get("kind") == "passed" and event.get("card") is not None:
            if not (viewer.sees_player(event.get("seat")) or viewer.sees_player(event.get("to"))):
                out["card"] = None
        return out


def _beccato(state: GameState) -> BeccatoState:
    if not isinstance(state, BeccatoState):
        raise TypeError(f"the Beccato! engine reads Beccato! states, not {type(state).__name__}")
    return state


ENGINE = BeccatoEngine()
_CONTRACT: TableEngine = ENGINE  # mypy checks here that the engine meets the table's contract
_DISCREET: Discreet = ENGINE  # ...and that it says what each viewer may see
