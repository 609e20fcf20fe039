"""The Beccato! game state: one type that verifies, applies and enumerates actions.

The state is a small machine. Between calls it is in play: the player holding four cards passes
one on (`Pass`; the five-player game's imaginary seat passes by chance, `DrawFromPile`), and any
player may call at any moment (`Coccode`, `Caught`, `Chicchirichi`) or, under Signal Change, a team
may turn an egg down (`ChangeSignal`). A call opens a queue of steps the referee waits on in
order: the reveals the call asks for, then each award (a team's choice of egg source, an egg
turned up from the deck, a pyramid placement, a henhouse refill), then the end of the round
(which ends the game at 6 eggs, or deals the next round). Steps that need nobody run by
themselves; `waiting_for()` says what the referee expects next.

With full knowledge (a seed, or an explicit deal) the state knows every hand and the egg deck's
order: passes name their card, reveals must match, and `legal_actions()` lists every legal
action. With partial knowledge it keeps, for each seat, the cards it is sure the seat holds
(learnt from cards passed face up, cards seen in a hand, and reveals) and the eggs not yet
seen, and checks every reveal and draw against what is still possible.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import random
from collections import Counter
from collections.abc import Callable
from typing import Any, ClassVar

from referee.beccato import actions as A
from referee.beccato import violations as V
from referee.beccato.cards import (
    CARD_NAMES,
    CHICK,
    EGGS,
    IMAGINARY_SEAT,
    SERAMA,
    card_name,
    copies,
    egg_name,
)
from referee.beccato.scoring import (
    PLACES,
    SUPPORT,
    Card,
    TeamScore,
    plain_score,
    pyramid_score,
    winners,
)
from referee.beccato.table import EGGS_TO_END, Table
from referee.core import Action, Event, StateBase, jsonable
from referee.signal_cards import BY_ID as SIGNALS_BY_ID
from referee.signal_cards import FREE_SIGNAL

WAITING_STEPS = ("reveal", "choose", "draw", "place")
CALL_NAMES = {"coccode": "Coccodé", "caught": "Caught!", "chicchirichi": "Chicchirichì"}


class BeccatoState(StateBase):
    """A game of Beccato! in progress (see the module docstring)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.round = 0
        self.dealer = table.first_dealer
        self.holder = table.first_dealer
        self.passes = 0
        self.hands: dict[str, list[str]] = {}
        self.henhouses: dict[str, str | None] = {b: None for b in table.breeds}
        # full knowledge: the egg deck in order, top first; partial: the eggs not yet seen
        self.deck: list[str] = list(table.egg_order) if table.full else sorted(EGGS)
        self.collections: dict[str, list[dict[str, Any]]] = {t: [] for t in table.teams}
        self.chick_available = bool(table.options["egg_pyramid"])
        self.signals: dict[str, str | None] = dict(table.signals)
        self.call: dict[str, Any] | None = None
        self.todo: list[dict[str, Any]] = [{"step": "draw", "to": "henhouse", "breed": b} for b in table.breeds]
        self.result: dict[str, Any] | None = None
        self._events: list[Event] = []
        self._start_round()

    # -- the contract ----------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.result is not None

    def verify(self, action: Action) -> None:
        if self.is_over:
            raise V.GameAlreadyOver("the game is over", result=self.result)
        check = self._VERIFY.get(type(action))
        if check is None:
            raise V.MalformedAction(f"not a Beccato! action: {action!r}")
        _check_field_types(action)
        check(self, action)

    def apply(self, action: Action) -> list[Event]:
        self.verify(action)
        self._events = []
        self._APPLY[type(action)](self, action)
        self._run()
        events, self._events = self._events, []
        return events

    def legal_actions(self) -> list[Action]:
        if self.is_over:
            return []
        return [a for a in self._candidates() if self.can(a)]

    def snapshot(self) -> dict[str, Any]:
        snap: dict[str, Any] = jsonable(
            {
                "game": "beccato",
                "table": self.table.to_json(),
                "round": self.round,
                "dealer": self.dealer,
                "holder": self.holder,
                "passes": self.passes,
                "hands": {seat: sorted(cards) for seat, cards in self.hands.items()},
                "henhouses": self.henhouses,
                "deck": self.deck,
                "collections": self.collections,
                "chick_available": self.chick_available,
                "signals": self.signals,
                "call": self.call,
                "todo": self.todo,
                "waiting_for": self.waiting_for(),
                "scores": self.scores(),
                "result": self.result,
            }
        )
        return snap

    def view(self, viewer: str | None = None) -> dict[str, Any]:
        """The public table, plus `viewer`'s own hand and own team's signal. Other hands, other
        teams' signals and the order of the egg deck are never shown."""
        if viewer is not None and viewer not in self.table.players:
            raise V.PlayerNotInGame(f"{viewer!r} is not playing", players=list(self.table.players))
        team = self.table.team_of(viewer) if viewer is not None else None
        snap = self.snapshot()
        snap["table"].pop("seed", None)
        snap["deck"] = len(self.deck)
        snap["hands"] = {viewer: snap["hands"].get(viewer, [])} if viewer is not None else {}
        snap["hand_sizes"] = {seat: self._hand_size(seat) for seat in self.table.ring}
        snap["signals"] = {t: (s if t == team else "hidden") for t, s in self.signals.items()}
        snap["viewer"] = viewer
        snap["team"] = team
        snap.pop("todo")
        return snap

    # -- what the referee expects ---------------------------------------------------------
    @property
    def phase(self) -> str:
        if self.is_over:
            return "over"
        return self.todo[0]["step"] if self.todo else "play"

    @property
    def is_chance_node(self) -> bool:
        """True when the next action is chance's: an egg turned up, or a card drawn from the
        imaginary seat."""
        return self.phase == "draw" or (self.phase == "play" and self.holder == IMAGINARY_SEAT)

    def waiting_for(self) -> dict[str, Any]:
        phase = self.phase
        if phase == "over":
            return {"step": "over"}
        if phase == "play":
            return {"step": "play", "holder": self.holder}
        step = dict(self.todo[0])
        if phase == "reveal":
            step["players"] = list(self._open_call()["to_reveal"])
        return step

    @property
    def to_play(self) -> str | None:
        """Beccato! has no tricks: no card is ever due in a trick zone."""
        return None

    @property
    def leading(self) -> bool:
        return False

    def standings(self) -> dict[str, Any]:
        """Each team's score so far (`scores()`)."""
        return self.scores()

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """Chance actions with their probabilities (OpenSpiel style); full knowledge only knows
        the egg deck's top, and the cards of the imaginary seat."""
        if not self.is_chance_node:
            return []
        if self.phase == "draw":
            if self.table.full:
                return [(A.DrawEgg(self.deck[0]), 1.0)]
            return [(A.DrawEgg(e), 1.0 / len(self.deck)) for e in self.deck]
        pile = Counter(self.hands[IMAGINARY_SEAT])
        if not self.table.full:
            return [(A.DrawFromPile(None), 1.0)]
        total = sum(pile.values())
        return [(A.DrawFromPile(c), n / total) for c, n in sorted(pile.items())]

    def sample_chance(self, rng: random.Random) -> Action:
        """One chance action drawn with `rng` (the caller's randomness, never a global one)."""
        outcomes = self.chance_outcomes()
        if not outcomes:
            raise V.OutOfOrder("no chance action is expected now", waiting_for=self.waiting_for())
        actions = [a for a, _ in outcomes]
        weights = [w for _, w in outcomes]
        return rng.choices(actions, weights=weights)[0]

    def scores(self) -> dict[str, dict[str, Any]]:
        return {team: jsonable(score) for team, score in self._team_scores().items()}

    def eggs_of(self, team: str) -> int:
        return len(self.collections[team])

    def _open_call(self) -> dict[str, Any]:
        """The call being resolved (only asked for while one is: its reveals and awards)."""
        if self.call is None:
            raise RuntimeError("no call is open")
        return self.call

    # -- verification ------------------------------------------------------------------------
    def _expect(self, step: str, what: str, action: Action | None = None) -> None:
        if self.phase == step:
            return
        if self.call is None or self.phase not in WAITING_STEPS:
            raise V.OutOfOrder(
                f"{what} is not expected now; the referee is waiting for {self._describe_wait()}",
                waiting_for=self.waiting_for(),
            )
        # A call is being resolved: say which, and why the referee waits for what it waits for.
        call = self.call
        called = f"{call['caller']}'s {CALL_NAMES[call['call']]}"
        if step == "play":
            raise V.CallInProgress(
                f"{what} waits until {called} is resolved: the round stopped at the call; "
                f"the referee is waiting for {self._describe_wait()}",
                waiting_for=self.waiting_for(),
                call=call["call"],
            )
        reason = self._award_reason()
        head = self.todo[0]
        if isinstance(action, A.TakeEgg) and head["step"] == "draw" and head["to"] == "team":
            option = self._award_option()
            raise V.EggSourceNotAllowed(
                f"{action.source!r} is not offered: {reason}",
                waiting_for=self.waiting_for(),
                **({"option": option, "value": self.table.options[option]} if option else {}),
            )
        raise V.AwardOutOfOrder(
            f"{what} is not the next step of {called}: {reason}",
            waiting_for=self.waiting_for(),
            call=call["call"],
        )

    def _award_option(self) -> str | None:
        """The table option that made the current award what it is, if one did."""
        call = self.call
        deck_only = self.table.options["caught_reward"] == "deck"
        if call is not None and call["call"] == "caught" and call.get("correct") and deck_only:
            return "caught_reward"
        return None

    def _award_reason(self) -> str:
        """Why the referee waits for the current step of a call's resolution, in words."""
        call = self._open_call()
        name = CALL_NAMES[call["call"]]
        head = self.todo[0]
        step = head["step"]
        if step == "reveal":
            who = call["to_reveal"]
            shows = "shows their hand" if len(who) == 1 else "show their hands"
            return f"the call is resolved once {' and '.join(who)} {shows}"
        verdict = "correct" if call.get("correct") else "wrong"
        if step == "choose":
            return f"{head['team']} choose their egg first (the {verdict} {name}), from {', '.join(head['options'])}"
        if step == "place":
            return f"{head['team']} place {head['egg']} in their pyramid first (Egg Pyramid, B13)"
        if head["to"] == "henhouse":
            return f"henhouse {head['breed']} is refilled first: the egg turned up from the deck goes on it"
        team = head["team"]
        caller_team = self.table.team_of(call["caller"])
        if team != caller_team or not call.get("correct"):
            paid = "the caught player's team" if call["call"] == "caught" else "each opposing team"
            return f"a wrong {name} pays {paid} the top of the egg deck: the egg for {team} is turned up next"
        if call["call"] == "caught" and self.table.options["caught_reward"] == "deck":
            return (
                "caught_reward=deck: a correct Caught! is paid from the top of the egg deck, "
                f"not from a henhouse (B3); the egg for {team} is turned up next"
            )
        return f"{team} receive the top of the egg deck for the correct {name}: the egg is turned up next"

    def _describe_wait(self) -> str:
        w = self.waiting_for()
        step = w["step"]
        if step == "play":
            return f"play to go on ({w['holder']} holds four cards) or a call"
        if step == "reveal":
            return "the hand of " + " and ".join(w["players"])
        if step == "choose":
            return f"{w['team']} to choose an egg from {', '.join(w['options'])}"
        if step == "draw":
            target = f"henhouse {w['breed']}" if w["to"] == "henhouse" else f"team {w['team']}"
            return f"the egg turned up from the deck for {target}"
        return f"{w['team']} to place {w['egg']} in its pyramid"

    def _player(self, name: str, error: type[V.PlayerNotInGame] = V.PlayerNotInGame) -> str:
        if name not in self.table.players:
            raise error(f"{name!r} is not playing", players=list(self.table.players))
        return name

    def _team(self, name: str) -> str:
        if name not in self.table.teams:
            raise V.TeamNotInGame(f"no team {name!r}", teams=list(self.table.teams))
        return name

    def _card(self, text: str | None) -> str:
        name = card_name(str(text)) if text is not None else ""
        if name not in self.table.composition:
            detail = "no such chicken card" if name not in CARD_NAMES else "no henhouse of that breed in this game"
            raise V.CardNotInDeck(f"{text!r}: {detail}", deck=sorted(self.table.composition))
        return name

    def _verify_pass(self, action: A.Pass) -> None:
        self._expect("play", "a pass")
        player = self._player(action.player)
        if player != self.holder:
            raise V.NotYourTurn(f"{self.holder} holds four cards and passes next, not {player}", holder=self.holder)
        self._verify_move(player, action.card)

    def _verify_draw_from_pile(self, action: A.DrawFromPile) -> None:
        self._expect("play", "a draw from the imaginary seat")
        if self.holder != IMAGINARY_SEAT:
            raise V.OutOfOrder(f"the imaginary seat does not hold four cards; {self.holder} passes next")
        self._verify_move(IMAGINARY_SEAT, action.card)

    def _verify_move(self, seat: str, card: str | None) -> None:
        if card is None:
            if self.table.full:
                raise V.CardRequired("with full knowledge a pass names its card", hand=self.hands[seat])
            return
        name = self._card(card)
        known = Counter(self.hands[seat])
        if self.table.full or len(self.hands[seat]) >= self._hand_size(seat):
            if known[name] == 0:
                raise V.CardNotInHand(f"{seat} does not hold {name}", hand=sorted(self.hands[seat]))
        elif known[name] == 0 and self._seen_elsewhere(seat)[name] + 1 > copies(name):
            raise V.CardAlreadySeen(f"every {name} has already been seen elsewhere this round")

    def _seen_elsewhere(self, seat: str) -> Counter[str]:
        return sum((Counter(cards) for s, cards in self.hands.items() if s != seat), Counter())

    def _verify_call(self, caller: str) -> str:
        self._expect("play", "a call")
        return self._player(caller, V.CallerNotInGame)

    def _verify_coccode(self, action: A.Coccode) -> None:
        self._verify_call(action.caller)
        if self.table.options["calling_chickens"]:
            if action.breed is None:
                raise V.BreedRequired("under Calling Chickens a Coccodé names the breed")
            self._card(action.breed)
        elif action.breed is not None:
            raise V.VariantNotInPlay("naming a breed is the Calling Chickens variant, not played here")

    def _verify_caught(self, action: A.Caught) -> None:
        caller = self._verify_call(action.caller)
        target = self._player(action.target)
        if self.table.team_of(caller) == self.table.team_of(target):
            raise V.WrongTeam(f"{caller} cannot catch {target}: same Guild", team=self.table.team_of(caller))

    def _verify_chicchirichi(self, action: A.Chicchirichi) -> None:
        caller = self._verify_call(action.caller)
        why = self._sizes_known()
        if why is not None and caller != self.holder:  # B15: "during their turn", holding four
            holder = "the imaginary seat" if self.holder == IMAGINARY_SEAT else self.holder
            raise V.NotHoldingFour(
                f"Chicchirichì is called by the player holding four cards: {holder} holds them ({why}), "
                f"{caller} holds 3 (B15)",
                holder=self.holder,
            )

    def _verify_reveal(self, action: A.Reveal) -> None:
        self._expect("reveal", "a reveal", action)
        player = self._player(action.player)
        to_reveal = self._open_call()["to_reveal"]
        if player not in to_reveal:
            raise V.NotAskedToReveal(f"{player} is not asked to show their hand", players=list(to_reveal))
        cards = Counter(self._card(c) for c in action.cards)
        size = sum(cards.values())
        if size not in (3, 4):
            raise V.RevealWrongSize(f"a hand holds 3 or 4 cards, not {size}")
        why = self._sizes_known()
        if why is not None and size != self._hand_size(player):  # B15
            expected = self._hand_size(player)
            holds = (
                "has just received and holds 4 cards" if expected == 4 else f"holds 3 cards ({self.holder} holds four)"
            )
            raise V.RevealWrongSize(
                f"{player} {holds}, {why}: a reveal of {size} is not their hand (B15)",
                expected=expected,
                holder=self.holder,
            )
        for name, n in cards.items():
            if n > copies(name):
                raise V.TooManyOfBreed(f"{n} {name}: the deck has only {copies(name)}")
        known = Counter(self.hands[player])
        if self.table.full:
            if cards != known:
                raise V.RevealDoesNotMatchHand(f"{player} does not hold that hand", hand=sorted(known.elements()))
            return
        if known - cards:
            raise V.RevealDoesNotMatchHand(
                f"{player} is known to hold {sorted((known - cards).elements())}", known=sorted(known.elements())
            )
        elsewhere = self._seen_elsewhere(player)
        for name, n in cards.items():
            if n + elsewhere[name] > copies(name):
                raise V.CardAlreadySeen(
                    f"{name}: {elsewhere[name]} already seen elsewhere this round, {copies(name)} in the deck"
                )
        if size == 4 and any(len(c) == 4 for s, c in self.hands.items() if s != player):
            raise V.RevealWrongSize("another hand of four was already seen this round")

    def _verify_show_cards(self, action: A.ShowCards) -> None:
        self._expect("play", "cards seen in a hand")
        player = self._player(action.player)
        cards = Counter(self._card(c) for c in action.cards)
        if not 1 <= sum(cards.values()) <= 4:
            raise V.RevealWrongSize(f"a hand shows 1 to 4 cards, not {sum(cards.values())}")
        for name, n in cards.items():
            if n > copies(name):
                raise V.TooManyOfBreed(f"{n} {name}: the deck has only {copies(name)}")
        known = Counter(self.hands[player])
        if self.table.full:
            if cards - known:
                raise V.CardNotInHand(
                    f"{player} does not hold {sorted((cards - known).elements())}", hand=sorted(known.elements())
                )
            return
        merged = known | cards
        limit = self._hand_size(player) if self._sizes_known() is not None else 4  # B15
        if sum(merged.values()) > limit:
            raise V.RevealWrongSize(
                f"{player} would hold {sorted(merged.elements())}: more than the {limit} cards in their hand",
                known=sorted(known.elements()),
                expected=limit,
            )
        elsewhere = self._seen_elsewhere(player)
        for name, n in merged.items():
            if n + elsewhere[name] > copies(name):
                raise V.CardAlreadySeen(
                    f"{name}: {elsewhere[name]} already seen elsewhere this round, {copies(name)} in the deck"
                )

    def _verify_draw_egg(self, action: A.DrawEgg) -> None:
        self._expect("draw", "an egg from the deck", action)
        egg = egg_name(str(action.egg))
        if egg not in EGGS:
            raise V.EggNotInDeck(f"no egg {action.egg!r}", example=EGGS[0])
        if egg not in self.deck:
            raise V.EggNotInDeck(f"{egg} is no longer in the egg deck", where=self._where_is(egg))
        if self.table.full and egg != self.deck[0]:
            raise V.EggNotOnTop(f"{egg} is not the top of the egg deck")

    def _verify_take_egg(self, action: A.TakeEgg) -> None:
        self._expect("choose", "a choice of egg", action)
        team = self._team(action.team)
        step = self.todo[0]
        if team != step["team"]:
            raise V.NotYourChoice(f"{step['team']} chooses, not {team}: {self._award_reason()}")
        if _source(action.source) not in step["options"]:
            raise V.EggSourceNotAllowed(f"{action.source!r} is not offered", options=step["options"])

    def _verify_place_egg(self, action: A.PlaceEgg) -> None:
        if not self.table.options["egg_pyramid"]:
            raise V.VariantNotInPlay("the Egg Pyramid variant is not played here")
        self._expect("place", "a pyramid placement", action)
        team = self._team(action.team)
        step = self.todo[0]
        if team != step["team"]:
            raise V.NotYourChoice(f"{step['team']} places an egg now, not {team}: {self._award_reason()}")
        if egg_name(action.egg) != step["egg"]:
            raise V.AwardOutOfOrder(
                f"{action.egg!r} is not the egg to place: {self._award_reason()}",
                waiting_for=self.waiting_for(),
                call=self._open_call()["call"],
            )
        if action.place not in self._free_places(team):
            raise V.PyramidPlaceNotAllowed(
                f"{action.place!r} is not a free place supported from below", allowed=self._free_places(team)
            )

    def _verify_change_signal(self, action: A.ChangeSignal) -> None:
        if not self.table.options["signal_change"]:
            raise V.VariantNotInPlay("the Signal Change rule is not played here")
        self._expect("play", "a signal change")
        team = self._team(action.team)
        face_up = self._face_up_eggs(team)
        if not face_up:
            raise V.NoFaceUpEgg(f"{team} has no face-up egg to turn (B10)")
        if egg_name(action.egg) not in face_up:
            raise V.EggNotFaceUp(f"{team} holds no face-up {action.egg!r}", face_up=face_up)
        signal = action.signal
        if signal is not None:
            allowed = signal in SIGNALS_BY_ID or (signal == FREE_SIGNAL and self.table.options["free_signal"])
            if not allowed:
                raise V.UnknownSignal(f"{signal!r} is not a signal this table can use")

    _VERIFY: ClassVar[dict[type[Action], Callable[[BeccatoState, Any], None]]] = {
        A.Pass: _verify_pass,
        A.DrawFromPile: _verify_draw_from_pile,
        A.Coccode: _verify_coccode,
        A.Caught: _verify_caught,
        A.Chicchirichi: _verify_chicchirichi,
        A.Reveal: _verify_reveal,
        A.ShowCards: _verify_show_cards,
        A.DrawEgg: _verify_draw_egg,
        A.TakeEgg: _verify_take_egg,
        A.PlaceEgg: _verify_place_egg,
        A.ChangeSignal: _verify_change_signal,
    }

    # -- application -------------------------------------------------------------------------
    def _emit(self, kind: str, **data: Any) -> None:
        self._events.append(Event(kind, data))

    def _apply_pass(self, action: A.Pass) -> None:
        self._move(action.player, action.card)

    def _apply_draw_from_pile(self, action: A.DrawFromPile) -> None:
        self._move(IMAGINARY_SEAT, action.card)

    def _move(self, seat: str, card: str | None) -> None:
        receiver = self.table.next_seat(seat)
        hand = self.hands[seat]
        if card is not None:
            name = card_name(card)
            if name in hand:
                hand.remove(name)
            self.hands[receiver].append(name)
        else:  # an unseen card left: only what the seat held twice or more stays certain
            held = Counter(hand)
            self.hands[seat] = sorted((held - Counter(set(held))).elements())
        self.holder = receiver
        self.passes += 1
        seen = card_name(card) if card is not None else None
        self._emit("passed", seat=seat, to=receiver, card=seen)

    def _apply_call(self, call: str, caller: str, to_reveal: list[str], **extra: Any) -> None:
        self.call = {"call": call, "caller": caller, **extra, "to_reveal": to_reveal, "revealed": {}}
        self.todo = [{"step": "reveal"}]
        self._emit("call", call=call, caller=caller, team=self.table.team_of(caller), **extra, to_reveal=to_reveal)

    def _apply_coccode(self, action: A.Coccode) -> None:
        team = self.table.team_of(action.caller)
        mates = [p for p in self.table.teams[team] if p != action.caller]
        breed = card_name(action.breed) if action.breed is not None else None
        self._apply_call("coccode", action.caller, mates, breed=breed)

    def _apply_caught(self, action: A.Caught) -> None:
        self._apply_call("caught", action.caller, [action.target], target=action.target)

    def _apply_chicchirichi(self, action: A.Chicchirichi) -> None:
        self._apply_call("chicchirichi", action.caller, [action.caller])

    def _apply_reveal(self, action: A.Reveal) -> None:
        cards = sorted(card_name(c) for c in action.cards)
        self.hands[action.player] = list(cards)
        call = self._open_call()
        call["revealed"][action.player] = cards
        call["to_reveal"].remove(action.player)
        self._emit("revealed", player=action.player, cards=cards)
        if not call["to_reveal"]:
            self.todo.pop(0)
            self._resolve_call()

    def _apply_show_cards(self, action: A.ShowCards) -> None:
        cards = sorted(card_name(c) for c in action.cards)
        if not self.table.full:
            self.hands[action.player] = sorted((Counter(self.hands[action.player]) | Counter(cards)).elements())
        self._emit("cards_seen", player=action.player, cards=cards)

    def _apply_draw_egg(self, action: A.DrawEgg) -> None:
        egg = egg_name(action.egg)
        step = self.todo.pop(0)
        self.deck.remove(egg)
        if step["to"] == "henhouse":
            self.henhouses[step["breed"]] = egg
            self._emit("henhouse_filled", breed=step["breed"], egg=egg)
        else:
            self._give(step["team"], egg, "deck")

    def _apply_take_egg(self, action: A.TakeEgg) -> None:
        self.todo.pop(0)
        self._take(action.team, _source(action.source))

    def _apply_place_egg(self, action: A.PlaceEgg) -> None:
        self.todo.pop(0)
        self._place(action.team, egg_name(action.egg), action.place)

    def _apply_change_signal(self, action: A.ChangeSignal) -> None:
        egg = egg_name(action.egg)
        entry = next(e for e in self.collections[action.team] if e["egg"] == egg)
        entry["face_up"] = False
        self.signals[action.team] = action.signal
        self._emit("signal_changed", team=action.team, egg=egg, known=action.signal is not None)

    _APPLY: ClassVar[dict[type[Action], Callable[[BeccatoState, Any], None]]] = {
        A.Pass: _apply_pass,
        A.DrawFromPile: _apply_draw_from_pile,
        A.Coccode: _apply_coccode,
        A.Caught: _apply_caught,
        A.Chicchirichi: _apply_chicchirichi,
        A.Reveal: _apply_reveal,
        A.ShowCards: _apply_show_cards,
        A.DrawEgg: _apply_draw_egg,
        A.TakeEgg: _apply_take_egg,
        A.PlaceEgg: _apply_place_egg,
        A.ChangeSignal: _apply_change_signal,
    }

    # -- resolving a call ------------------------------------------------------------------
    def _resolve_call(self) -> None:
        call = self._open_call()
        caller = call["caller"]
        team = self.table.team_of(caller)
        opponents = [t for t in self.table.teams if t != team]
        revealed = {p: Counter(c) for p, c in call["revealed"].items()}
        awards: list[dict[str, Any]]
        if call["call"] == "coccode":
            triples = sorted({b for hand in revealed.values() for b, n in hand.items() if n >= 3 and b != SERAMA})
            if call["breed"] is not None:
                triples = [b for b in triples if b == call["breed"]]
            correct = bool(triples)
            if correct:
                awards = [{"team": team, "award": "henhouse", "breeds": triples}]
            else:
                awards = [{"team": t, "award": "deck"} for t in opponents]
            reason = (
                f"triple of {', '.join(triples)}"
                if correct
                else "no triple" + (f" of {call['breed']}" if call["breed"] else "")
            )
        elif call["call"] == "caught":
            target = call["target"]
            hand = revealed[target]
            counts = self.table.options["serama_triple_counts"]
            triple = [b for b, n in hand.items() if n >= 3 and (b != SERAMA or counts)]
            correct = bool(triple)
            if correct:
                kind = "choice" if self.table.options["caught_reward"] == "choice" else "deck"
                awards = [{"team": team, "award": kind}]
            else:
                awards = [{"team": self.table.team_of(target), "award": "deck"}]
            reason = f"{target} held {triple[0]} x3" if correct else f"{target} held no triple"
        else:
            correct = revealed[caller][SERAMA] == 4
            if correct:
                awards = [{"team": team, "award": "chick" if self._chick_due(team) else "deck"}]
            else:
                awards = [{"team": t, "award": "deck"} for t in opponents]
            reason = "four Serama" if correct else "not four Serama"
        call["correct"] = correct
        self._emit(
            "call_resolved",
            call=call["call"],
            caller=caller,
            correct=correct,
            reason=reason,
            awarded_to=[a["team"] for a in awards],
        )
        self.todo = [{"step": "award", **a} for a in awards] + [{"step": "end_round"}]

    def _chick_due(self, team: str) -> bool:
        """The Chick can crown a pyramid whose only empty place is the top (B14)."""
        return self.chick_available and self._free_places(team) == ["top"] and self.eggs_of(team) == 5

    # -- automatic steps ---------------------------------------------------------------------
    def _run(self) -> None:
        while self.todo and self.todo[0]["step"] not in WAITING_STEPS and not self.is_over:
            step = self.todo.pop(0)
            if step["step"] == "award":
                self._award(step)
            elif step["step"] == "end_round":
                self._end_round()
        # a choice with a single option needs nobody; a draw into an empty deck cannot happen
        if self.todo and not self.is_over:
            head = self.todo[0]
            if head["step"] == "choose" and len(head["options"]) == 1:
                self.todo.pop(0)
                self._take(head["team"], head["options"][0])
                self._run()
            elif head["step"] == "draw" and not self.deck:
                self.todo.pop(0)
                self._run()
            elif head["step"] == "place" and len(self._free_places(head["team"])) == 1:
                self.todo.pop(0)
                self._place(head["team"], head["egg"], self._free_places(head["team"])[0])
                self._run()

    def _award(self, step: dict[str, Any]) -> None:
        team, kind = step["team"], step["award"]
        full_houses = [b for b, egg in self.henhouses.items() if egg is not None]
        if kind == "henhouse":
            options = [b for b in step["breeds"] if self.henhouses[b] is not None]
        elif kind == "deck":
            options = ["deck"] if self.deck else []
        elif kind == "chick":
            options = ["chick", "deck"] if self.deck else ["chick"] + full_houses
        else:  # choice (B3)
            options = full_houses + (["deck"] if self.deck else [])
        if not options:  # B9: an award that cannot be paid as named comes from a henhouse egg
            options = full_houses
        if not options:
            self._emit("no_egg_left", team=team)
            self._finish("no egg is left anywhere (B9)")
            return
        if options == ["deck"]:
            self.todo.insert(0, {"step": "draw", "to": "team", "team": team})
        else:
            self.todo.insert(0, {"step": "choose", "team": team, "options": options})

    def _take(self, team: str, source: str) -> None:
        if source == "deck":
            self.todo.insert(0, {"step": "draw", "to": "team", "team": team})
            return
        if source == CHICK:
            self.chick_available = False
            self.collections[team].append({"egg": CHICK, "face_up": True, "place": "top"})
            self._emit("egg_awarded", team=team, egg=CHICK, source="chick", place="top")
            return
        egg = self.henhouses[source]
        if egg is None:  # the options offer only henhouses holding an egg
            raise RuntimeError(f"henhouse {source} is empty")
        self.henhouses[source] = None
        refill = [{"step": "draw", "to": "henhouse", "breed": source}] if self.deck else []
        self.todo[0:0] = refill
        self._give(team, egg, f"henhouse {source}")

    def _give(self, team: str, egg: str, source: str) -> None:
        self.collections[team].append({"egg": egg, "face_up": True, "place": None})
        self._emit("egg_awarded", team=team, egg=egg, source=source)
        if self.table.options["egg_pyramid"]:
            self.todo.insert(0, {"step": "place", "team": team, "egg": egg})

    def _place(self, team: str, egg: str, place: str) -> None:
        entry = next(e for e in self.collections[team] if e["egg"] == egg and e["place"] is None)
        entry["place"] = place
        self._emit("egg_placed", team=team, egg=egg, place=place)

    def _free_places(self, team: str) -> list[str]:
        taken = {e["place"] for e in self.collections[team] if e["place"]}
        return [p for p in PLACES if p not in taken and all(s in taken for s in SUPPORT.get(p, ()))]

    def _face_up_eggs(self, team: str) -> list[str]:
        return [e["egg"] for e in self.collections[team] if e["face_up"] and e["egg"] != CHICK]

    def _end_round(self) -> None:
        done = [t for t in self.table.teams if self.eggs_of(t) >= EGGS_TO_END]
        if done:
            self._finish(f"{', '.join(done)} reached {EGGS_TO_END} eggs")
        elif not self.deck and all(egg is None for egg in self.henhouses.values()):
            self._finish("no egg is left anywhere (B9)")
        else:
            self._start_round()

    def _start_round(self) -> None:
        if self.round:
            self.dealer = self.table.next_dealer(self.dealer)
        self.round += 1
        self.holder = self.dealer
        self.passes = 0
        self.call = None
        if self.table.full:
            self.hands = self.table.deal(self.round, self.dealer)
        else:
            self.hands = {seat: [] for seat in self.table.ring}
        self._emit("round_started", round=self.round, dealer=self.dealer)

    def _finish(self, reason: str) -> None:
        self.todo = []
        scores = self._team_scores()
        best = winners(scores)
        self.result = {
            "reason": reason,
            "scores": jsonable(scores),
            "winners": best,
            "shared": len(best) > 1,
        }
        self._emit("game_over", **self.result)

    def _team_scores(self) -> dict[str, TeamScore]:
        scores: dict[str, TeamScore] = {}
        for team, entries in self.collections.items():
            guild = self.table.guilds[team]
            if self.table.options["egg_pyramid"]:
                slots = {e["place"]: Card(e["egg"], e["face_up"]) for e in entries if e["place"]}
                scores[team] = pyramid_score(
                    slots,
                    guild,
                    level_bonus=self.table.options["pyramid_level_bonus"],
                    guild_fill=self.table.options["pyramid_guild_fill"],
                )
            else:
                scores[team] = plain_score([Card(e["egg"], e["face_up"]) for e in entries], guild)
        return scores

    # -- knowledge helpers ---------------------------------------------------------------
    def _hand_size(self, seat: str) -> int:
        return 4 if seat == self.holder else 3

    def _sizes_known(self) -> str | None:
        """Why the referee knows every hand's size now (B15), or None when it cannot: with full
        knowledge it knows the deal; at a real table it knows who holds four once a pass of
        this round is reported (passes are reported in order, so the holder follows them).
        Before the first reported pass it cannot tell "no pass yet" from "passes not reported"."""
        if self.table.full:
            return "the deal is known"
        if self.passes:
            return f"{self.passes} pass{'es' if self.passes > 1 else ''} reported this round"
        return None

    def _where_is(self, egg: str) -> str:
        for breed, on in self.henhouses.items():
            if on == egg:
                return f"henhouse {breed}"
        for team, entries in self.collections.items():
            if any(e["egg"] == egg for e in entries):
                return f"team {team}"
        return "deck"

    # -- enumeration ---------------------------------------------------------------------------
    def _candidates(self) -> list[Action]:
        phase = self.phase
        if phase == "draw":
            return [a for a, _p in self.chance_outcomes()]
        if phase == "reveal":
            return [a for p in self._open_call()["to_reveal"] for a in self._reveal_candidates(p)]
        if phase == "choose":
            step = self.todo[0]
            return [A.TakeEgg(step["team"], o) for o in step["options"]]
        if phase == "place":
            step = self.todo[0]
            return [A.PlaceEgg(step["team"], step["egg"], p) for p in self._free_places(step["team"])]
        return self._play_candidates()

    def _reveal_candidates(self, player: str) -> list[Action]:
        if self.table.full:
            return [A.Reveal(player, tuple(sorted(self.hands[player])))]
        names = sorted(self.table.composition)
        hands = itertools.chain(
            itertools.combinations_with_replacement(names, 3),
            itertools.combinations_with_replacement(names, 4),
        )
        return [A.Reveal(player, hand) for hand in hands]

    def _play_candidates(self) -> list[Action]:
        out: list[Action] = []
        if self.holder == IMAGINARY_SEAT:
            out += [a for a, _p in self.chance_outcomes()]
        elif self.table.full:
            out += [A.Pass(self.holder, c) for c in sorted(set(self.hands[self.holder]))]
        else:
            out += [A.Pass(self.holder, None)] + [A.Pass(self.holder, c) for c in sorted(self.table.composition)]
        players = self.table.players
        breeds: list[str | None] = list(self.table.breeds) if self.table.options["calling_chickens"] else [None]
        out += [A.Coccode(p, b) for p in players for b in breeds]
        out += [A.Caught(p, q) for p in players for q in players if self.table.team_of(p) != self.table.team_of(q)]
        out += [A.Chicchirichi(p) for p in players]
        if self.table.options["signal_change"]:
            out += [A.ChangeSignal(t, e) for t in self.table.teams for e in self._face_up_eggs(t)]
        return out

    def copy(self) -> BeccatoState:
        return copy.deepcopy(self)


_FIELD_TYPES = {
    "str": lambda v: isinstance(v, str),
    "str | None": lambda v: v is None or isinstance(v, str),
    "tuple[str, ...]": lambda v: isinstance(v, (tuple, list)) and all(isinstance(c, str) for c in v),
}


def _check_field_types(action: Action) -> None:
    """Actions decoded from JSON may carry any value; name the field that is not what it should be."""
    for field in dataclasses.fields(action):  # type: ignore[arg-type]
        if not _FIELD_TYPES[str(field.type)](getattr(action, field.name)):
            raise V.MalformedAction(
                f"{action.kind}: {field.name} should be {field.type}, not {getattr(action, field.name)!r}"
            )


def _source(text: str) -> str:
    key = card_name(text)
    return {"top": "deck", "egg deck": "deck"}.get(key, key)
