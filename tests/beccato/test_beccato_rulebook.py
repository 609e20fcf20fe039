"""Every worked example of the Beccato! rulebook, refereed by the engine."""

from __future__ import annotations

import pytest

from referee.beccato import ENGINE, RevealDoesNotMatchHand
from referee.beccato.scoring import GUILD_CARD, Card, pyramid_score

from .helpers import fill_henhouses, new_table, of_kind, play

HENHOUSE_EGGS = ["moon-1", "moon-2", "moon-3", "moon-4", "moon-5"]  # orloff .. livornese


def eggs(state, team):
    return [e["egg"] for e in state.collections[team]]


def test_the_three_narratives_at_a_real_table():
    """Nicola, Claudia, Cecilia (Reds) v Simona, Federico, Mariano (Blues); partial knowledge."""
    state = new_table()
    fill_henhouses(state, HENHOUSE_EGGS)
    assert state.waiting_for() == {"step": "play", "holder": "Nicola"}

    # 1. Nicola thinks Claudia winked: Coccodé. Claudia holds three Orloff.
    events = play(
        state,
        [
            "pass Nicola",
            "pass Simona",  # the cards travel: Nicola to Simona, Simona to Claudia
            "coccode Nicola",
            "reveal Claudia orloff orloff orloff serama",  # she has just received: four cards (B15)
            "reveal Cecilia padovana brahma serama",
        ],
    )
    resolved = of_kind(events, "call_resolved")[0]
    assert resolved["correct"] and resolved["awarded_to"] == ["Reds"]
    assert eggs(state, "Reds") == ["moon-1"]  # the egg of the Orloff henhouse
    assert state.henhouses["orloff"] is None
    assert state.waiting_for() == {"step": "draw", "to": "henhouse", "breed": "orloff"}
    play(state, ["egg dollar-1"])  # a new egg replaces the one taken
    assert state.henhouses["orloff"] == "dollar-1"
    assert (state.round, state.dealer) == (2, "Simona")

    # 2. New round: Mariano calls Coccodé wrongly; the opposing team draws from the deck.
    events = play(
        state,
        [
            "Coccodè Mariano",
            "reveal Simona orloff padovana brahma",
            "reveal Federico orloff padovana cocincina",
        ],
    )
    assert of_kind(events, "call_resolved")[0]["correct"] is False
    assert state.waiting_for() == {"step": "draw", "to": "team", "team": "Reds"}
    play(state, ["egg deck star-1"])  # Nicola draws the top of the egg deck
    assert eggs(state, "Reds") == ["moon-1", "star-1"]
    assert (state.round, state.dealer) == (3, "Claudia")

    # 3. Simona catches Cecilia, who does hold three Padovane; Simona's team draws an egg.
    events = play(state, ["beccato Simona Cecilia", "reveal Cecilia padovane padovane padovane"])
    assert of_kind(events, "call_resolved")[0]["correct"] is True
    waiting = state.waiting_for()
    assert waiting["step"] == "choose" and waiting["team"] == "Blues"
    assert set(waiting["options"]) == {"orloff", "padovana", "brahma", "cocincina", "livornese", "deck"}
    play(state, ["take Simona padovana", "egg sun-1"])  # a henhouse egg, refilled
    assert eggs(state, "Blues") == ["moon-2"]
    assert state.henhouses["padovana"] == "sun-1"

    # Chicchirichì: Simona holds four Serama and draws an egg for her team.
    events = play(state, ["Chicchirichì Simona", "reveal Simona serama serama serama serama", "egg star-2"])
    assert of_kind(events, "call_resolved")[0]["correct"] is True
    assert eggs(state, "Blues") == ["moon-2", "star-2"]
    # Reds: moon-1, star-1 (1 each); Blues (Guild star): moon-2 (1) + star-2 (own Guild, 2)
    assert state.scores()["Reds"]["points"] == 2
    assert state.scores()["Blues"]["points"] == 3


ROUND_ONE = {  # dealer Nicola holds four cards; Claudia three Orloff
    "Nicola": ["serama", "brahma", "cocincina", "livornese"],
    "Simona": ["padovana", "padovana", "serama"],
    "Claudia": ["orloff", "orloff", "orloff"],
    "Federico": ["padovana", "brahma", "serama"],
    "Cecilia": ["brahma", "cocincina", "livornese"],
    "Mariano": ["cocincina", "livornese", "serama"],
}


