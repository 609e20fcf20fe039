"""Everything the Beccato! referee can refuse, by name.

Violations (an action the rules forbid) leave the state untouched. Setup errors are raised by
`new_game` for a table that cannot be set up as described.
"""

from __future__ import annotations

from referee.core import GameAlreadyOver, MalformedAction, RefereeError, Violation

__all__ = [
    "GameAlreadyOver",
    "MalformedAction",
    "Violation",
    # who
    "PlayerNotInGame",
    "CallerNotInGame",
    "TeamNotInGame",
    "WrongTeam",
    "NotYourTurn",
    "NotHoldingFour",
    "NotYourChoice",
    # when
    "OutOfOrder",
    "CallInProgress",
    "AwardOutOfOrder",
    "NotAskedToReveal",
    # cards
    "CardNotInDeck",
    "CardNotInHand",
    "CardRequired",
    "TooManyOfBreed",
    "CardAlreadySeen",
    "RevealWrongSize",
    "RevealDoesNotMatchHand",
    # eggs
    "EggNotInDeck",
    "EggNotOnTop",
    "EggSourceNotAllowed",
    "NoFaceUpEgg",
    "EggNotFaceUp",
    "PyramidPlaceNotAllowed",
    # variants and signals
    "VariantNotInPlay",
    "BreedRequired",
    "UnknownSignal",
    # setup
    "SetupError",
    "BadPlayerCount",
    "BadTeams",
    "SeatingNotAlternating",
    "UnknownOption",
    "BadOption",
    "BadDeal",
    "BadSignal",
]


class PlayerNotInGame(Violation):
    """A name that is not one of this game's players (or the imaginary seat where it can't act)."""


class CallerNotInGame(PlayerNotInGame):
    """A call (Coccodé, Caught!, Chicchirichì) by someone who is not playing."""


class TeamNotInGame(Violation):
    """A team (Guild) name this game does not have."""


class WrongTeam(Violation):
    """Caught! pointed at a teammate or at oneself."""


class NotYourTurn(Violation):
    """A pass by a player who does not hold the four cards."""


class NotHoldingFour(NotYourTurn):
    """Chicchirichì ("during their turn", 4 Serama) by a player who does not hold four cards,
    when the referee knows who does: full knowledge, or passes reported this round (B15)."""


class NotYourChoice(Violation):
    """A team chooses or places an egg when another team is the one to do it."""


class OutOfOrder(Violation):
    """The referee is waiting for something else first (a reveal, an egg, a choice, a placement)."""


class CallInProgress(OutOfOrder):
    """A pass, a draw from the imaginary seat, another call, cards seen or a signal change while
    a call is being resolved: the round stopped at the call."""


class AwardOutOfOrder(OutOfOrder):
    """A reveal, an egg, a choice or a placement that is not the next step of the call being
    resolved; the message says which step comes first and the rule (or option) that makes it so."""


class NotAskedToReveal(OutOfOrder):
    """A reveal by a player the current call does not ask to show their hand."""


class CardNotInDeck(Violation):
    """A chicken card that is not in this game's deck (a breed with no henhouse, or no such card)."""


class CardNotInHand(Violation):
    """A pass of a card the passer is known not to hold."""


class CardRequired(Violation):
    """With full knowledge a pass must say which card goes."""


class TooManyOfBreed(Violation):
    """A hand with more copies of a card than the deck has (3 of a breed, 4 Serama)."""


class CardAlreadySeen(Violation):
    """A revealed card whose every copy has already been seen elsewhere this round."""


class RevealWrongSize(Violation):
    """A hand holds 3 cards, or 4 for the player who has just received; never two hands of 4.
    When the referee knows the hand sizes (B15) a reveal of another size names the expected one
    (`details["expected"]`)."""


class RevealDoesNotMatchHand(Violation):
    """A reveal that contradicts what the referee knows of that hand."""


class EggNotInDeck(Violation):
    """An egg drawn that is not (or no longer) in the egg deck, or no such egg."""


class EggNotOnTop(Violation):
    """With full knowledge, an egg drawn that is not the top of the egg deck."""


class EggSourceNotAllowed(Violation):
    """A chosen egg source (henhouse, deck, Chick) that this award does not offer."""


class NoFaceUpEgg(Violation):
    """Signal Change with no face-up egg to turn (B10)."""


class EggNotFaceUp(Violation):
    """Signal Change naming an egg the team does not hold face up."""


class PyramidPlaceNotAllowed(Violation):
    """An Egg Pyramid place that is taken, unknown, or not supported by both places below (B13)."""


class VariantNotInPlay(Violation):
    """An action of a variant this table does not play (Signal Change, Calling Chickens, Pyramid)."""


class BreedRequired(Violation):
    """Under Calling Chickens a Coccodé must name the breed."""


class UnknownSignal(Violation):
    """A signal that is not a Signal card id (or 'free' under Free Signal)."""


class SetupError(RefereeError):
    """A table that cannot be set up as described."""


class BadPlayerCount(SetupError):
    """Beccato! needs 4 to 9 players (2-4 Guilds of 2-3, at most 8 henhouses)."""


class BadTeams(SetupError):
    """Teams that are not 2-4 Guilds of 2-3 players covering every player once."""


class SeatingNotAlternating(SetupError):
    """Teammates seated side by side where the split allows alternating seats."""


class UnknownOption(SetupError):
    """A table option this engine does not know."""


class BadOption(SetupError):
    """A table option with a value it cannot take."""


class BadDeal(SetupError):
    """An explicit deal or egg order that does not match this game's cards."""


class BadSignal(SetupError):
    """A team's signal in the setup that is not a Signal card id (or 'free' under Free Signal)."""
