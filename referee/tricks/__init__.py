"""Shared pieces of the trick-taking games (Beccaccino, Bestia): decks and card names, rank
orders, trick legality as composable policies, and what the referee knows of the hands."""

from referee.tricks.cards import (
    BECCACCINO_ORDER,
    BESTIA_ORDER_FR,
    BESTIA_ORDER_IT,
    DECKS,
    FRENCH_32,
    FRENCH_40,
    FRENCH_52,
    GERMAN_ORDER_32,
    GERMAN_ORDER_52,
    ITALIAN_40,
    Card,
    Deck,
    RankOrder,
    CardNotInDeck,
    rank_of,
    suit_of,
)
from referee.tricks.holdings import Holdings
from referee.tricks.policies import (
    CardAlreadyPlayed,
    CardNotInHand,
    Claim,
    FollowSuit,
    HighestTrump,
    LeadHighestTrump,
    LeadTrumpAce,
    LeadTrumpAfterFirst,
    MustLeadHighestTrump,
    MustLeadTrump,
    MustLeadTrumpAce,
    MustOvertake,
    MustOvertakeWhenFollowing,
    MustOvertrump,
    MustOvertrumpWhenVoid,
    MustPlayHighestTrump,
    MustTrump,
    MustTrumpWhenVoid,
    OutOfTurn,
    Policy,
    Revoke,
    Rules,
    TrickContext,
    trick_winner,
)
from referee.tricks.common import (
    BadDeal,
    BadOption,
    BadPlayerCount,
    BadTeams,
    NotYourRole,
    OutOfOrder,
    PlayerNotInGame,
    SetupError,
    TrickState,
    UnknownOption,
    read_options,
    seeded_shuffle,
)

__all__ = [name for name in dir() if not name.startswith("_")]
