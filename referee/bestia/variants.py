"""The Bestia variants the referee knows, and the table options each one takes.

A variant fixes the deck, the hand size, how players declare and how the pot is paid; the
house rules are table options on top (RULINGS S1-S4). docs/bestia.md explains each one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from referee.core import TableOption
from referee.tricks import (
    BESTIA_ORDER_FR,
    BESTIA_ORDER_IT,
    FRENCH_32,
    FRENCH_40,
    FRENCH_52,
    GERMAN_ORDER_32,
    GERMAN_ORDER_52,
    ITALIAN_40,
    Deck,
    FollowSuit,
    HighestTrump,
    LeadHighestTrump,
    LeadTrumpAce,
    LeadTrumpAfterFirst,
    MustOvertakeWhenFollowing,
    MustOvertrumpWhenVoid,
    MustTrumpWhenVoid,
    Policy,
    RankOrder,
    Rules,
)


@dataclasses.dataclass(frozen=True)
class Variant:
    name: str
    title: str
    deck: Deck
    order: RankOrder
    hand_size: int
    min_players: int
    max_players: int
    bidding: str  # "classic" (knock/pass, doctor), "italian" (passo/gioco/busso/terzo),
    #               "tippen", "julepe" (play/pass, then exchanges), "mauscheln" (I play / join)
    everyone_pays: bool  # the invito from every player (5-card) or the dealer's stake (3-card)
    terzo: bool = False
    fee: bool = False
    half_entry_reward: bool = False
    strict_trump: bool = False  # must trump even when unable to overtrump (Roman)
    strozzo: bool = False
    buco: bool = False
    doctor: bool = False
    default_stake: int = 3
    scoring: str = "bestia"  # "bestia", "julepe" (2 tricks make it), "mauscheln"
    exchange_max: int = 0  # cards each player in may change once after declaring (0: no such round)

    @property
    def tricks(self) -> int:
        return self.hand_size


CLASSIC = Variant(
    "classic", "Bestia, 3 cards", FRENCH_40, BESTIA_ORDER_FR, 3, 3, 10, "classic", everyone_pays=False, doctor=True
)
BUCO = dataclasses.replace(CLASSIC, name="buco", title="Bestia col buco", buco=True)
ITALIAN = Variant(
    "italian",
    "Bestia a 5 carte (busso)",
    ITALIAN_40,
    BESTIA_ORDER_IT,
    5,
    3,
    7,
    "italian",
    everyone_pays=True,
    terzo=True,
    fee=True,
    half_entry_reward=True,
    strozzo=True,
    default_stake=5,
)
ROMAN = Variant(
    "roman",
    "Five-card Bestia (Rome)",
    FRENCH_40,
    BESTIA_ORDER_FR,
    5,
    4,
    6,
    "italian",
    everyone_pays=True,
    strict_trump=True,
    strozzo=True,
    default_stake=5,
)
TIPPEN = Variant("tippen", "Tippen (Dreiblatt)", FRENCH_32, GERMAN_ORDER_32, 3, 3, 8, "tippen", everyone_pays=False)
JULEPE = Variant(
    "julepe",
    "Julepe",
    ITALIAN_40,
    BESTIA_ORDER_IT,
    5,
    3,
    7,
    "julepe",
    everyone_pays=False,
    default_stake=6,
    scoring="julepe",
    exchange_max=5,
)
MAUSCHELN = Variant(
    "mauscheln",
    "Mauscheln (Mousel)",
    FRENCH_32,
    GERMAN_ORDER_32,
    4,
    3,
    12,
    "mauscheln",
    everyone_pays=False,
    strict_trump=True,
    strozzo=True,
    default_stake=4,
    scoring="mauscheln",
    exchange_max=4,
)

VARIANTS = {v.name: v for v in (CLASSIC, BUCO, ITALIAN, ROMAN, TIPPEN, JULEPE, MAUSCHELN)}
ALIASES = {
    "3-card": "classic",
    "three-card": "classic",
    "classica": "classic",
    "col-buco": "buco",
    "col_buco": "buco",
    "5-card": "italian",
    "five-card": "italian",
    "italiana": "italian",
    "busso": "italian",
    "romana": "roman",
    "rome": "roman",
    "dreiblatt": "tippen",
    "mousel": "mauscheln",
}
# Named in the rules but not played by this referee.
NOT_SUPPORTED: tuple[str, ...] = ()

ITALIAN_36 = Deck("italian-36", "italian", ("A", "3", "4", "5", "6", "7", "F", "C", "R"), ("C", "D", "S", "B"))


def deck_for(variant: Variant, players: int, options: dict[str, Any]) -> tuple[Deck, RankOrder]:
    """The pack and rank order: Julepe drops the 2s when fewer than six play (option
    `without_twos`); Mauscheln takes all 52 cards for more than six players."""
    if variant.name == "julepe":
        drop = options["without_twos"]
        if drop is None:
            drop = players < 6
        return (ITALIAN_36 if drop else ITALIAN_40), variant.order
    if variant.name == "mauscheln" and players > 6:
        return FRENCH_52, GERMAN_ORDER_52
    return variant.deck, variant.order


def options_for(variant: Variant, players: list[str]) -> dict[str, TableOption]:
    """Every table option of `variant`, with its default and the type of its value."""

    def flag(default: bool, doc: str) -> TableOption:
        return TableOption(default, bool, doc=doc)

    def count(default: int | None, doc: str, nullable: bool = False) -> TableOption:
        return TableOption(default, int, nullable=nullable, doc=doc)

    return {
        "variant": TableOption(variant.name, str, doc="S1: the variant played"),
        "stake": count(variant.default_stake, "dealer's stake (3-card) or everyone's invito (5-card)"),
        "fee": count(0, "5-card Italian: the extra quota of each player who stays in"),
        "chips": count(50, "each player's chips at the start"),
        "pot": count(0, "chips already in the pot at the start"),
        "dealer": TableOption(
            players[0] if players else None, str, nullable=True, doc="the first dealer", what="a player's name"
        ),
        "deals_to_play": count(len(players), "the game may end after this many deals..."),
        "until_no_bestia": flag(True, "...at the first one that ends with nobody in bestia"),
        "cap": count(None, "payment cap: nobody pays more than this for one bestia (none: no cap)", nullable=True),
        "buco": flag(variant.buco, "col buco: a spare hand across the trump card"),
        "doctor": flag(variant.doctor, "3-card: the passers may go to the doctor"),
        "forced_round": flag(False, "after a deal with nobody in bestia, everyone must play"),
        "lead_trump_ace": flag(False, "house rule: the leader must lead the trump Ace"),
        "lead_trump": flag(False, "house rule: after the first trick, lead a trump if you can"),
        "highest_trump": flag(False, "house rule: who plays a trump plays their highest"),
        "obbligo_asso": flag(False, "the first leader holding the trump Ace leads it"),
        "obbligo_asso_highest": flag(False, "...and any leader the highest trump still out"),
        "one_round": flag(False, "5-card: one turn each to declare (bussata a un solo giro)"),
        "offence_costs_pot": flag(False, "a revoke revealed later costs the offender the pot"),
        "without_twos": TableOption(
            None, bool, nullable=True, doc="Julepe: play without the 2s (none or auto: when fewer than six play)"
        ),
        "exchange_up_to": count(
            None, "Tippen (later rule books): change up to 3 cards; Julepe 5, Mauscheln 4", nullable=True
        ),
    }


def rules_for(variant: Variant, options: dict[str, Any]) -> Rules:
    """The variant's play rules with the table's house rules added."""
    policies: list[Policy] = []
    if options["lead_trump_ace"]:
        policies.append(LeadTrumpAce())
    elif options["obbligo_asso"]:
        policies.append(LeadTrumpAce(first_only=True))
    if options["obbligo_asso_highest"]:
        policies.append(LeadHighestTrump())
    if options["lead_trump"]:
        policies.append(LeadTrumpAfterFirst())
    policies.append(FollowSuit())
    if variant.strozzo:
        policies.append(MustOvertakeWhenFollowing())
        policies.append(MustTrumpWhenVoid(unless_outranked=not variant.strict_trump))
        policies.append(MustOvertrumpWhenVoid())
    else:
        policies.append(MustTrumpWhenVoid())
    if options["highest_trump"]:
        policies.append(HighestTrump())
    return Rules(tuple(policies))


# Offences that the house rules on leading punish with the pot whatever `offence_costs_pot` says.
HOUSE_OFFENCES = ("MustLeadTrumpAce", "MustLeadHighestTrump", "MustLeadTrump", "MustPlayHighestTrump")