def test_coccode_with_full_knowledge_checks_the_reveal():
    state = new_table(deals=[ROUND_ONE], seed=5)
    for _ in range(5):
        play(state, [f"egg {state.deck[0]}"])
    orloff_egg = state.henhouses["orloff"]
    play(state, ["pass Nicola serama", "coccode Nicola"])
    before = state.snapshot()
    with pytest.raises(RevealDoesNotMatchHand):
        play(state, ["reveal Claudia orloff orloff padovana"])
    assert state.snapshot() == before
    play(state, ["reveal Claudia orloff orloff orloff", "reveal Cecilia brahma cocincina livornese"])
    assert eggs(state, "Reds") == [orloff_egg]


def test_chicchirichi_after_receiving_the_fourth_serama():
    deal = {
        "Nicola": ["serama", "orloff", "padovana", "brahma"],
        "Simona": ["serama", "serama", "serama"],
        "Claudia": ["orloff", "orloff", "padovana"],
        "Federico": ["padovana", "brahma", "brahma"],
        "Cecilia": ["cocincina", "cocincina", "livornese"],
        "Mariano": ["cocincina", "livornese", "livornese"],
    }
    state = new_table(deals=[deal])
    for _ in range(5):
        play(state, [f"egg {state.deck[0]}"])
    top = state.deck[0]
    events = play(
        state, ["pass Nicola serama", "chicchirichi Simona", "reveal Simona serama serama serama serama", f"egg {top}"]
    )
    assert of_kind(events, "call_resolved")[0]["correct"]
    assert eggs(state, "Blues") == [top]


def test_wrong_chicchirichi_gives_every_opposing_team_an_egg():
    state = three_team_table()
    fill_henhouses(state, ["moon-1", "moon-2", "moon-3", "moon-4", "moon-5"])
    play(state, ["chicchirichi A1", "reveal A1 serama serama serama orloff"])
    assert state.waiting_for() == {"step": "draw", "to": "team", "team": "B"}
    play(state, ["egg star-1", "egg star-2"])
    assert [e["egg"] for e in state.collections["B"]] == ["star-1"]
    assert [e["egg"] for e in state.collections["C"]] == ["star-2"]
    assert state.collections["A"] == []


def three_team_table():
    return ENGINE.new_game(
        {
            "players": ["A1", "B1", "C1", "A2", "B2", "C2"],
            "teams": {"A": ["A1", "A2"], "B": ["B1", "B2"], "C": ["C1", "C2"]},
        }
    )


# The three Egg Pyramid totals. Guild symbol of the team: "star"; others: "dollar".
OWN = ["star-1", "star-2", "star-3", "star-4"]
OTHER = ["dollar-1", "dollar-2", "dollar-3"]


def test_pyramid_simona_24():
    slots = {
        "b1": Card(OWN[0]),
        "b2": Card(OWN[1]),
        "b3": Card(OWN[2]),
        "m1": Card(OTHER[0]),
        "m2": Card(OTHER[1]),
        "top": Card("chick"),
    }
    # (2+2+2) x 2 + (1+1) + 5 x 2
    assert pyramid_score(slots, "star").points == 24


def test_pyramid_nicola_9_with_face_down_eggs():
    slots = {
        "b1": Card(OWN[0]),
        "b2": Card(OWN[1], face_up=False),
        "b3": Card(OTHER[0]),
        "m1": Card(OWN[2]),
        "m2": Card(OTHER[1], face_up=False),
        "top": Card(OWN[3]),
    }
    # 2+0+1, 2+0 (a face-down egg breaks the Level bonus), 2 x 2
    assert pyramid_score(slots, "star").points == 9


def test_pyramid_federico_8_with_guild_cards():
    slots = {"b1": Card(OWN[0]), "b2": Card(OTHER[0]), "b3": Card(OTHER[1]), "m1": Card(OWN[1])}
    # 2+1+1, (2 + Guild card 0) x 2, Guild card 0 on top
    score = pyramid_score(slots, "star")
    assert (score.points, score.excluded) == (8, False)
    explicit = dict(slots, m2=Card(GUILD_CARD), top=Card(GUILD_CARD))
    assert pyramid_score(explicit, "star").points == 8


def test_pyramid_options_and_exclusion():
    slots = {"b1": Card(OWN[0]), "b2": Card(OWN[1]), "b3": Card(OWN[2])}
    assert pyramid_score(slots, "star").points == 12  # base doubled, 3 Guild cards fill the rest
    assert pyramid_score(slots, "star", level_bonus=False).points == 6
    assert pyramid_score({"b1": Card(OWN[0])}, "star").excluded  # 5 empty places, 3 Guild cards
    assert not pyramid_score({"b1": Card(OWN[0])}, "star", guild_fill=False).excluded
