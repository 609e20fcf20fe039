"""Shared helpers for the Beccaccino tests."""

from referee.beccaccino import ENGINE, Play
from referee.tricks import ITALIAN_40

PLAYERS = ["Anna", "Ben", "Carla", "Dan"]


def deal_with(**given):
    """A full deal: the cards given to some players, the rest of the deck in order."""
    rest = [c for c in ITALIAN_40.cards if all(c not in cs for cs in given.values())]
    hands = {}
    for p in PLAYERS:
        cards = list(given.get(p, []))
        while len(cards) < 10:
            cards.append(rest.pop(0))
        hands[p] = cards
    return hands


def new(seed=None, deals=None, **options):
    setup = {"players": PLAYERS, "options": options}
    if seed is not None:
        setup["seed"] = seed
    if deals is not None:
        setup["deals"] = deals
    return ENGINE.new_game(setup)


def first_legal_play(state):
    return next(a for a in state.legal_actions() if isinstance(a, Play) and a.call is None)


def play_hand(state):
    """Play the current hand out with the first legal card; return the events."""
    events = []
    hand = state.hand_no
    while not state.is_over and state.hand_no == hand:
        events += state.apply(first_legal_play(state))
    return events
