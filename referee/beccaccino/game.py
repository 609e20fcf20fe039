"""The Beccaccino (Marafone) rules engine.

Four players in two fixed partnerships sitting opposite; play and deal go counter-clockwise
(the setup lists the players in that order, so the next player is the one to the right).
Rules: ../shared/rules/beccaccino-it.txt with RULINGS M1-M8; docs/beccaccino.md.

Knowledge: a `seed` (or explicit `deals`) gives the referee every hand, and a revoke is
refused against it; without them the referee learns cards as they are played or shown (the
battezzante's 4 di denari, a Marafona) and a revoke is revealed when the player later plays
the suit they did not follow.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.beccaccino.actions import CALLS, CallOut, Declare, Look, Marafona, Play
from referee.core import Action, Event, TableOption, Violation
from referee.tricks import (
    BECCACCINO_ORDER,
    ITALIAN_40,
    BadDeal,
    BadOption,
    BadPlayerCount,
    BadTeams,
    CardNotInDeck,
    Claim,
    FollowSuit,
    Holdings,
    NotYourRole,
    OutOfOrder,
    Rules,
    TrickState,
    read_options,
    read_players,
    seeded_shuffle,
    suit_of,
    trick_winner,
)

DECK = ITALIAN_40
ORDER = BECCACCINO_ORDER
RULES = Rules((FollowSuit(),))
HAND_SIZE = 10
TRICKS = 10
OPTIONS: dict[str, TableOption] = {
    "target": TableOption(41, int, choices=(41, 31), doc="M1: the score that wins"),
    "dealer": TableOption(
        None, str, nullable=True, doc="the first hand's dealer (default: the first player)", what="a player's name"
    ),
}


class AnnouncementNotByLeader(Violation):
    """Busso, Volo and Striscio belong to the card that leads a trick (M6)."""


class SecondAnnouncement(Violation):
    """A player's second announcement in the same hand (M6: one per player per hand)."""


class UnknownAnnouncement(Violation):
    """An announcement other than busso, volo or striscio."""


class NotASuit(Violation):
    """A trump declaration naming no suit of the Italian deck."""


class NoMarafona(Violation):
    """A Marafona declared by a player who does not hold the 3, 2 and Ace of trump."""


class MarafonaTooLate(Violation):
    """A Marafona declared after the first trick (M5), or a second one in the same hand."""


