"""The property-test harness the trick games share (tests/beccaccino, tests/bestia): an action is
accepted exactly when the legal-action generator lists it, a refused one changes nothing, the
state keeps the table's contract (`referee.core.TableState`) at every step, and a replay of the
log through the JSON codec gives an equal snapshot. Each game's test module makes the random
games and the actions to probe with."""

import json

from referee.core import TableState, Violation


def assert_refused(state, action):
    """`action` is refused with a named violation and leaves the state as it was."""
    before = state.snapshot()
    try:
        state.apply(action)
    except Violation:
        pass
    else:
        raise AssertionError(f"{action} accepted but not listed as legal")
    assert state.snapshot() == before


def assert_accepted_iff_legal(state, action, legal=None):
    """`action` is accepted exactly when it is among the legal actions (`legal`, or the
    state's own list); a refused one changes nothing."""
    if legal is None:
        legal = state.legal_actions()
    if action in legal:
        assert state.can(action)
        return
    assert_refused(state, action)


def check_table_contract(state):
    """What the live table reads of a state agrees with the state: whose card is due, whether
    it leads a trick, what the referee waits for, and standings that are JSON."""
    assert isinstance(state, TableState)
    waiting = state.waiting_for()
    if state.is_over:
        assert waiting == {"step": "over"}
    if waiting["step"] == "play":
        assert state.to_play is not None
        assert state.to_play == waiting["player"] == state.turn
        assert waiting["trick"] == state.trick_no + 1
        assert state.leading == (not state.trick)
    else:
        assert state.to_play is None and not state.leading
    standings = state.standings()
    assert json.loads(json.dumps(standings)) == standings


def replay(engine, setup, log):
    """A new game from `setup` given the logged actions, each through the JSON codec."""
    state = engine.new_game(setup)
    for action in log:
        state.apply(engine.codec.from_dict(action.to_dict()))
    return state
