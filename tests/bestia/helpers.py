"""Shared helpers for the Bestia tests."""

from referee.bestia import ENGINE, Play


def game(players, variant="classic", seed=None, deals=None, **options):
    setup = {"players": list(players), "options": {"variant": variant, **options}}
    if seed is not None:
        setup["seed"] = seed
    if deals is not None:
        setup["deals"] = deals
    return ENGINE.new_game(setup)


def first_legal(state):
    return state.legal_actions()[0]


def play_out(state):
    """Play the tricks of the current deal with the first legal card; return the events."""
    events = []
    deal = state.deal_no
    while state.phase == "play" and state.deal_no == deal:
        action = next(a for a in state.legal_actions() if isinstance(a, Play))
        events += state.apply(action)
    return events


def settled(events):
    return next(e.data for e in events if e.kind == "settled")