class BeccaccinoState(TrickState):
    """One game of Beccaccino, from the first deal to the winning team."""

    title = "Beccaccino"
    action_module = Play.__module__
    deck = DECK
    order = ORDER
    rules = RULES

    def __init__(self, setup: Mapping[str, Any]) -> None:
        players = read_players(setup)
        if len(players) != 4 or len(set(players)) != 4 or not all(isinstance(p, str) and p for p in players):
            raise BadPlayerCount("Beccaccino is played by exactly 4 different players", players=players)
        self.players = players
        self.teams = self._read_teams(setup.get("teams"))
        self.team_of = {p: t for t, ps in self.teams.items() for p in ps}
        self.options = read_options(setup.get("options"), OPTIONS)
        dealer = self.options["dealer"] or players[0]
        if dealer not in players:
            raise BadOption(f"the dealer {dealer!r} is not a player", option="dealer")
        self.options["dealer"] = dealer
        self.seed = setup.get("seed")
        deals = setup.get("deals") or []
        if not isinstance(deals, (list, tuple)):
            raise BadDeal("deals is a list of deals, each mapping a player to their cards")
        self.deals = [self._read_deal(d, i) for i, d in enumerate(deals)]
        self.scores = {t: 0 for t in self.teams}
        self.history: list[dict[str, Any]] = []
        self.fouls: list[dict[str, Any]] = []
        self.phase = "declare"
        self.winner: str | None = None
        self.result: dict[str, Any] | None = None
        self.hand_no = 0
        self.dealer = dealer
        self._start_hand()

    # -- setup helpers -----------------------------------------------------------------
    def _read_teams(self, teams: Any) -> dict[str, list[str]]:
        p = self.players
        if not teams:
            return {f"{p[0]}+{p[2]}": [p[0], p[2]], f"{p[1]}+{p[3]}": [p[1], p[3]]}
        if not isinstance(teams, Mapping) or len(teams) != 2:
            raise BadTeams("Beccaccino has two teams of two", teams=teams)
        out = {str(name): list(members) for name, members in teams.items()}
        pairs = sorted(sorted(m) for m in out.values())
        if pairs != sorted([sorted([p[0], p[2]]), sorted([p[1], p[3]])]):
            raise BadTeams("partners sit opposite each other: seats 1 and 3, 2 and 4", teams=teams, seats=p)
        return out

    def _read_deal(self, deal: Any, index: int) -> dict[str, list[str]]:
        if not isinstance(deal, Mapping) or sorted(deal) != sorted(self.players):
            raise BadDeal(f"deal {index + 1} must give a hand to each of {self.players}")
        hands: dict[str, list[str]] = {}
        for player, cards in deal.items():
            if not isinstance(cards, (list, tuple)) or not all(isinstance(c, str) for c in cards):
                raise BadDeal(f"deal {index + 1}: {player}'s cards are a list of names, e.g. '7S'")
            try:
                hands[player] = [DECK.parse(c) for c in cards]
            except CardNotInDeck as exc:
                raise BadDeal(f"deal {index + 1}: {exc.message}") from None
            if len(hands[player]) != HAND_SIZE:
                raise BadDeal(f"deal {index + 1}: {player} must get {HAND_SIZE} cards")
        every = [c for cs in hands.values() for c in cs]
        if len(set(every)) != len(DECK):
            raise BadDeal(f"deal {index + 1} must use each of the 40 cards once")
        return hands

    def next_of(self, player: str) -> str:
        """The player to the right (next in play order)."""
        return self.players[(self.players.index(player) + 1) % 4]

    def partner_of(self, player: str) -> str:
        return self.players[(self.players.index(player) + 2) % 4]

    def _deal(self) -> dict[str, list[str]] | None:
        if self.hand_no < len(self.deals):
            return {p: list(c) for p, c in self.deals[self.hand_no].items()}
        if self.seed is None:
            return None
        cards = seeded_shuffle(DECK.cards, "beccaccino", self.seed, self.hand_no)
        hands: dict[str, list[str]] = {p: [] for p in self.players}
        order = [self.players[(self.players.index(self.dealer) + 1 + i) % 4] for i in range(4)]
        pos = 0
        for _ in range(2):  # in lots of 5, counter-clockwise from the dealer's right
            for player in order:
                hands[player].extend(cards[pos : pos + 5])
                pos += 5
        return hands

    def _start_hand(self) -> None:
        hands = self._deal()
        self.holdings = Holdings(self.players, DECK, hands, {p: HAND_SIZE for p in self.players})
        if self.hand_no == 0:
            self.battezzante = self.holdings.holder_of("4D") if hands is not None else None
        else:
            self.battezzante = self.next_of(self.dealer)
        self.phase = "declare"
        self.trump: str | None = None
        self.trick: list[tuple[str, str]] = []
        self.trick_no = 0
        self.leader: str | None = None
        self.turn: str | None = None
        self.thirds = {t: 0 for t in self.teams}
        self.tricks_taken = {p: 0 for p in self.players}
        self.calls: dict[str, dict[str, Any]] = {}
        self.marafona: dict[str, Any] | None = None
        self.looks: list[str] = []
        self.last_trick: dict[str, Any] | None = None

    # -- the contract (verify, apply, copy, views: TrickState) ----------------------------
    def _over(self) -> dict[str, Any]:
        return {"winner": self.winner}

    # -- declare -----------------------------------------------------------------------
    def _verify_declare(self, a: Declare) -> None:
        if self.phase != "declare":
            raise OutOfOrder(f"the trump of hand {self.hand_no + 1} is already declared", trump=self.trump)
        if a.suit not in DECK.suits:
            raise NotASuit(f"{a.suit!r} is not a suit: C coppe, D denari, S spade, B bastoni", suit=a.suit)
        if self.battezzante is not None and a.player != self.battezzante:
            why = "holds the 4 di denari" if self.hand_no == 0 else "sits to the dealer's right"
            raise NotYourRole(
                f"{self.battezzante} declares the trump: they {why}", player=a.player, battezzante=self.battezzante
            )
        if self.hand_no == 0 and self.battezzante is None:
            holder = self.holdings.holder_of("4D")
            if holder not in (None, a.player):
                raise NotYourRole(f"the 4 di denari is {holder}'s", player=a.player)

    def _apply_declare(self, a: Declare) -> list[Event]:
        events = []
        self.battezzante = a.player
        if self.hand_no == 0:
            self.holdings.show(a.player, ["4D"])
        self.trump = a.suit
        self.phase = "play"
        self.leader = self.turn = a.player
        events.append(
            Event(
                "trump_declared",
                {"hand": self.hand_no + 1, "player": a.player, "trump": a.suit, "suit": DECK.suit_name(a.suit)},
            )
        )
        partner = self.partner_of(a.player)
        if partner in self.looks:
            events.append(
                self._foul("partner_looked", partner, "the battezzante's partner looked before the declaration")
            )
        return events

    def _foul(self, kind: str, player: str, message: str, **data: Any) -> Event:
        record = {"hand": self.hand_no + 1, "foul": kind, "player": player, "message": message, **data}
        self.fouls.append(record)
        return Event("foul", record)

    # -- look --------------------------------------------------------------------------
    def _verify_look(self, a: Look) -> None:
        if self.phase != "declare":
            raise OutOfOrder("the trump is declared: everyone may look at their cards now")
        if a.player in self.looks:
            raise OutOfOrder(f"{a.player} has already been seen looking")

    def _apply_look(self, a: Look) -> list[Event]:
        self.looks.append(a.player)
        if self.battezzante is not None and a.player == self.partner_of(self.battezzante):
            return [self._foul("partner_looked", a.player, "the battezzante's partner looked before the declaration")]
        return [Event("looked", {"player": a.player})]

    # -- play --------------------------------------------------------------------------
    def _verify_play(self, a: Play) -> None:
        if self.phase != "play":
            raise OutOfOrder("the battezzante declares the trump before the first card", battezzante=self.battezzante)
        self._verify_turn(a.player)
        if a.call is not None:
            if a.call not in CALLS:
                raise UnknownAnnouncement(f"{a.call!r}: the announcements are {list(CALLS)}", call=a.call)
            if self.trick:
                raise AnnouncementNotByLeader(
                    f"only the leader of a trick may say {a.call}", player=a.player, leader=self.leader
                )
            if a.player in self.calls:
                raise SecondAnnouncement(
                    f"{a.player} already said {self.calls[a.player]['call']} this hand",
                    player=a.player,
                    first=self.calls[a.player],
                )
        self.holdings.verify_play(a.player, a.card, RULES, self.context())

    def _revealed(self, player: str, card: str, claims: list[Claim], how: str) -> list[Event]:
        return [
            self._foul(
                "revealed_" + claim.violation.__name__,
                player,
                f"{player} {how} {card} after not following {claim.suit} in trick {claim.trick_no + 1}",
                card=card,
                trick=claim.trick_no + 1,
            )
            for claim in claims
        ]

    def _apply_play(self, a: Play) -> list[Event]:
        ctx = self.context()
        hand_before = self.holdings.hand(a.player)
        events = self._revealed(a.player, a.card, self.holdings.play(a.player, a.card, RULES, ctx), "plays")
        self.trick.append((a.player, a.card))
        data: dict[str, Any] = {
            "player": a.player,
            "card": a.card,
            "name": DECK.name_of(a.card),
            "trick": self.trick_no + 1,
        }
        if a.call is not None:
            truth = _call_truth(a.call, a.card, hand_before)
            self.calls[a.player] = {"call": a.call, "trick": self.trick_no + 1, "card": a.card, "true": truth}
            data["call"] = a.call  # whether it was true stays private until the hand ends
        events.append(Event("played", data))
        if len(self.trick) < 4:
            self.turn = self.next_of(a.player)
            return events
        return events + self._close_trick()

    def _close_trick(self) -> list[Event]:
        win = trick_winner(self.trick, self.trump, ORDER)
        winner = self.trick[win][0]
        team = self.team_of[winner]
        thirds = sum(ORDER.value(c) for _, c in self.trick)
        last = self.trick_no == TRICKS - 1
        if last:
            thirds += 3  # the last trick: 1 point
        self.thirds[team] += thirds
        self.tricks_taken[winner] += 1
        self.last_trick = {"trick": self.trick_no + 1, "cards": list(self.trick), "winner": winner}
        events = [
            Event(
                "trick_won",
                {
                    "trick": self.trick_no + 1,
                    "winner": winner,
                    "team": team,
                    "cards": [c for _, c in self.trick],
                    "thirds": thirds,
                    "last": last,
                },
            )
        ]
        self.trick = []
        self.trick_no += 1
        self.leader = self.turn = winner
        if last:
            events += self._close_hand()
        return events

    def _close_hand(self) -> list[Event]:
        points = {t: self.thirds[t] // 3 for t in self.teams}  # M2: truncated per hand
        bonus = {t: 0 for t in self.teams}
        if self.marafona:
            bonus[self.marafona["team"]] = 3
        for t in self.teams:
            self.scores[t] += points[t] + bonus[t]
        record = {
            "hand": self.hand_no + 1,
            "dealer": self.dealer,
            "battezzante": self.battezzante,
            "trump": self.trump,
            "thirds": dict(self.thirds),
            "points": points,
            "marafona": bonus,
            "calls": dict(self.calls),
            "scores": dict(self.scores),
        }
        self.history.append(record)
        events = [Event("hand_scored", record)]
        target = self.options["target"]
        reached = [t for t in self.teams if self.scores[t] >= target]
        if reached:
            best = max(self.scores[t] for t in reached)
            top = [t for t in reached if self.scores[t] == best]
            if len(top) == 1 and (len(reached) == 1 or max(self.scores[t] for t in self.teams if t != top[0]) < best):
                return events + self._finish(top[0], "target", f"{top[0]} reach {best}")
            events.append(Event("tie_play_on", {"scores": dict(self.scores)}))  # M3
        self.hand_no += 1
        self.dealer = self.next_of(self.dealer)
        self._start_hand()
        events.append(
            Event("new_hand", {"hand": self.hand_no + 1, "dealer": self.dealer, "battezzante": self.battezzante})
        )
        return events

    def _finish(self, team: str, reason: str, message: str, **data: Any) -> list[Event]:
        self.phase = "over"
        self.winner = team
        self.turn = None
        self.result = {"winner": team, "reason": reason, "message": message, "scores": dict(self.scores), **data}
        return [Event("game_over", self.result)]

    # -- Marafona ----------------------------------------------------------------------
    def _verify_marafona(self, a: Marafona) -> None:
        if self.phase != "play":
            raise OutOfOrder("a Marafona is declared once the trump is known, in the first trick")
        if self.trick_no > 0:
            raise MarafonaTooLate("a Marafona is declared during the first trick only (M5)", trick=self.trick_no + 1)
        if self.marafona is not None:
            raise MarafonaTooLate(f"{self.marafona['player']} has already declared the Marafona")
        played_now = {c for p, c in self.trick if p == a.player}
        for card in self.marafona_cards():
            if card in played_now:
                continue
            if self.holdings.full:
                held = card in self.holdings.hands[a.player]
            else:
                held = card not in self.holdings.gone and self.holdings.holder_of(card) in (None, a.player)
            if not held:
                raise NoMarafona(f"{a.player} does not hold {DECK.name_of(card)}", player=a.player, card=card)

    def marafona_cards(self) -> list[str]:
        return [r + self.trump for r in ("3", "2", "A")] if self.trump else []

    def _apply_marafona(self, a: Marafona) -> list[Event]:
        cards = self.marafona_cards()
        self.holdings.show(a.player, [c for c in cards if c not in self.holdings.gone])
        self.marafona = {"player": a.player, "team": self.team_of[a.player], "cards": cards}
        return [Event("marafona", {"player": a.player, "team": self.team_of[a.player], "points": 3, "cards": cards})]

    # -- chiamarsi fuori ---------------------------------------------------------------
    def running_total(self, team: str) -> int:
        """The team's score with this hand's tricks (truncated) and Marafona counted."""
        bonus = 3 if self.marafona and self.marafona["team"] == team else 0
        return self.scores[team] + self.thirds[team] // 3 + bonus

    def _verify_fuori(self, a: CallOut) -> None:
        return None

    def _apply_fuori(self, a: CallOut) -> list[Event]:
        team = self.team_of[a.player]
        other = next(t for t in self.teams if t != team)
        total = self.running_total(team)
        against = self.running_total(other)
        target = self.options["target"]
        data = {"caller": a.player, "calling_team": team, "total": total, "other_total": against, "target": target}
        # M8: right only at the target AND ahead of the other team counted the same way
        if total >= target and total > against:
            return [Event("called_out", {**data, "right": True})] + self._finish(
                team, "chiamata_fuori", f"{a.player} calls out with {total}: right", **data
            )
        if total >= target:
            why = f"{a.player} calls out with {total}, but {other} have {against}: not ahead, wrong (M8), {team} lose"
        else:
            why = f"{a.player} calls out with {total} of {target}: wrong, {team} lose (M4)"
        return [Event("called_out", {**data, "right": False})] + self._finish(
            other, "chiamata_fuori_sbagliata", why, **data
        )

    # -- enumerating -------------------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        if self.is_over:
            return []
        out: list[Action] = []
        if self.phase == "declare":
            who = (
                [self.battezzante]
                if self.battezzante
                else [p for p in self.players if self.holdings.holder_of("4D") in (None, p)]
            )
            out += [Declare(p, s) for p in who for s in DECK.suits]
            out += [Look(p) for p in self.players if p not in self.looks]
        else:
            player = self.turn
            assert player is not None  # someone is always to play in the play phase
            cards = self.playable(player)
            out += [Play(player, c) for c in cards]
            if not self.trick and player not in self.calls:
                out += [Play(player, c, call) for c in cards for call in CALLS]
            if self.trick_no == 0 and self.marafona is None:
                out += [Marafona(p) for p in self.players if self.can(Marafona(p))]
        out += [CallOut(p) for p in self.players]
        return out

    def _waiting_before_play(self) -> dict[str, Any]:
        return {"step": "declare", "player": self.battezzante}

    def standings(self) -> dict[str, Any]:
        """Each team's points in the finished hands, and who plays in it."""
        return {t: {"points": self.scores[t], "players": list(ps)} for t, ps in self.teams.items()}

    # -- views -------------------------------------------------------------------------
    def _public(self) -> dict[str, Any]:
        return {
            "game": "beccaccino",
            "players": list(self.players),
            "teams": {t: list(ps) for t, ps in self.teams.items()},
            "options": dict(self.options),
            "phase": self.phase,
            "hand": self.hand_no + 1,
            "dealer": self.dealer,
            "battezzante": self.battezzante,
            "trump": self.trump,
            **self._public_trick(),
            "thirds": dict(self.thirds),
            "tricks_taken": dict(self.tricks_taken),
            "last_trick": self.last_trick,
            "calls": {p: dict(c) for p, c in self.calls.items()},
            "marafona": dict(self.marafona) if self.marafona else None,
            "looks": list(self.looks),
            "scores": dict(self.scores),
            "history": list(self.history),
            "fouls": list(self.fouls),
            "winner": self.winner,
            "result": self.result,
        }

    def view(self, viewer: str | None = None) -> dict[str, Any]:
        out = super().view(viewer)
        # the truth of this hand's announcements would tell the others about the caller's hand
        out["calls"] = {p: {**c, "true": c["true"] if p == viewer else None} for p, c in self.calls.items()}
        return out


def _call_truth(call: str, card: str, hand: list[str] | None) -> bool | None:
    """Whether an announcement was true, when the hand is known (false ones are legal)."""
    if hand is None or call == "busso":
        return None
    rest = [c for c in hand if c != card and suit_of(c) == suit_of(card)]
    if call == "volo":
        return not rest
    # striscio: at least one more card of the suit, from the Re down
    return any(ORDER.strength(c) <= ORDER.strength("R" + suit_of(card)) for c in rest)
