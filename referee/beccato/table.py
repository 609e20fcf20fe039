"""A Beccato! table as set up: players in seat order, Guilds, options, henhouse breeds, knowledge.

`Table.from_setup(setup)` checks a JSON-able setup dict and raises a named `SetupError`:

    {"players": ["Nicola", "Simona", ...],          # seat order; passing goes to the next seat
     "teams": {"Reds": ["Nicola", ...], ...},       # optional: default alternating split
     "guilds": {"Reds": "dollar"},                  # optional: a team's Guild symbol
     "options": {"egg_pyramid": true, ...},         # OPTIONS below (B1-B14 and the variants)
     "signals": {"Reds": "wink_left"},              # optional: Signal card id or "free"
     "dealer": "Nicola",                            # optional: first dealer (default seat 1)
     "breeds": ["orloff", ...],                     # optional: which henhouses are in play
     "seed": 7,                                     # full knowledge: deals and egg order
     "deals": [{"Nicola": [...], ...}, ...],        # full knowledge: explicit deals by round
     "eggs": ["star-3", ...]}                       # full knowledge: explicit egg deck, top first

Any of seed, deals or eggs gives the referee full knowledge (a simulated or scripted game);
without them it referees a real table, learning cards only when revealed or passed face up.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

from referee.beccato.cards import (
    BREEDS,
    EGGS,
    GUILDS,
    IMAGINARY_SEAT,
    card_name,
    deck_composition,
    egg_name,
    fold,
)
from referee.beccato.violations import (
    BadDeal,
    BadOption,
    BadPlayerCount,
    BadSignal,
    BadTeams,
    SeatingNotAlternating,
    SetupError,
    UnknownOption,
)
from referee.core import TableOption, read_table_options
from referee.signal_cards import BY_ID as SIGNALS_BY_ID
from referee.signal_cards import FREE_SIGNAL, SIGNAL_CARDS

# The table options (B1-B14 and the variants), read by `referee.core.read_table_options`.
OPTIONS: dict[str, TableOption] = {
    "pass_direction": TableOption(
        "left", str, choices=("left", "right"), doc="B1: cards pass to the next seat (left) or the previous (right)"
    ),
    "caught_reward": TableOption(
        "choice",
        str,
        choices=("choice", "deck"),
        doc="B3: a correct Caught! takes a henhouse egg or the deck top (choice), or the deck top",
    ),
    "serama_triple_counts": TableOption(False, bool, doc="B4: three Serama make a triple for Caught!"),
    "five_player": TableOption(
        None, bool, nullable=True, doc="Five-Player game with the imaginary seat (B11); default: on with 5 players"
    ),
    "signal_change": TableOption(False, bool, doc="Signal Change: a team turns an egg face down to change signal"),
    "free_signal": TableOption(False, bool, doc="Free Signal: each team chooses its own signal"),
    "calling_chickens": TableOption(False, bool, doc="Calling Chickens: Coccodé names the breed (B12)"),
    "egg_pyramid": TableOption(False, bool, doc="Egg Pyramid with the Chick (B13, B14)"),
    "pyramid_level_bonus": TableOption(True, bool, doc="Egg Pyramid: a complete row of the team's Guild doubles (B14)"),
    "pyramid_guild_fill": TableOption(
        True, bool, doc="Egg Pyramid: opponents fill empty places with 3 Guild cards or are excluded (B14)"
    ),
    "alternate_seats": TableOption(True, bool, doc="teammates may not sit side by side where the split allows"),
}
# Rulings with a single reading, recorded with every game so a log says what it was refereed by.
FIXED_RULINGS = ("B2", "B5", "B6", "B7", "B8", "B9", "B10", "B11", "B12", "B13", "B14", "B15")
EGGS_TO_END = 6
MIN_PLAYERS, MAX_PLAYERS = 4, len(BREEDS) + 1


def team_sizes(n: int) -> list[int]:
    """The default split: as few Guilds as possible, of 3 then 2 players."""
    k = -(-n // 3)
    k = max(k, 2)
    sizes = [n // k] * k
    for i in range(n % k):
        sizes[i] += 1
    return sizes


def alternating(sizes: list[int]) -> list[int]:
    """Team index per seat with no two teammates side by side wherever the sizes allow."""
    left = list(sizes)
    seats: list[int] = []
    for i in range(sum(sizes)):
        order = sorted(range(len(left)), key=lambda t: (-left[t], t))
        choice = next(
            (
                t
                for t in order
                if left[t] and (not seats or t != seats[-1]) and not (i == sum(sizes) - 1 and seats and t == seats[0])
            ),
            next(t for t in order if left[t]),
        )
        seats.append(choice)
        left[choice] -= 1
    return seats


def adjacent_teammates(ring: list[str], team_of: Mapping[str, str]) -> int:
    pairs = zip(ring, ring[1:] + ring[:1])
    return sum(1 for a, b in pairs if a in team_of and b in team_of and team_of[a] == team_of[b])


@dataclasses.dataclass(frozen=True)
class Table:
    players: tuple[str, ...]
    teams: dict[str, tuple[str, ...]]
    guilds: dict[str, str]
    options: dict[str, Any]
    breeds: tuple[str, ...]
    first_dealer: str
    signals: dict[str, str | None]
    full: bool
    seed: int
    deals: tuple[dict[str, tuple[str, ...]], ...]
    egg_order: tuple[str, ...]

    # -- derived ---------------------------------------------------------------------------
    @property
    def ring(self) -> tuple[str, ...]:
        """Seats in seat order, the imaginary seat between the last and the first (B11)."""
        return self.players + ((IMAGINARY_SEAT,) if self.options["five_player"] else ())

    @property
    def step(self) -> int:
        return 1 if self.options["pass_direction"] == "left" else -1

    def next_seat(self, seat: str) -> str:
        ring = self.ring
        return ring[(ring.index(seat) + self.step) % len(ring)]

    def next_dealer(self, dealer: str) -> str:
        seat = self.next_seat(dealer)
        return self.next_seat(seat) if seat == IMAGINARY_SEAT else seat

    def team_of(self, player: str) -> str:
        for team, members in self.teams.items():
            if player in members:
                return team
        raise KeyError(player)

    @property
    def composition(self) -> Counter[str]:
        return deck_composition(self.breeds)

    def hand_size(self, seat: str, dealer: str) -> int:
        return 4 if seat == dealer else 3

    def dealer_of_round(self, number: int) -> str:
        dealer = self.first_dealer
        for _ in range(number - 1):
            dealer = self.next_dealer(dealer)
        return dealer

    def deal(self, number: int, dealer: str) -> dict[str, list[str]]:
        """Full knowledge: the hands of round `number` (explicit, or shuffled from the seed)."""
        if number <= len(self.deals):
            return {seat: sorted(cards) for seat, cards in self.deals[number - 1].items()}
        deck = sorted(self.composition.elements())
        random.Random(f"beccato:{self.seed}:deal:{number}").shuffle(deck)
        hands: dict[str, list[str]] = {}
        at = 0
        for seat in self.ring:
            size = self.hand_size(seat, dealer)
            hands[seat] = sorted(deck[at : at + size])
            at += size
        return hands

    def to_json(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "teams": {t: list(m) for t, m in self.teams.items()},
            "guilds": dict(self.guilds),
            "options": dict(self.options),
            "rulings": list(FIXED_RULINGS),
            "breeds": list(self.breeds),
            "dealer": self.first_dealer,
            "knowledge": "full" if self.full else "partial",
            "seed": self.seed if self.full else None,
        }

    # -- setup -----------------------------------------------------------------------------
    @classmethod
    def from_setup(cls, setup: Mapping[str, Any]) -> Table:
        if not isinstance(setup, Mapping):
            raise SetupError("the setup is a JSON object")
        known = {"players", "teams", "guilds", "options", "signals", "dealer", "breeds", "seed", "deals", "eggs"}
        extra = set(setup) - known
        if extra:
            raise SetupError(f"unknown setup keys {sorted(extra)}", known=sorted(known))
        players = _players(setup.get("players"))
        options = _options(setup.get("options") or {}, len(players))
        teams = _teams(setup.get("teams"), players)
        guilds = _guilds(setup.get("guilds") or {}, teams)
        ring = list(players) + ([IMAGINARY_SEAT] if options["five_player"] else [])
        team_of = {p: t for t, members in teams.items() for p in members}
        if options["alternate_seats"]:
            biggest = max(len(m) for m in teams.values())
            least = max(0, 2 * biggest - len(ring))
            found = adjacent_teammates(ring, team_of)
            if found > least:
                raise SeatingNotAlternating(
                    f"{found} pairs of teammates sit side by side; this split allows {least}",
                    seats=ring,
                )
        n_henhouses = len(ring) - 1
        breeds = _breeds(setup.get("breeds"), n_henhouses)
        dealer = setup.get("dealer") or players[0]
        if not isinstance(dealer, str) or dealer not in players:
            raise SetupError(f"the dealer {dealer!r} is not a player", players=list(players))
        full = any(setup.get(k) is not None for k in ("seed", "deals", "eggs"))
        seed = setup.get("seed") or 0
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise SetupError("the seed is an integer")
        signals = _signals(setup.get("signals") or {}, teams, options, full, seed)
        table = cls(
            players=players,
            teams=teams,
            guilds=guilds,
            options=options,
            breeds=breeds,
            first_dealer=dealer,
            signals=signals,
            full=full,
            seed=seed,
            deals=(),
            egg_order=_egg_order(setup.get("eggs"), seed),
        )
        deals = _deals(setup.get("deals") or [], table)
        return dataclasses.replace(table, deals=deals)


def _strings(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)


def _players(value: Any) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(p, str) and p.strip() for p in value):
        raise BadPlayerCount("players is a list of names in seat order")
    players = tuple(p.strip() for p in value)
    if len({fold(p) for p in players}) != len(players):
        raise BadTeams("two players share a name", players=list(players))
    if IMAGINARY_SEAT in players:
        raise BadTeams(f"{IMAGINARY_SEAT!r} is the imaginary seat, not a player name")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise BadPlayerCount(f"Beccato! takes {MIN_PLAYERS} to {MAX_PLAYERS} players (8 henhouses), not {len(players)}")
    return players


def _options(value: Any, n_players: int) -> dict[str, Any]:
    options = read_table_options(value, OPTIONS, BadOption, UnknownOption)
    if options["five_player"] is None:
        options["five_player"] = n_players == 5
    if options["five_player"] and n_players != 5:
        raise BadOption("the five_player option is for 5 players", option="five_player")
    return options


def _teams(value: Any, players: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    if value is None:
        sizes = team_sizes(len(players))
        index = alternating(sizes)
        return {GUILDS[t]: tuple(p for p, i in zip(players, index) if i == t) for t in range(len(sizes))}
    if not isinstance(value, Mapping) or not all(_strings(m) for m in value.values()):
        raise BadTeams("teams maps each Guild's name to its players")
    teams = {str(t): tuple(m) for t, m in value.items()}
    if not 2 <= len(teams) <= 4:
        raise BadTeams(f"2 to 4 Guilds, not {len(teams)}")
    for team, members in teams.items():
        if not 2 <= len(members) <= 3:
            raise BadTeams(f"a Guild has 2 or 3 players; {team} has {len(members)}")
    listed = [p for m in teams.values() for p in m]
    if sorted(listed) != sorted(players):
        raise BadTeams("every player is in exactly one Guild", players=list(players), teams=teams)
    if len({fold(t) for t in teams}) != len(teams) or any(fold(t) in {fold(p) for p in players} for t in teams):
        raise BadTeams("team names are distinct and differ from player names")
    # keep each team's members in seat order
    return {t: tuple(p for p in players if p in m) for t, m in teams.items()}


def _guilds(value: Any, teams: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise BadTeams("guilds maps a team to its Guild symbol")
    chosen: dict[str, str] = {}
    for team in teams:
        symbol = value.get(team)
        if symbol is not None and not isinstance(symbol, str):
            raise BadTeams(f"a Guild symbol is one of {list(GUILDS)}", team=team)
        if symbol is None and fold(team) in GUILDS:
            symbol = fold(team)
        if symbol is not None:
            if symbol not in GUILDS:
                raise BadTeams(f"no Guild symbol {symbol!r}", known=list(GUILDS))
            chosen[team] = symbol
    if len(set(chosen.values())) != len(chosen) or set(value) - set(teams):
        raise BadTeams("each team has its own Guild symbol", guilds=dict(value))
    free = [g for g in GUILDS if g not in chosen.values()]
    return {team: chosen.get(team) or free.pop(0) for team in teams}


def _breeds(value: Any, count: int) -> tuple[str, ...]:
    if value is None:
        return BREEDS[:count]
    if not _strings(value):
        raise BadDeal("breeds is a list of henhouse breeds")
    breeds = tuple(card_name(b) for b in value)
    if len(breeds) != count or len(set(breeds)) != count or not set(breeds) <= set(BREEDS):
        raise BadDeal(f"{count} distinct henhouse breeds from {list(BREEDS)}", breeds=list(value))
    return breeds


def _signals(
    value: Any, teams: Mapping[str, Any], options: Mapping[str, Any], full: bool, seed: int
) -> dict[str, str | None]:
    if not isinstance(value, Mapping) or set(value) - set(teams):
        raise BadSignal("signals maps a team to its Signal card id (or 'free')", teams=list(teams))
    signals: dict[str, str | None] = {}
    for team in teams:
        signal = value.get(team)
        if signal is not None and not isinstance(signal, str):
            raise BadSignal(f"{team}'s signal is a Signal card id or 'free', not {signal!r}")
        if options["free_signal"] and signal is None:
            signal = FREE_SIGNAL
        if signal is not None and not _signal_allowed(signal, options):
            raise BadSignal(f"{signal!r} is not a signal this table can use")
        signals[team] = signal
    if full and not options["free_signal"] and all(s is None for s in signals.values()):
        printed = [c.id for c in SIGNAL_CARDS if c.printed]
        drawn = random.Random(f"beccato:{seed}:signals").sample(printed, len(teams))
        signals = dict(zip(teams, drawn))
    return signals


def _signal_allowed(signal: str, options: Mapping[str, Any]) -> bool:
    if signal == FREE_SIGNAL:
        return bool(options["free_signal"])
    return signal in SIGNALS_BY_ID


def _egg_order(value: Any, seed: int) -> tuple[str, ...]:
    if value is None:
        shuffled = list(EGGS)
        random.Random(f"beccato:{seed}:eggs").shuffle(shuffled)
        return tuple(shuffled)
    if not isinstance(value, (list, tuple)):
        raise BadDeal("eggs is the list of the 28 eggs, top of the deck first")
    eggs = tuple(egg_name(str(e)) for e in value)
    if sorted(eggs) != sorted(EGGS):
        raise BadDeal("eggs must list each of the 28 eggs once", missing=sorted(set(EGGS) - set(eggs)))
    return eggs


def _deals(value: Any, table: Table) -> tuple[dict[str, tuple[str, ...]], ...]:
    if not isinstance(value, (list, tuple)):
        raise BadDeal("deals is a list of rounds, each mapping a seat to its cards")
    deals = []
    for number, hands in enumerate(value, start=1):
        dealer = table.dealer_of_round(number)
        if (
            not isinstance(hands, Mapping)
            or set(hands) != set(table.ring)
            or not all(_strings(h) for h in hands.values())
        ):
            raise BadDeal(f"round {number}: a list of cards for every seat", seats=list(table.ring))
        clean = {seat: tuple(card_name(c) for c in hands[seat]) for seat in table.ring}
        for seat, cards in clean.items():
            if len(cards) != table.hand_size(seat, dealer):
                raise BadDeal(f"round {number}: {seat} gets {table.hand_size(seat, dealer)} cards (dealer {dealer})")
        if sum((Counter(c) for c in clean.values()), Counter()) != table.composition:
            raise BadDeal(f"round {number}: the hands are not this game's deck", deck=dict(table.composition))
        deals.append(clean)
    return tuple(deals)
