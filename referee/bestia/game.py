"""The Bestia rules engine: classic 3-card Bestia, col buco, 5-card Italian (busso, strozzo,
"terzo se devo"), the Roman five-card game and Tippen, with the house rules as table options.

Rules: ../shared/rules/bestia-3-card-en.txt, bestia-5-card-it.txt, RULINGS S1-S5;
docs/bestia.md. Players are listed in the order play goes (to the right in Italy): the next
player in the list is the one to the dealer's right.

Chips are integers; every chip is always in a player's stack or in the pot (a stack may go
below zero: a debt to the table). A trick is worth pot // tricks; what does not divide stays
in the pot (S2).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from referee.bestia.actions import Buco, Doctor, Gioco, Knock, Pass, Play, Rob, Terzo, TurnTrump
from referee.bestia.variants import (
    ALIASES,
    HOUSE_OFFENCES,
    NOT_SUPPORTED,
    VARIANTS,
    Variant,
    deck_for,
    options_for,
    rules_for,
)
from referee.core import Action, Event, Violation
from referee.tricks import (
    BadDeal,
    BadOption,
    BadPlayerCount,
    CardNotInDeck,
    Claim,
    Holdings,
    OutOfOrder,
    OutOfTurn,
    TrickState,
    read_options,
    read_players,
    seeded_shuffle,
    suit_of,
    trick_winner,
)


class NotInThisVariant(Violation):
    """An action the variant being played does not have (a buco without col buco, a terzo
    in the classic game...)."""


class StockExhausted(Violation):
    """Not enough cards left, even after reshuffling the discarded hands (S3)."""


class DoctorCannotDeal(StockExhausted):
    """S5: going to the doctor when even the stock and the hands of the players who are out (or
    who may still go out) cannot give three cards: the player chooses again between playing
    their own hand (`knock`) and passing (`decline`)."""


class BadExchange(Violation):
    """A Gioco exchange of more cards than the hand holds, of cards not in it, or unnamed
    when the hand is known."""


class TerzoMustPass(Violation):
    """ "Terzo se devo" with three or more players already in: the player must pass."""


class TerzoFirstTurnOnly(Violation):
    """ "Terzo se devo" may be said only on the first turn to speak."""


class BucoTaken(Violation):
    """The spare hand (buco) has already been taken this deal."""


def variant_named(name: str) -> Variant:
    key = str(name).strip().lower()
    key = ALIASES.get(key, key)
    if key in VARIANTS:
        return VARIANTS[key]
    if key in NOT_SUPPORTED:
        raise BadOption(
            f"the {key} variant is described in the rules but not refereed yet",
            option="variant",
            value=name,
            supported=sorted(VARIANTS),
        )
    raise BadOption(
        f"no Bestia variant {name!r}; choose one of {', '.join(sorted(VARIANTS))}",
        option="variant",
        value=name,
        supported=sorted(VARIANTS),
    )


class BestiaState(TrickState):
    """A game of Bestia: deal after deal, until the agreed number of deals has been played
    (and, by default, a deal has ended with nobody in bestia)."""

    title = "Bestia"
    action_module = Play.__module__
    seen_in = ("speak", "doctor", "exchange", "play", "trump")

    def __init__(self, setup: Mapping[str, Any]) -> None:
        players = read_players(setup)
        given = setup.get("options") or {}
        if not isinstance(given, Mapping):
            raise BadOption("the table options are an object: {name: value}", value=given)
        self.variant = variant_named(given.get("variant", "classic"))
        v = self.variant
        if (
            not v.min_players <= len(players) <= v.max_players
            or len(set(players)) != len(players)
            or not all(isinstance(p, str) and p for p in players)
        ):
            raise BadPlayerCount(
                f"{v.title} needs {v.min_players} to {v.max_players} different players", players=players
            )
        self.players = players
        self.options = read_options(given, options_for(v, players))
        self.options["variant"] = v.name
        o = self.options
        if o["dealer"] not in players:
            raise BadOption(f"the dealer {o['dealer']!r} is not a player", option="dealer")
        if o["stake"] is None or o["stake"] <= 0:
            raise BadOption("the stake must be a positive number of chips", option="stake")
        if not v.everyone_pays and v.scoring != "julepe" and o["stake"] % v.tricks:
            raise BadOption(f"the stake must divide by {v.tricks}, e.g. {v.tricks}", option="stake", value=o["stake"])
        if o["buco"] and v.bidding != "classic":
            raise BadOption("the buco belongs to the 3-card game", option="buco")
        for key in ("fee", "chips", "pot", "deals_to_play"):
            if o[key] is None or o[key] < 0:
                raise BadOption(f"option {key} must be zero or more", option=key)
        if o["cap"] is not None and o["cap"] <= 0:
            raise BadOption("the payment cap must be positive", option="cap")
        if o["without_twos"] is not None and v.name != "julepe":
            raise BadOption("without_twos belongs to Julepe", option="without_twos")
        self.deck, self.order = deck_for(v, len(players), o)
        self.exchange_max = v.exchange_max
        if o["exchange_up_to"] is not None:
            if v.name not in ("tippen", "julepe", "mauscheln"):
                raise BadOption("an exchange round belongs to Tippen, Julepe and Mauscheln", option="exchange_up_to")
            if not 0 <= o["exchange_up_to"] <= v.hand_size:
                raise BadOption(f"exchange_up_to is 0 to {v.hand_size}", option="exchange_up_to")
            self.exchange_max = o["exchange_up_to"]
        if 1 + v.hand_size * len(players) > len(self.deck):
            raise BadPlayerCount(
                f"{len(players)} hands of {v.hand_size} do not fit in {len(self.deck)} cards", players=players
            )
        self.rules = rules_for(v, o)
        self.seed = setup.get("seed")
        deals = setup.get("deals") or []
        if not isinstance(deals, (list, tuple)):
            raise BadDeal("deals is a list of deals, each with 'trump' and 'hands'")
        self.deals = [self._read_deal(d, i) for i, d in enumerate(deals)]
        self.stacks: dict[str, int] = {p: o["chips"] for p in players}
        self.pot: int = o["pot"]
        self.total = sum(self.stacks.values()) + self.pot
        self.deal_no = -1
        self.dealer = o["dealer"]
        self.history: list[dict[str, Any]] = []
        self.half_next: list[str] = []
        self.forced_next = False
        self.phase = "deal"
        self.result: dict[str, Any] | None = None
        self.opening: list[Event] = []
        self.opening = self._start_deal()

    # -- setup helpers -----------------------------------------------------------------
    def _read_deal(self, deal: Any, index: int) -> dict[str, Any]:
        v = self.variant
        where = f"deal {index + 1}"
        if not isinstance(deal, Mapping) or "hands" not in deal or "trump" not in deal:
            raise BadDeal(f"{where}: give 'trump' and 'hands' (and optionally 'stock', 'buco')")
        cards_lists = [deal.get("buco") or [], deal.get("stock") or []]
        if not isinstance(deal["hands"], Mapping):
            raise BadDeal(f"{where}: 'hands' maps each player to a list of cards")
        cards_lists += list(deal["hands"].values())
        if not isinstance(deal["trump"], str) or not all(
            isinstance(cs, (list, tuple)) and all(isinstance(c, str) for c in cs) for cs in cards_lists
        ):
            raise BadDeal(f"{where}: cards are written as names, e.g. '7S' or 'AC', in lists")
        try:
            parse = self.deck.parse
            hands = {p: [parse(c) for c in cs] for p, cs in dict(deal["hands"]).items()}
            trump = parse(deal["trump"])
            buco = [parse(c) for c in deal.get("buco") or []]
            stock = [parse(c) for c in deal.get("stock") or []]
        except CardNotInDeck as exc:
            raise BadDeal(f"{where}: {exc.message}") from None
        if sorted(hands) != sorted(self.players):
            raise BadDeal(f"{where}: one hand for each of {self.players}")
        if any(len(cs) != v.hand_size for cs in hands.values()):
            raise BadDeal(f"{where}: every hand has {v.hand_size} cards")
        if self.options["buco"] and len(buco) != 3:
            raise BadDeal(f"{where}: col buco needs a 3-card 'buco'")
        used = [c for cs in hands.values() for c in cs] + [trump] + buco + stock
        if len(set(used)) != len(used):
            raise BadDeal(f"{where}: a card is dealt twice")
        stock += [c for c in self.deck.cards if c not in used]
        return {"hands": hands, "trump": trump, "buco": buco, "stock": stock}

    def next_of(self, player: str, among: list[str] | None = None) -> str:
        seats = self.players
        i = seats.index(player)
        for k in range(1, len(seats) + 1):
            p = seats[(i + k) % len(seats)]
            if among is None or p in among:
                return p
        raise ValueError("nobody")

    def from_right(self) -> list[str]:
        """The players in order from the dealer's right, the dealer last."""
        i = self.players.index(self.dealer)
        n = len(self.players)
        return [self.players[(i + 1 + k) % n] for k in range(n)]

    def _pay_in(self, player: str, amount: int) -> None:
        self.stacks[player] -= amount
        self.pot += amount

    # -- a deal ------------------------------------------------------------------------
    def _start_deal(self) -> list[Event]:
        v, o = self.variant, self.options
        self.deal_no += 1
        events: list[Event] = []
        ante: dict[str, int] = {}
        if v.everyone_pays:
            for p in self.from_right():
                ante[p] = o["stake"] // 2 if p in self.half_next else o["stake"]
        else:
            ante[self.dealer] = o["stake"]
        for p, amount in ante.items():
            self._pay_in(p, amount)
        self.half_next = []
        events.append(Event("ante", {"deal": self.deal_no + 1, "dealer": self.dealer, "paid": ante, "pot": self.pot}))
        dealt = self._deal_cards()
        n = v.hand_size
        self.trump: str | None = None
        if dealt is None:
            self.holdings = Holdings(self.players, self.deck, None, {p: n for p in self.players})
            self.trump_card: str | None = None
            self.stock: list[str] | None = None
            used = 1 + n * len(self.players) + (3 if o["buco"] else 0)
            self.stock_count = len(self.deck) - used
            self.buco: list[str] | None = None
        else:
            self.holdings = Holdings(self.players, self.deck, dealt["hands"])
            self.trump_card = dealt["trump"]
            self.stock = list(dealt["stock"])
            self.stock_count = len(self.stock)
            self.buco = list(dealt["buco"]) if o["buco"] else None
            self.holdings.gone.append(self.trump_card)
        self.buco_count = 3 if o["buco"] else 0
        self.thrown: list[str] = []
        self.thrown_count = 0
        self.aside: list[str] = []  # hands put aside (doctor, buco, passo): out of this deal
        self.owed: dict[str, int] = {}  # S5: cards still due to a player who went to the doctor
        self.own_hands: dict[str, list[str]] = {}  # ...and the known cards of the hand they put aside
        self.reshuffles = 0
        self.status = {p: "waiting" for p in self.players}
        self.said: dict[str, list[str]] = {p: [] for p in self.players}
        self.busser: str | None = None  # the busser (5-card) or the Mauschler: leads first
        self.joining = False  # Mauscheln: the others are deciding whether to join
        self.rob_pending = False  # Julepe: the dealer has yet to take the trump card
        self.queue: list[str] = []
        self.round_no = 1
        self.round_exchanged = False
        self.trick: list[tuple[str, str]] = []
        self.trick_no = 0
        self.leader: str | None = None
        self.turn: str | None = None
        self.tricks_won = {p: 0 for p in self.players}
        self.offences: list[dict[str, Any]] = []
        self.forced = bool(
            (o["forced_round"] and self.forced_next) or (v.bidding == "tippen" and self.pot == o["stake"])
        )
        events.append(
            Event(
                "dealt", {"deal": self.deal_no + 1, "known": dealt is not None, "cards_each": n, "forced": self.forced}
            )
        )
        if self.trump_card is None:
            self.phase = "trump"
            return events
        return events + self._trump_turned(self.trump_card)

    def _deal_cards(self) -> dict[str, Any] | None:
        v, o = self.variant, self.options
        if self.deal_no < len(self.deals):
            d = self.deals[self.deal_no]
            return {
                "hands": {p: list(c) for p, c in d["hands"].items()},
                "trump": d["trump"],
                "buco": list(d["buco"]),
                "stock": list(d["stock"]),
            }
        if self.seed is None:
            return None
        cards = seeded_shuffle(self.deck.cards, "bestia", v.name, self.seed, self.deal_no)
        order = self.from_right()
        hands: dict[str, list[str]] = {p: [] for p in order}
        if v.bidding == "mauscheln":  # two each, the trump card, two each
            hands = {p: cards[2 * i : 2 * i + 2] for i, p in enumerate(order)}
            pos = 2 * len(order)
            trump, pos = cards[pos], pos + 1
            for i, p in enumerate(order):
                hands[p] = hands[p] + cards[pos + 2 * i : pos + 2 * i + 2]
            pos += 2 * len(order)
        elif v.bidding in ("italian", "julepe"):  # one at a time, then the trump card
            for k in range(v.hand_size):
                for i, p in enumerate(order):
                    hands[p].append(cards[k * len(order) + i])
            pos = v.hand_size * len(order)
            trump, pos = cards[pos], pos + 1
        else:  # the top card turned, then a packet of three each
            trump, pos = cards[0], 1
            for p in order:
                hands[p] = cards[pos : pos + v.hand_size]
                pos += v.hand_size
        buco: list[str] = []
        if o["buco"]:
            buco, pos = cards[pos : pos + 3], pos + 3
        return {"hands": hands, "trump": trump, "buco": buco, "stock": cards[pos:]}

    def _trump_turned(self, card: str) -> list[Event]:
        """The deal goes on once `card`, the trump card, is turned up."""
        self.trump = suit_of(card)
        events = [Event("trump_turned", {"card": card, "trump": self.trump, "name": self.deck.name_of(card)})]
        if self.forced:
            for p in self.players:
                self.status[p] = "in"
                self.said[p].append("forced")
            events.append(
                Event(
                    "compulsory",
                    {
                        "deal": self.deal_no + 1,
                        "reason": "forced round" if self.options["forced_round"] else "only the stake in the pot",
                    },
                )
            )
            if self.variant.bidding == "italian":
                return events + self._end_declarations()  # the fee of every player in
            if self.exchange_max:
                return events + self._start_exchange()
            return events + self._start_play()
        self.phase = "speak"
        self.queue = self.from_right()
        return events

    # -- the contract (verify, apply, copy, views: TrickState) ----------------------------
    # -- the trump card (unknown deal) -------------------------------------------------
    def _verify_trump(self, a: TurnTrump) -> None:
        if self.phase != "trump":
            raise OutOfOrder("the trump card is already known", trump_card=self.trump_card)
        if a.card not in self.deck:
            raise CardNotInDeck(f"{a.card!r} is not a card of the {self.deck.name} deck", card=a.card)

    def _apply_trump(self, a: TurnTrump) -> list[Event]:
        self.trump_card = a.card
        self.holdings.gone.append(a.card)
        return self._trump_turned(a.card)

    # -- speaking ----------------------------------------------------------------------
    def _speaker_check(self, player: str, action: str) -> None:
        if self.phase != "speak":
            raise OutOfOrder(f"{action}: nobody is declaring now (phase {self.phase})")
        if player != self.queue[0]:
            raise OutOfTurn(f"{self.queue[0]} speaks now, not {player}", turn=self.queue[0], player=player)

    def _terzo_blocked(self, player: str) -> bool:
        return self.status[player] == "terzo" and sum(1 for s in self.status.values() if s == "in") >= 3

    def _verify_knock(self, a: Knock) -> None:
        if self.phase == "doctor" and a.player == self.queue[0]:
            if self._doctor_short(a.player) is None:
                raise OutOfOrder(
                    f"{a.player} passed: now they take new cards ('doctor {a.player}') or stay out "
                    f"('decline {a.player}'); their own hand is played only when the doctor cannot deal (S5)"
                )
            return
        self._speaker_check(a.player, "knock")
        if self._terzo_blocked(a.player):
            raise TerzoMustPass(f"three players are in: {a.player} said terzo se devo and passes")

    def _verify_pass(self, a: Pass) -> None:
        self._speaker_check(a.player, "pass")

    def _exchanger_check(self, player: str) -> None:
        if player != self.queue[0]:
            raise OutOfTurn(f"{self.queue[0]} changes cards now, not {player}", turn=self.queue[0], player=player)

    def _verify_gioco(self, a: Gioco) -> None:
        limit = self.holdings.counts.get(a.player, 0)
        if self.phase == "exchange":
            self._exchanger_check(a.player)
            if self.rob_pending and a.player == self.dealer:
                raise OutOfOrder("the dealer first takes the trump card and discards one (rob)")
            limit = min(limit, self.exchange_max)
        else:
            self._speaker_check(a.player, "gioco")
            if self.variant.bidding != "italian":
                raise NotInThisVariant(f"no exchange while declaring in {self.variant.title}")
            if self._terzo_blocked(a.player):
                raise TerzoMustPass(f"three players are in: {a.player} said terzo se devo and passes")
        n = self._exchange_count(a)
        if n > limit:
            raise BadExchange(f"{a.player} may change at most {limit} cards", wanted=n)
        if self.holdings.full and a.discards == () and n > 0:
            raise BadExchange("name the cards discarded: the hand is known", count=n)
        if len(set(a.discards)) != len(a.discards):
            raise BadExchange("a card discarded twice", discards=list(a.discards))
        for card in a.discards:
            if card not in self.deck:
                raise CardNotInDeck(f"{card!r} is not a card of this deck", card=card)
            if self.holdings.full and card not in self.holdings.hands[a.player]:
                raise BadExchange(f"{a.player} does not hold {card}", card=card)
        if n > self._available():
            raise StockExhausted(f"only {self._available()} cards left to exchange", wanted=n)

    def _exchange_count(self, a: Gioco) -> int:
        if a.count is not None:
            if a.discards and len(a.discards) != a.count:
                raise BadExchange("count and discards disagree", count=a.count, discards=list(a.discards))
            if a.count < 0:
                raise BadExchange("a negative exchange", count=a.count)
            return a.count
        return len(a.discards)

    def _verify_terzo(self, a: Terzo) -> None:
        self._speaker_check(a.player, "terzo")
        if not self.variant.terzo:
            raise NotInThisVariant(f"no 'terzo se devo' in {self.variant.title}")
        if self.round_no != 1 or self.status[a.player] != "waiting":
            raise TerzoFirstTurnOnly("terzo se devo is said on the first turn only")

    def _verify_buco(self, a: Buco) -> None:
        self._speaker_check(a.player, "buco")
        if not self.options["buco"]:
            raise NotInThisVariant("this table does not play col buco")
        if self.buco_count == 0:
            raise BucoTaken("the buco has already been taken")

    def _available(self) -> int:
        return self.stock_count + self.thrown_count

    def _apply_knock(self, a: Knock) -> list[Event]:
        p = a.player
        if self.phase == "doctor":
            return self._knock_again(p)
        self.status[p] = "in"
        self.queue.pop(0)
        if self.variant.bidding == "mauscheln":
            if self.joining:
                self.said[p].append("join")
                return [Event("spoke", {"player": p, "said": "join"})] + self._after_speech()
            self.busser, self.joining = p, True
            self.said[p].append("I play")
            i, n = self.players.index(p), len(self.players)
            self.queue = [self.players[(i + k) % n] for k in range(1, n)]
            return [Event("spoke", {"player": p, "said": "I play", "mauschler": True})]
        if self.variant.bidding != "italian":
            self.said[p].append("knock")
            return [Event("spoke", {"player": p, "said": "knock"})] + self._after_speech()
        self.said[p].append("busso")
        self.busser = p
        events = [Event("spoke", {"player": p, "said": "busso"})]
        forced = [q for q in self.from_right() if self.status[q] == "waiting"]
        for q in forced:
            self.status[q] = "in"
            self.said[q].append("forced")
        if forced:
            events.append(Event("compulsory", {"players": forced, "reason": f"{p} bussa"}))
        return events + self._end_declarations()

    def _apply_pass(self, a: Pass) -> list[Event]:
        p = a.player
        self.queue.pop(0)
        self.said[p].append("pass")
        if (self.variant.bidding == "classic" and self.options["doctor"]) or (
            self.variant.bidding == "mauscheln" and not self.joining
        ):
            self.status[p] = "passed"
        else:
            self._out(p)
        return [Event("spoke", {"player": p, "said": "pass"})] + self._after_speech()

    def _out(self, p: str) -> None:
        self.status[p] = "out"
        if self.variant.bidding == "classic":  # the hands of players who are out may be reshuffled
            known = self.holdings.clear(p)
            if self.holdings.full:
                self.thrown.extend(known)
            self.thrown_count += self.variant.hand_size
        else:
            self.aside.extend(self.holdings.clear(p))

    def _draw(self, n: int) -> list[str] | int:
        """n cards from the stock, reshuffling the thrown-away cards under it when short (S3)."""
        if n > self.stock_count:
            if self.stock is not None:
                self.reshuffles += 1
                self.stock += seeded_shuffle(self.thrown, "bestia-reshuffle", self.seed, self.deal_no, self.reshuffles)
                self.thrown = []
            self.stock_count += self.thrown_count
            self.thrown_count = 0
        self.stock_count -= n
        if self.stock is None:
            return n
        cards, self.stock = self.stock[:n], self.stock[n:]
        return cards

    def _apply_gioco(self, a: Gioco) -> list[Event]:
        p = a.player
        n = self._exchange_count(a)
        self.queue.pop(0)
        if n:
            dropped = self.holdings.drop(p, list(a.discards) if a.discards else n)
            new = self._draw(n)
            self.thrown.extend(dropped)
            self.thrown_count += n
            self.holdings.take(p, new)
            self.round_exchanged = True
        if self.phase == "exchange":
            self.said[p].append(f"change {n}")
            events = [Event("exchanged", {"player": p, "exchanged": n})]
            return events + (self._start_play() if not self.queue else [])
        self.status[p] = "in"
        self.said[p].append(f"gioco {n}")
        return [Event("spoke", {"player": p, "said": "gioco", "exchanged": n})] + self._after_speech()

    def _apply_terzo(self, a: Terzo) -> list[Event]:
        self.queue.pop(0)
        self.status[a.player] = "terzo"
        self.said[a.player].append("terzo")
        return [Event("spoke", {"player": a.player, "said": "terzo se devo"})] + self._after_speech()

    def _apply_buco(self, a: Buco) -> list[Event]:
        p = a.player
        self.queue.pop(0)
        self.aside.extend(self.holdings.clear(p))
        self.holdings.take(p, list(self.buco) if self.buco is not None else 3)
        self.buco, self.buco_count = ([] if self.buco is not None else None), 0
        self.status[p] = "in"
        self.said[p].append("buco")
        return [Event("spoke", {"player": p, "said": "buco"})] + self._after_speech()

    def _after_speech(self) -> list[Event]:
        if self.queue:
            return []
        bidding = self.variant.bidding
        if bidding == "mauscheln" and not self.joining:  # nobody said "I play"
            for p in self.players:
                self._out(p)
            return self._start_play()
        if bidding in ("mauscheln", "julepe") or (bidding == "tippen" and self.exchange_max):
            return self._start_exchange()
        if bidding != "italian":
            passed = [p for p in self.from_right() if self.status[p] == "passed"]
            if passed:
                self.phase = "doctor"
                self.queue = passed
                return [Event("doctor", {"offered": passed})]
            return self._start_play()
        pending = [p for p in self.from_right() if self.status[p] == "terzo"]
        one = self.options["one_round"]
        if (one and self.round_no >= 2) or (not pending and (one or not self.round_exchanged)):
            return self._end_declarations()
        self.round_no += 1
        self.round_exchanged = False
        self.queue = pending if one else [p for p in self.from_right() if self.status[p] in ("in", "terzo")]
        return [Event("next_round", {"round": self.round_no, "speakers": list(self.queue)})]

    def _end_declarations(self) -> list[Event]:
        events: list[Event] = []
        active = sum(1 for s in self.status.values() if s == "in")
        for p in self.from_right():
            if self.status[p] == "terzo":  # resolved at the end: in only if fewer than three
                if active < 3:
                    self.status[p] = "in"
                    active += 1
                    self.said[p].append("terzo: in")
                else:
                    self._out(p)
                    self.said[p].append("terzo: out")
        self.queue = []
        fee = self.options["fee"] if self.variant.fee else 0
        if fee:
            paid = {p: fee for p in self.from_right() if self.status[p] == "in"}
            for p, amount in paid.items():
                self._pay_in(p, amount)
            events.append(Event("fee", {"paid": paid, "pot": self.pot}))
        return events + self._start_play()

    # -- the exchange round (Julepe, Mauscheln) -----------------------------------------
    def _start_exchange(self) -> list[Event]:
        ins = self.in_players()
        if len(ins) < 2:
            return self._start_play()
        self.phase = "exchange"
        self.queue = ins
        self.rob_pending = self.variant.name == "julepe" and self.dealer in ins
        return [Event("exchange", {"players": ins, "up_to": self.exchange_max})]

    def _verify_rob(self, a: Rob) -> None:
        if self.variant.name != "julepe":
            raise NotInThisVariant("only the Julepe dealer takes the trump card")
        if self.phase != "exchange":
            raise OutOfOrder("the dealer takes the trump card at their turn to change cards")
        self._exchanger_check(a.player)
        if a.player != self.dealer or not self.rob_pending:
            raise OutOfOrder("only the dealer, once, takes the trump card", dealer=self.dealer)
        if a.discard is None:
            if self.holdings.full:
                raise BadExchange("name the card discarded: the hand is known")
            return
        if a.discard not in self.deck:
            raise CardNotInDeck(f"{a.discard!r} is not a card of this deck", card=a.discard)
        if a.discard != self.trump_card:
            if self.holdings.full and a.discard not in self.holdings.hands[a.player]:
                raise BadExchange(f"{a.player} does not hold {a.discard}", card=a.discard)
            if a.discard in self.holdings.gone:
                raise BadExchange(f"{a.discard} is not in any hand", card=a.discard)

    def _apply_rob(self, a: Rob) -> list[Event]:
        p = a.player
        card = self.trump_card
        assert card is not None  # the dealer robs in the exchange, after the card is turned
        self.holdings.gone.remove(card)
        if self.holdings.full:
            self.holdings.take(p, [card])
        else:
            self.holdings.take(p, 1)
            self.holdings.show(p, [card])
        dropped = self.holdings.drop(p, [a.discard] if a.discard else 1)
        self.thrown.extend(dropped if self.holdings.full else [])
        self.thrown_count += 1
        self.rob_pending = False
        self.said[p].append("rob")
        return [Event("robbed", {"player": p, "trump_card": self.trump_card})]

    # -- the doctor (classic) ----------------------------------------------------------
    def _verify_doctor(self, a: Doctor) -> None:
        if self.phase != "doctor":
            raise OutOfOrder("new cards are offered after everyone has spoken, to those who passed")
        if a.player != self.queue[0]:
            raise OutOfTurn(f"the dealer offers new cards to {self.queue[0]} now", turn=self.queue[0], player=a.player)
        if a.accept:
            short = self._doctor_short(a.player)
            if short is not None:
                raise DoctorCannotDeal(
                    f"{short}: {a.player} chooses again: 'knock {a.player}' to play their own hand, "
                    f"'decline {a.player}' to pass (S5)",
                    player=a.player,
                    left=self._available(),
                    owed=self.owed.get(a.player, 0),
                )

    def _doctor_short(self, player: str) -> str | None:
        """Why the doctor cannot give `player` three cards (S5), or None when it can: the stock
        first, then the hands of the players who are out, including those still to answer the
        doctor, who may go out; the cards go to the players waiting for them in order."""
        n = self.variant.hand_size
        if player in self.owed:
            return f"{player} still waits for {self.owed[player]} cards and nobody is left to go out"
        waiting = sum(self.owed.values())
        later = len(self.queue) - 1  # still to answer: each may go out and throw in a hand
        if self._available() - waiting + n * later >= n:
            return None
        left = max(0, self._available() - waiting)
        return f"only {left} cards are left for the doctor and no hand can be thrown in after {player}'s"

    def _apply_doctor(self, a: Doctor) -> list[Event]:
        p = a.player
        self.queue.pop(0)
        events: list[Event] = []
        if a.accept:
            n = self.variant.hand_size
            own = self.holdings.clear(p)
            self.aside.extend(own)
            now = 0 if self.owed else min(n, self._available())
            self.holdings.take(p, self._draw(now))
            if now < n:  # S5: the rest from the hands of players who go out later
                self.owed[p] = n - now
                self.own_hands[p] = own
            self.status[p] = "in"
            self.said[p].append("doctor")
            events.append(
                Event("doctor_answer", {"player": p, "accept": True, **({"owed": n - now} if now < n else {})})
            )
        else:
            self._give_up(p)
            self._out(p)
            self.said[p].append("out")
            events.append(Event("doctor_answer", {"player": p, "accept": False}))
            events += self._serve_owed()
        return events + self._after_doctor()

    def _give_up(self, p: str) -> None:
        """A player still owed cards (S5) gives up the doctor: the cards dealt so far go to the
        thrown-away cards and the hand put aside is theirs again."""
        if p not in self.owed:
            return
        dealt = self.variant.hand_size - self.owed.pop(p)
        own = self.own_hands.pop(p)
        known = self.holdings.clear(p)
        if self.holdings.full:
            self.thrown.extend(known)
        self.thrown_count += dealt
        for card in own:
            self.aside.remove(card)
        self.holdings.take(p, list(own) if self.holdings.full else self.variant.hand_size)
        self.holdings.show(p, own)

    def _serve_owed(self) -> list[Event]:
        """Deal what the stock and the thrown-away hands now have to the players owed cards (S5)."""
        events: list[Event] = []
        for p in list(self.owed):
            k = min(self.owed[p], self._available())
            if not k:
                break
            self.holdings.take(p, self._draw(k))
            self.owed[p] -= k
            events.append(Event("doctor_dealt", {"player": p, "cards": k, "owed": self.owed[p]}))
            if not self.owed[p]:
                del self.owed[p]
                self.own_hands.pop(p)
                if p in self.queue:
                    self.queue.remove(p)
        return events

    def _after_doctor(self) -> list[Event]:
        if self.queue:
            return []
        if self.owed:  # S5: nothing more can come; they choose again
            self.queue = list(self.owed)
            return [Event("doctor_short", {"players": list(self.owed), "owed": dict(self.owed)})]
        return self._start_play()

    def _knock_again(self, p: str) -> list[Event]:
        """S5: the doctor cannot deal; `p` plays their own hand after all."""
        self.queue.pop(0)
        self._give_up(p)
        self.status[p] = "in"
        self.said[p].append("knock")
        events = [Event("spoke", {"player": p, "said": "knock", "doctor_short": True})]
        return events + self._serve_owed() + self._after_doctor()

    # -- the tricks --------------------------------------------------------------------
    def in_players(self) -> list[str]:
        return [p for p in self.from_right() if self.status[p] == "in"]

    def _start_play(self) -> list[Event]:
        ins = self.in_players()
        if len(ins) < 2:
            return self._settle()
        self.phase = "play"
        self.leader = self.turn = self.busser if self.busser in ins else ins[0]
        return [Event("play_starts", {"players": ins, "leader": self.leader, "pot": self.pot})]

    def _verify_play(self, a: Play) -> None:
        if self.phase != "play":
            raise OutOfOrder(f"no trick is being played (phase {self.phase})")
        self._verify_turn(a.player)
        self.holdings.verify_play(a.player, a.card, self.rules, self.context())

    def _apply_play(self, a: Play) -> list[Event]:
        ctx = self.context()
        events = self._revealed(a.player, a.card, self.holdings.play(a.player, a.card, self.rules, ctx), "plays")
        self.trick.append((a.player, a.card))
        events.append(Event("played", {"player": a.player, "card": a.card, "trick": self.trick_no + 1}))
        ins = self.in_players()
        if len(self.trick) < len(ins):
            self.turn = self.next_of(a.player, ins)
            return events
        win = trick_winner(self.trick, self.trump, self.order)
        winner = self.trick[win][0]
        self.tricks_won[winner] += 1
        events.append(
            Event("trick_won", {"trick": self.trick_no + 1, "winner": winner, "cards": [c for _, c in self.trick]})
        )
        self.trick = []
        self.trick_no += 1
        self.leader = self.turn = winner
        if self.trick_no == self.variant.tricks:
            events += self._settle()
        return events

    def _revealed(self, player: str, card: str, claims: list[Claim], how: str) -> list[Event]:
        events = []
        for claim in claims:
            name = claim.violation.__name__
            record = {
                "player": player,
                "offence": name,
                "trick": claim.trick_no + 1,
                "revealed_by": card,
                "penalised": self.options["offence_costs_pot"] or name in HOUSE_OFFENCES,
            }
            self.offences.append(record)
            events.append(Event("offence_revealed", record))
        return events

    # -- settling ----------------------------------------------------------------------
    def _capped(self, amount: int) -> int:
        cap = self.options["cap"]
        return amount if cap is None else min(amount, cap)

    def _settle(self) -> list[Event]:
        v, o = self.variant, self.options
        ins = self.in_players()
        pot = self.pot
        won: dict[str, int] = {}
        penalties: dict[str, int] = {}
        if len(ins) == 1:  # the only player in takes the pot without play
            self.tricks_won[ins[0]] = v.tricks
            won[ins[0]] = pot
        elif len(ins) > 1 and v.scoring == "julepe":  # who makes two tricks shares the pot
            makers = [p for p in ins if self.tricks_won[p] >= 2]
            won = {p: pot // len(makers) for p in makers}
        elif len(ins) > 1:
            share = pot // v.tricks
            won = {p: share * self.tricks_won[p] for p in ins if self.tricks_won[p]}
        for p, amount in won.items():
            self.stacks[p] += amount
            self.pot -= amount
        bestia = []
        if len(ins) > 1:
            for p in ins:
                due = self._penalty(p, pot)
                if due:
                    bestia.append(p)
                    penalties[p] = penalties.get(p, 0) + self._capped(due)
            for off in self.offences:
                if off["penalised"]:
                    penalties[off["player"]] = penalties.get(off["player"], 0) + self._capped(pot)
        for p, amount in penalties.items():
            self._pay_in(p, amount)
        if (
            v.half_entry_reward
            and self.busser in ins
            and len(ins) > 1
            and self.tricks_won[self.busser] > max(self.tricks_won[p] for p in ins if p != self.busser)
        ):
            self.half_next = [self.busser]
        self.forced_next = not bestia
        record = {
            "deal": self.deal_no + 1,
            "dealer": self.dealer,
            "trump_card": self.trump_card,
            "in": ins,
            "busser": self.busser,
            "said": {p: list(s) for p, s in self.said.items() if s},
            "pot": pot,
            "tricks": {p: self.tricks_won[p] for p in ins},
            "won": won,
            "bestia": bestia,
            "paid": penalties,
            "offences": list(self.offences),
            "next_pot": self.pot,
            "stacks": dict(self.stacks),
            "half_entry_next": list(self.half_next),
        }
        self.history.append(record)
        events = [Event("settled", record)]
        played = self.deal_no + 1
        if played >= o["deals_to_play"] and not (o["until_no_bestia"] and bestia):
            return events + self._finish()
        self.dealer = self.next_of(self.dealer)
        self.phase = "deal"
        return events + self._start_deal()

    def _penalty(self, player: str, pot: int) -> int:
        """What a player in pays for too few tricks (0: nothing)."""
        tricks, scoring = self.tricks_won[player], self.variant.scoring
        if scoring == "julepe":  # "make the julepe": two tricks
            return pot if tricks < 2 else 0
        if scoring == "mauscheln":
            if player == self.busser:  # the Mauschler promised two tricks
                return 2 * pot if tricks == 0 else pot if tricks == 1 else 0
            return pot if tricks == 0 else 0
        if tricks:
            return 0
        return pot * 3 // 2 if player == self.busser else pot

    def _finish(self) -> list[Event]:
        self.phase = "over"
        self.turn = None
        gained = {p: self.stacks[p] - self.options["chips"] for p in self.players}
        best = max(gained.values())
        self.result = {
            "deals": self.deal_no + 1,
            "gained": gained,
            "winners": [p for p in self.players if gained[p] == best],
            "pot_left": self.pot,
        }
        return [Event("game_over", self.result)]

    # -- enumerating -------------------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        if self.is_over:
            return []
        out: list[Action] = []
        if self.phase == "trump":
            return [TurnTrump(c) for c in self.deck.cards]
        if self.phase == "speak":
            p = self.queue[0]
            out = [Knock(p), Pass(p), Terzo(p), Buco(p)]
            if self.variant.bidding == "italian":
                if self.holdings.full:
                    hand = self.holdings.hands[p]
                    out += [Gioco(p, combo) for k in range(len(hand) + 1) for combo in itertools.combinations(hand, k)]
                else:
                    out += [Gioco(p, (), k) for k in range(self.holdings.counts[p] + 1)]
        elif self.phase == "doctor":
            p = self.queue[0]
            out = [Doctor(p, True), Doctor(p, False), Knock(p)]
        elif self.phase == "exchange":
            p = self.queue[0]
            if self.rob_pending and p == self.dealer:
                if self.holdings.full:
                    out = [Rob(p, c) for c in self.holdings.hands[p] + [self.trump_card]]
                else:
                    out = [Rob(p, None)]
            elif self.holdings.full:
                hand = self.holdings.hands[p]
                out = [
                    Gioco(p, combo)
                    for k in range(min(len(hand), self.exchange_max) + 1)
                    for combo in itertools.combinations(hand, k)
                ]
            else:
                out = [Gioco(p, (), k) for k in range(min(self.holdings.counts[p], self.exchange_max) + 1)]
        elif self.phase == "play":
            player = self.turn
            assert player is not None  # someone is always to play in the play phase
            out = [Play(player, c) for c in self.playable(player)]
        return [a for a in out if self.can(a)]

    def _waiting_before_play(self) -> dict[str, Any]:
        """{"step": "trump"}, or the player to speak, join, take new cards, rob or exchange."""
        if self.phase == "trump":
            return {"step": "trump"}
        step = (
            "join"
            if self.joining
            else (
                "rob" if self.rob_pending and self.phase == "exchange" and self.queue[0] == self.dealer else self.phase
            )
        )
        out: dict[str, Any] = {"step": step, "player": self.queue[0]}
        if self.phase == "doctor" and self.queue[0] in self.owed:
            out["owed"] = self.owed[self.queue[0]]  # S5: choosing again, the doctor cannot deal
        return out

    def standings(self) -> dict[str, Any]:
        """Each player's chips, and what they have gained or lost since the start."""
        start = self.options["chips"]
        return {p: {"chips": self.stacks[p], "gained": self.stacks[p] - start} for p in self.players}

    @property
    def is_chance_node(self) -> bool:
        """The next action is chance's: the trump card turned, when the deal is not known."""
        return self.phase == "trump"

    # -- views -------------------------------------------------------------------------
    def _public(self) -> dict[str, Any]:
        return {
            "game": "bestia",
            "variant": self.variant.name,
            "deck": self.deck.name,
            "players": list(self.players),
            "options": dict(self.options),
            "phase": self.phase,
            "deal": self.deal_no + 1,
            "dealer": self.dealer,
            "trump_card": self.trump_card,
            "trump": self.trump if self.trump_card else None,
            "pot": self.pot,
            "stacks": dict(self.stacks),
            "status": dict(self.status),
            "said": {p: list(s) for p, s in self.said.items()},
            "busser": self.busser,
            "joining": self.joining,
            "rob_pending": self.rob_pending,
            "queue": list(self.queue),
            "round": self.round_no,
            "forced": self.forced,
            **self._public_trick(),
            "tricks_won": dict(self.tricks_won),
            "stock_count": self.stock_count,
            "thrown_count": self.thrown_count,
            **({"owed": dict(self.owed)} if self.owed else {}),  # S5: only while someone waits for cards
            "buco_count": self.buco_count,
            "offences": list(self.offences),
            "half_entry_next": list(self.half_next),
            "history": list(self.history),
            "result": self.result,
        }

    def snapshot(self) -> dict[str, Any]:
        out = super().snapshot()
        out["stock"] = list(self.stock) if self.stock is not None else None
        out["thrown"] = list(self.thrown)
        out["buco"] = list(self.buco) if self.buco is not None else None
        out["aside"] = list(self.aside)
        return out

    def chips_in_play(self) -> int:
        return sum(self.stacks.values()) + self.pot
