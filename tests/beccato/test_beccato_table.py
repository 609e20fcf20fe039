"""Rules around the calls: dealing and passing, the five-player seat, rewards and their options,
the egg deck running out, views, and the scorekeeper's language."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from referee.beccato import ENGINE, DrawFromPile, Pass, ShowCards, TakeEgg
from referee.beccato import violations as V
from referee.beccato.table import Table
from referee.core import MalformedAction

from .helpers import fill_henhouses, new_table, of_kind, play, rulebook_setup

HENHOUSE_EGGS = ["moon-1", "moon-2", "moon-3", "moon-4", "moon-5"]


def table(**extra):
    state = new_table(**extra)
    fill_henhouses(state, HENHOUSE_EGGS)
    return state


# -- dealing, passing, dealers -----------------------------------------------------------------
def test_full_knowledge_deal_three_each_four_to_the_dealer_and_the_deck_runs_out():
    state = new_table(seed=1)
    assert {p: len(h) for p, h in state.hands.items()} == {
        "Nicola": 4,
        "Simona": 3,
        "Claudia": 3,
        "Federico": 3,
        "Cecilia": 3,
        "Mariano": 3,
    }
    assert sum(map(Counter, state.hands.values()), Counter()) == Counter(
        {"orloff": 3, "padovana": 3, "brahma": 3, "cocincina": 3, "livornese": 3, "serama": 4}
    )


@pytest.mark.parametrize(
    "direction, receiver, next_dealer", [("left", "Simona", "Simona"), ("right", "Mariano", "Mariano")]
)
def test_passing_direction_and_the_next_dealer(direction, receiver, next_dealer):
    state = table(options={"pass_direction": direction})
    events = play(state, ["pass Nicola"])
    assert of_kind(events, "passed")[0]["to"] == receiver
    assert state.holder == receiver
    play(
        state,
        [
            "caught Simona Nicola" if direction == "left" else "caught Claudia Mariano",
            # Mariano has just received: he holds four (B15)
            "reveal Nicola orloff padovana brahma"
            if direction == "left"
            else "reveal Mariano orloff padovana brahma serama",
            "egg star-1",
        ],
    )
    assert state.dealer == next_dealer and state.holder == next_dealer and state.round == 2


def test_explicit_deals_for_several_rounds_then_the_seed():
    hands = {"a": ["orloff"] * 3 + ["serama"], "b": ["padovana"] * 3, "c": ["brahma"] * 3, "d": ["serama"] * 3}
    second = {"a": ["padovana"] * 3, "b": ["orloff"] * 3 + ["serama"], "c": ["brahma"] * 3, "d": ["serama"] * 3}
    state = ENGINE.new_game({"players": ["a", "b", "c", "d"], "deals": [hands, second]})
    assert state.table.full and state.hands["a"] == sorted(hands["a"])
    while state.phase == "draw":
        play(state, [f"egg {state.deck[0]}"])
    play(state, ["coccode c", "reveal a orloff orloff orloff serama", f"egg {state.deck[0]}"])
    assert state.dealer == "b" and state.hands["b"] == ["orloff", "orloff", "orloff", "serama"]
    play(state, ["coccode c", "reveal a padovana padovana padovana", f"egg {state.deck[0]}"])
    assert state.round == 3 and sum(len(h) for h in state.hands.values()) == 13  # from the seed


def test_five_players_pass_through_the_imaginary_seat():
    state = ENGINE.new_game({"players": ["Anna", "Bruno", "Carla", "Dario", "Elena"]})
    assert state.table.ring[-1] == "?" and len(state.henhouses) == 5
    assert state.table.teams == {"dollar": ("Anna", "Carla", "Elena"), "star": ("Bruno", "Dario")}
    fill_henhouses(state, HENHOUSE_EGGS)
    play(state, ["pass Anna", "pass Bruno", "pass Carla", "pass Dario"])
    events = play(state, ["pass Elena orloff"])
    assert of_kind(events, "passed")[0]["to"] == "?"
    assert state.is_chance_node and state.chance_outcomes() == [(DrawFromPile(None), 1.0)]
    with pytest.raises(V.NotYourTurn):
        state.apply(Pass("Anna"))
    with pytest.raises(V.PlayerNotInGame):
        state.apply(Pass("?"))
    events = play(state, ["pile"])  # Anna draws one of the four at random, unseen
    assert of_kind(events, "passed")[0] == {"seat": "?", "to": "Anna", "card": None}
    assert state.hands["?"] == []  # the orloff may have been drawn
    assert state.holder == "Anna"
    play(state, ["caught Bruno Anna", "reveal Anna orloff padovana brahma serama", "egg star-1"])
    assert state.dealer == "Bruno"


def test_five_player_dealer_skips_the_imaginary_seat_and_pile_draws_are_chance():
    state = ENGINE.new_game({"players": ["Anna", "Bruno", "Carla", "Dario", "Elena"], "seed": 4, "dealer": "Elena"})
    assert len(state.hands["?"]) == 3 and len(state.hands["Elena"]) == 4
    while state.phase == "draw":
        play(state, [f"egg {state.deck[0]}"])
    card = state.hands["Elena"][0]
    play(state, [f"pass Elena {card}"])
    outcomes = state.chance_outcomes()
    assert sum(p for _a, p in outcomes) == pytest.approx(1.0)
    assert sorted(a.card for a, _p in outcomes) == sorted(set(state.hands["?"]))
    assert state.table.next_dealer("Elena") == "Anna"
    assert state.legal_actions()[: len(outcomes)] == [a for a, _p in outcomes]


def test_plain_five_player_game_without_the_imaginary_seat():
    state = ENGINE.new_game(
        {
            "players": ["a", "b", "c", "d", "e"],
            "options": {"five_player": False},
            "teams": {"x": ["a", "c", "e"], "y": ["b", "d"]},
            "seed": 2,
        }
    )
    assert "?" not in state.hands and len(state.henhouses) == 4


# -- rewards and their options -----------------------------------------------------------------
def test_caught_reward_deck_only_b3():
    state = table(options={"caught_reward": "deck"})
    play(state, ["caught Simona Cecilia", "reveal Cecilia padovana padovana padovana"])
    assert state.waiting_for() == {"step": "draw", "to": "team", "team": "Blues"}


@pytest.mark.parametrize("counts, correct", [(False, False), (True, True)])
def test_three_serama_for_caught_b4(counts, correct):
    state = table(options={"serama_triple_counts": counts})
    events = play(state, ["caught Simona Cecilia", "reveal Cecilia serama serama serama"])
    assert of_kind(events, "call_resolved")[0]["correct"] is correct


def test_three_serama_never_make_a_coccode():
    state = table()
    events = play(
        state, ["coccode Nicola", "reveal Claudia serama serama serama", "reveal Cecilia orloff padovana brahma"]
    )
    assert of_kind(events, "call_resolved")[0]["correct"] is False


def test_four_cards_holding_a_triple_count_b5():
    state = table()
    play(
        state,
        [
            "pass Nicola",
            "pass Simona",
            "coccode Nicola",
            "reveal Claudia padovana padovana padovana cocincina",
            "reveal Cecilia orloff brahma serama",
        ],
    )
    assert [e["egg"] for e in state.collections["Reds"]] == ["moon-2"]


def test_two_triples_let_the_team_choose_the_henhouse():
    state = table()
    play(state, ["coccode Nicola", "reveal Claudia orloff orloff orloff", "reveal Cecilia padovana padovana padovana"])
    assert state.waiting_for() == {"step": "choose", "team": "Reds", "options": ["orloff", "padovana"]}
    play(state, ["take Reds padovana", "egg star-7"])
    assert state.henhouses["padovana"] == "star-7"


@pytest.mark.parametrize("breed, correct", [("orloff", True), ("padovane", False)])
def test_calling_chickens_b12(breed, correct):
    state = table(options={"calling_chickens": True})
    events = play(
        state,
        [f"coccode Nicola {breed}", "reveal Claudia orloff orloff orloff", "reveal Cecilia padovana brahma serama"],
    )
    resolved = of_kind(events, "call_resolved")[0]
    assert resolved["correct"] is correct
    assert resolved["awarded_to"] == (["Reds"] if correct else ["Blues"])


def test_several_teams_reaching_six_at_once_end_the_game_and_may_share_the_win():
    state = ENGINE.new_game(
        {
            "players": ["A1", "B1", "C1", "A2", "B2", "C2"],
            "teams": {"A": ["A1", "A2"], "B": ["B1", "B2"], "C": ["C1", "C2"]},
            "guilds": {"A": "sun", "B": "star", "C": "moon"},
        }
    )
    fill_henhouses(state, ["dollar-1", "dollar-2", "dollar-3", "dollar-4", "dollar-5"])
    # A1's wrong Chicchirichì six times: B and C each draw an egg each time (B7)
    for n in range(6):
        play(state, ["chicchirichi A1", "reveal A1 orloff padovana brahma"])
        assert not state.is_over or n == 5
        play(
            state, [f"egg sun-{n + 1}" if n < 5 else "egg dollar-6", "egg dollar-7" if n == 5 else f"egg moon-{n + 1}"]
        )
    assert state.is_over
    scores = state.result["scores"]
    assert scores["B"]["eggs"] == scores["C"]["eggs"] == 6
    assert state.result["reason"] == "B, C reached 6 eggs"
    assert (scores["B"]["points"], scores["C"]["points"]) == (6, 6 + 5)
    assert state.result["winners"] == ["C"]


def test_a_tie_on_points_and_own_eggs_is_a_shared_win_b8():
    state = ENGINE.new_game(
        {
            "players": ["A1", "B1", "C1", "A2", "B2", "C2"],
            "teams": {"A": ["A1", "A2"], "B": ["B1", "B2"], "C": ["C1", "C2"]},
            "guilds": {"A": "sun", "B": "star", "C": "moon"},
        }
    )
    fill_henhouses(state, ["sun-1", "sun-2", "sun-3", "sun-4", "sun-5"])
    to_c = ["sun-6", "sun-7", "dollar-7", "star-1", "star-2", "star-3"]  # none of them C's Guild
    for n in range(6):  # A1's wrong Chicchirichì: B, then C, draw from the deck
        play(state, ["chicchirichi A1", "reveal A1 orloff padovana brahma", f"egg dollar-{n + 1}", f"egg {to_c[n]}"])
    result = state.result
    assert result["scores"]["B"] == result["scores"]["C"] == {"points": 6, "own_eggs": 0, "eggs": 6, "excluded": False}
    assert result["shared"] is True and result["winners"] == ["B", "C"]


def test_when_the_egg_deck_runs_out_awards_come_from_the_henhouses_b9():
    players = [f"p{i}" for i in range(9)]
    state = ENGINE.new_game(
        {
            "players": players,
            "teams": {"A": ["p0", "p4", "p7"], "B": ["p1", "p5"], "C": ["p2", "p6"], "D": ["p3", "p8"]},
        }
    )
    houses = list(state.henhouses)
    for _ in houses:
        play(state, [f"egg {state.deck[0]}"])
    assert len(state.deck) == 20

    def wrong_caught(caller, target):
        play(state, [f"caught {caller} {target}", f"reveal {target} orloff padovana brahma"])
        play(state, [f"egg {state.deck[0]}"])

    for caller in ["p0", "p1", "p2", "p3"]:  # every other team draws one egg each time
        play(state, [f"chicchirichi {caller}", f"reveal {caller} orloff padovana brahma"])
        for _ in range(3):
            play(state, [f"egg {state.deck[0]}"])
    for target, caller in [("p0", "p1"), ("p1", "p0"), ("p2", "p0"), ("p3", "p0")] * 2:
        wrong_caught(caller, target)
    assert state.deck == [] and all(state.eggs_of(t) == 5 for t in "ABCD")
    play(state, ["caught p0 p1", "reveal p1 orloff padovana brahma"])
    waiting = state.waiting_for()
    assert waiting["step"] == "choose" and waiting["team"] == "B" and waiting["options"] == houses
    play(state, [f"take B {houses[0]}"])
    assert state.henhouses[houses[0]] is None  # stays empty
    assert state.is_over and state.result["reason"] == "B reached 6 eggs"


def test_no_egg_left_anywhere_ends_the_game_b9():
    state = table()
    state.deck.clear()
    state.henhouses = {b: None for b in state.henhouses}
    events = play(state, ["caught Simona Nicola", "reveal Nicola orloff padovana brahma"])
    assert [e.kind for e in events][-2:] == ["no_egg_left", "game_over"]
    assert state.result["reason"] == "no egg is left anywhere (B9)"
    with pytest.raises(V.GameAlreadyOver):
        play(state, ["coccode Nicola"])


# -- knowledge and views -----------------------------------------------------------------
def test_partial_knowledge_follows_cards_passed_face_up():
    state = table()
    play(state, ["pass Nicola orloff", "pass Simona orloff"])
    assert state.hands["Claudia"] == ["orloff"] and state.hands["Simona"] == []
    play(state, ["pass Claudia"])  # unseen: the orloff may have gone on
    assert state.hands["Claudia"] == []
    assert state.chance_outcomes() == []
    legal = state.legal_actions()
    assert Pass("Federico") in legal and Pass("Federico", "serama") in legal


def test_partial_knowledge_enumerates_possible_reveals():
    state = table()
    play(state, ["caught Simona Cecilia"])
    reveals = state.legal_actions()
    assert {len(a.cards) for a in reveals} == {3, 4}
    assert all(a.player == "Cecilia" for a in reveals)
    assert len(reveals) == 56 + 126 - 5  # multisets of 6 card names; no 4 of a hen breed


def test_partial_knowledge_egg_draws_are_any_unseen_egg():
    state = new_table()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 28 and sum(p for _a, p in outcomes) == pytest.approx(1.0)


def test_views_hide_other_hands_other_signals_and_the_egg_order():
    state = new_table(seed=9, signals={"Reds": "wink_left", "Blues": "hum"})
    view = state.view("Claudia")
    assert view["signals"] == {"Reds": "wink_left", "Blues": "hidden"}
    assert list(view["hands"]) == ["Claudia"] and view["hands"]["Claudia"] == state.hands["Claudia"]
    assert view["deck"] == 28 and "seed" not in view["table"]
    public = state.view()
    assert public["signals"] == {"Reds": "hidden", "Blues": "hidden"} and public["hands"] == {}
    assert public["hand_sizes"]["Nicola"] == 4
    blue = state.view("Simona")
    assert blue["signals"]["Blues"] == "hum" and blue["signals"]["Reds"] == "hidden"
    with pytest.raises(V.PlayerNotInGame):
        state.view("Zorro")


def test_seeded_signals_and_free_signal():
    state = new_table(seed=9)
    assert all(s is not None for s in state.signals.values())
    assert len(set(state.signals.values())) == 2
    free = new_table(options={"free_signal": True})
    assert free.signals == {"Reds": "free", "Blues": "free"}


def test_snapshot_is_json_and_copy_is_independent():
    state = new_table(seed=3)
    while state.phase == "draw":
        play(state, [f"egg {state.deck[0]}"])
    twin = state.copy()
    play(state, [f"pass Nicola {state.hands['Nicola'][0]}"])
    assert twin.snapshot() != state.snapshot()
    assert json.loads(json.dumps(state.snapshot())) == state.snapshot()


def test_setup_records_options_and_rulings():
    t = Table.from_setup(rulebook_setup())
    data = t.to_json()
    assert data["options"]["pass_direction"] == "left" and "B9" in data["rulings"]
    assert data["knowledge"] == "partial" and data["seed"] is None


# -- the scorekeeper's language ---------------------------------------------------------------
@pytest.mark.parametrize(
    "line, kind, fields",
    [
        ("Coccodé nicola", "coccode", {"caller": "Nicola", "breed": None}),
        ("coccodè Nicola", "coccode", {"caller": "Nicola"}),
        ("COCCODE Nicola Orloff", "coccode", {"breed": "Orloff"}),
        ("Beccato! Simona Cecilia", "caught", {"caller": "Simona", "target": "Cecilia"}),
        ("caught simona cecilia", "caught", {"caller": "Simona", "target": "Cecilia"}),
        ("Chicchirichì Simona", "chicchirichi", {"caller": "Simona"}),
        ("chicchirichi Simona", "chicchirichi", {"caller": "Simona"}),
        ("reveal Claudia orloff orloff orloff", "reveal", {"cards": ("orloff", "orloff", "orloff")}),
        ("seen Claudia orloff Padovane", "show_cards", {"player": "Claudia", "cards": ("orloff", "Padovane")}),
        ("pass Nicola", "pass", {"card": None}),
        ("pass Nicola serama", "pass", {"card": "serama"}),
        ("pile", "draw_from_pile", {"card": None}),
        ("egg deck star-3", "draw_egg", {"egg": "star-3"}),
        ("draw star-3", "draw_egg", {"egg": "star-3"}),
        ("take Simona deck", "take_egg", {"team": "Blues", "source": "deck"}),
        ("take blues orloff", "take_egg", {"team": "Blues"}),
        ("place Reds star-1 t", "place_egg", {"place": "top"}),
        ("signal Reds star-1 hum", "change_signal", {"signal": "hum"}),
        ("coccode 'Zorro the Great'", "coccode", {"caller": "Zorro the Great"}),
        ("take Greens deck", "take_egg", {"team": "Greens"}),
    ],
)
def test_parse_command(line, kind, fields):
    state = new_table()
    action = ENGINE.parse_command(state, line)
    assert action.kind == kind
    for name, value in fields.items():
        assert getattr(action, name) == value


@pytest.mark.parametrize(
    "line, hint",
    [
        ("", "coccode"),
        ("dance Nicola", "coccode"),
        ("caught Simona", "usage: caught"),
        ("reveal", "usage: reveal"),
        ("seen Claudia a b c d e", "usage: seen"),
        ("place Reds star-1 roof", "b1"),
        ("coccode 'Nicola", "quote"),
    ],
)
def test_bad_lines_are_malformed_with_a_hint(line, hint):
    with pytest.raises(MalformedAction) as info:
        ENGINE.parse_command(new_table(), line)
    assert hint in str(info.value.details.get("hint"))


def test_render_and_help():
    state = table(options={"egg_pyramid": True})
    text = ENGINE.render(state)
    assert "round 1" in text and "dealer Nicola" in text and "orloff [moon-1]" in text
    assert "Reds (dollar): Nicola, Claudia, Cecilia" in text and "Nicola holds four cards" in text
    play(state, ["caught Simona Cecilia", "reveal Cecilia padovana padovana padovana"])
    assert "Blues to choose an egg from" in ENGINE.render(state)
    play(state, ["take Blues deck"])
    assert "for team Blues" in ENGINE.render(state)
    play(state, ["egg star-1"])
    assert "Blues to place star-1" in ENGINE.render(state)
    help_text = ENGINE.command_help()
    for verb in (
        "coccode",
        "caught",
        "chicchirichi",
        "reveal",
        "seen",
        "pass",
        "pile",
        "egg",
        "take",
        "place",
        "signal",
    ):
        assert verb in help_text


def test_render_the_end_and_waiting_for_a_reveal():
    state = table()
    play(state, ["coccode Nicola"])
    assert "the hand of Claudia and Cecilia" in ENGINE.render(state)
    state.deck.clear()
    state.henhouses = {b: None for b in state.henhouses}
    play(state, ["reveal Claudia orloff padovana brahma", "reveal Cecilia orloff padovana brahma"])
    assert "GAME OVER" in ENGINE.render(state)


def test_take_egg_accepts_the_deck_top_by_other_names():
    state = table()
    play(state, ["caught Simona Cecilia", "reveal Cecilia padovana padovana padovana"])
    assert state.can(TakeEgg("Blues", "top"))


def test_five_players_passing_right_skip_the_imaginary_seat_as_dealer():
    t = Table.from_setup({"players": ["a", "b", "c", "d", "e"], "options": {"pass_direction": "right"}})
    assert t.next_seat("a") == "?" and t.next_seat("?") == "e"
    assert [t.dealer_of_round(n) for n in range(1, 7)] == ["a", "e", "d", "c", "b", "a"]


def test_sample_chance_uses_only_the_given_randomness():
    state = ENGINE.new_game({"players": ["Anna", "Bruno", "Carla", "Dario", "Elena"], "seed": 4})
    assert state.sample_chance(random.Random(1)).egg == state.deck[0]  # full knowledge: the top
    while state.phase == "draw":
        state.apply(state.sample_chance(random.Random(1)))
    with pytest.raises(V.OutOfOrder):
        state.sample_chance(random.Random(1))
    for seat in ["Anna", "Bruno", "Carla", "Dario", "Elena"]:
        play(state, [f"pass {seat} {state.hands[seat][0]}"])
    drawn = [state.sample_chance(random.Random(k)).card for k in range(40)]
    assert set(drawn) == set(state.hands["?"])
    assert drawn == [state.sample_chance(random.Random(k)).card for k in range(40)]


# -- cards seen during play -------------------------------------------------------------------
def test_cards_seen_in_a_hand_are_remembered_until_the_reveal():
    state = table()
    events = play(state, ["seen Claudia orloff"])
    assert of_kind(events, "cards_seen") == [{"player": "Claudia", "cards": ["orloff"]}]
    play(state, ["seen Claudia orloff"])  # the same card seen again: nothing new
    assert state.hands["Claudia"] == ["orloff"]
    play(state, ["coccode Nicola"])
    with pytest.raises(V.RevealDoesNotMatchHand):
        play(state, ["reveal Claudia padovana padovana padovana"])
    play(state, ["reveal Claudia orloff padovana padovana"])


@pytest.mark.parametrize(
    "lines, bad, expected",
    [
        (["seen Claudia orloff orloff"], "seen Cecilia orloff orloff", V.CardAlreadySeen),
        (["seen Claudia orloff orloff padovana"], "seen Claudia brahma cocincina", V.RevealWrongSize),
        ([], "seen Claudia orloff orloff orloff orloff", V.TooManyOfBreed),
        ([], "seen Claudia sussex", V.CardNotInDeck),
        ([], "seen Zorro orloff", V.PlayerNotInGame),
        (["coccode Nicola"], "seen Claudia orloff", V.OutOfOrder),
    ],
)
def test_cards_seen_are_checked_like_reveals(lines, bad, expected):
    state = table()
    play(state, lines)
    before = state.snapshot()
    with pytest.raises(expected):
        play(state, [bad])
    assert state.snapshot() == before


def test_cards_seen_with_full_knowledge_must_be_in_the_hand():
    state = new_table(seed=3)
    while state.phase == "draw":
        play(state, [f"egg {state.deck[0]}"])
    hand = list(state.hands["Simona"])
    absent = next(c for c in sorted(state.table.composition) if c not in hand)
    with pytest.raises(V.CardNotInHand):
        state.apply(ShowCards("Simona", (absent,)))
    with pytest.raises(V.RevealWrongSize):
        state.apply(ShowCards("Simona", ()))
    state.apply(ShowCards("Simona", tuple(hand[:2])))
    assert state.hands["Simona"] == hand
