"""Egg Pyramid through the engine: placement (B13), the Chick, the rulebook's totals (B14)."""

from __future__ import annotations

import pytest

from referee.beccato import PlaceEgg, PyramidPlaceNotAllowed

from .helpers import fill_henhouses, new_table, of_kind, play

HENHOUSE_EGGS = ["moon-1", "moon-2", "moon-3", "moon-4", "moon-5"]


def egg_for(team_player: str, caller: str, egg: str) -> list[str]:
    """A wrong Caught! of `team_player`: their team draws `egg` from the deck."""
    return [f"caught {caller} {team_player}", f"reveal {team_player} orloff padovana brahma", f"egg {egg}"]


def test_simona_closes_with_24_and_federico_fills_to_8():
    state = new_table(options={"egg_pyramid": True})
    fill_henhouses(state, HENHOUSE_EGGS)
    play(state, egg_for("Simona", "Nicola", "star-1") + ["place Blues star-1 b1"])
    play(state, egg_for("Federico", "Claudia", "star-2") + ["place Blues star-2 b2"])
    play(state, egg_for("Nicola", "Simona", "dollar-1") + ["place Reds dollar-1 b1"])
    play(state, egg_for("Nicola", "Simona", "star-4") + ["place Reds star-4 b2"])
    play(state, egg_for("Mariano", "Cecilia", "star-3") + ["place Blues star-3 b3"])
    play(state, egg_for("Claudia", "Federico", "sun-1") + ["place Reds sun-1 b3"])
    play(state, egg_for("Cecilia", "Mariano", "dollar-2") + ["place Reds dollar-2 m1"])
    play(state, egg_for("Simona", "Nicola", "sun-6") + ["place Blues sun-6 m1"])
    events = play(state, egg_for("Simona", "Nicola", "sun-7"))  # m2 is the only free place
    assert of_kind(events, "egg_placed") == [{"team": "Blues", "egg": "sun-7", "place": "m2"}]
    assert state.chick_available
    play(state, ["chicchirichi Simona", "reveal Simona serama serama serama serama"])
    assert state.waiting_for() == {"step": "choose", "team": "Blues", "options": ["chick", "deck"]}
    events = play(state, ["take Blues chick"])
    assert state.is_over
    result = state.result
    assert result["scores"]["Blues"]["points"] == 24
    assert result["scores"]["Reds"]["points"] == 8
    assert result["winners"] == ["Blues"] and result["shared"] is False
    assert of_kind(events, "game_over")[0]["reason"] == "Blues reached 6 eggs"


def test_nicola_closes_with_9_after_two_signal_changes():
    state = new_table(options={"egg_pyramid": True, "signal_change": True})
    fill_henhouses(state, HENHOUSE_EGGS)
    play(state, egg_for("Nicola", "Simona", "dollar-1") + ["place Reds dollar-1 b1"])
    play(state, egg_for("Nicola", "Simona", "star-1") + ["place Reds star-1 b2"])
    play(state, egg_for("Claudia", "Simona", "star-2") + ["place Reds star-2 b3"])
    play(state, ["signal Reds star-1 touch_nose_left"])
    assert state.signals["Reds"] == "touch_nose_left"
    play(state, egg_for("Cecilia", "Federico", "dollar-2") + ["place Reds dollar-2 m1"])
    play(state, egg_for("Nicola", "Mariano", "star-3"))  # auto to m2
    play(state, ["signal Nicola star-3"])  # the new signal kept secret
    assert state.signals["Reds"] is None
    play(state, egg_for("Nicola", "Mariano", "dollar-3"))  # auto to the top; 6 cards
    assert state.is_over
    assert state.result["scores"]["Reds"]["points"] == 9
    # Blues hold nothing: 6 empty places, only 3 Guild cards: excluded from the count
    assert state.result["scores"]["Blues"]["excluded"] is True
    assert state.result["winners"] == ["Reds"]


def test_placement_only_on_supported_places():
    state = new_table(options={"egg_pyramid": True})
    fill_henhouses(state, HENHOUSE_EGGS)
    play(state, egg_for("Simona", "Nicola", "star-1"))
    before = state.snapshot()
    for place in ("m1", "m2", "top"):
        with pytest.raises(PyramidPlaceNotAllowed):
            state.apply(PlaceEgg("Blues", "star-1", place))
    assert state.snapshot() == before
    assert {a.place for a in state.legal_actions()} == {"b1", "b2", "b3"}
    play(state, ["place Blues star-1 b2"])
    play(state, egg_for("Simona", "Nicola", "star-2"))
    with pytest.raises(PyramidPlaceNotAllowed):
        state.apply(PlaceEgg("Blues", "star-2", "b2"))  # taken
    play(state, ["place Blues star-2 b3"])
    play(state, egg_for("Simona", "Nicola", "star-3"))
    assert {a.place for a in state.legal_actions()} == {"b1", "m2"}


def test_the_chick_is_offered_only_for_the_last_place():
    state = new_table(options={"egg_pyramid": True})
    fill_henhouses(state, HENHOUSE_EGGS)
    play(state, ["chicchirichi Simona", "reveal Simona serama serama serama serama"])
    assert state.waiting_for() == {"step": "draw", "to": "team", "team": "Blues"}
