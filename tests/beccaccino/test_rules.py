import pytest

from referee.beccaccino import (
    ENGINE,
    AnnouncementNotByLeader,
    CallOut,
    Declare,
    Look,
    Marafona,
    MarafonaTooLate,
    NoMarafona,
    NotASuit,
    Play,
    SecondAnnouncement,
    Show,
    UnknownAnnouncement,
)
from referee.core import GameAlreadyOver, MalformedAction, get_engine
from referee.tricks import (
    BadDeal,
    BadOption,
    BadPlayerCount,
    BadTeams,
    CardAlreadyPlayed,
    CardNotInHand,
    NotYourRole,
    OutOfOrder,
    OutOfTurn,
    PlayerNotInGame,
    Revoke,
    UnknownOption,
)
from tests.beccaccino.helpers import PLAYERS, deal_with, first_legal_play, new, play_hand


def test_registered_under_its_name():
    assert get_engine("beccaccino") is ENGINE
    assert ENGINE.version and "declare" in ENGINE.command_help()


def test_an_eleven_point_hand():
    s = new(seed=3)
    s.apply(Declare(s.battezzante, "C"))
    events = play_hand(s)
    scored = next(e for e in events if e.kind == "hand_scored").data
    tricks = [e.data for e in events if e.kind == "trick_won"]
    assert len(tricks) == 10 and tricks[-1]["last"]
    # recount the thirds from the tricks themselves
    thirds = {t: 0 for t in s.teams}
    value = {"A": 3, "3": 1, "2": 1, "R": 1, "C": 1, "F": 1}
    for t in tricks:
        thirds[t["team"]] += sum(value.get(c[:-1], 0) for c in t["cards"]) + (3 if t["last"] else 0)
    assert thirds == scored["thirds"] and sum(thirds.values()) == 35  # 11 2/3 points
    assert scored["points"] == {t: v // 3 for t, v in thirds.items()}
    assert sum(scored["points"].values()) == 11  # the thirds left over are dropped (M2)
    assert s.scores == scored["points"]


def test_a_marafona_adds_three():
    # Anna holds the 4 di denari (battezzante) and the 3, 2 and Ace of bastoni.
    s = new(deals=[deal_with(Anna=["4D", "3B", "2B", "AB"])])
    assert s.battezzante == "Anna"
    with pytest.raises(OutOfOrder):  # the trump first
        s.verify(Marafona("Anna"))
    s.apply(Declare("Anna", "B"))
    with pytest.raises(NoMarafona):
        s.verify(Marafona("Ben"))
    s.apply(Play("Anna", "3B"))  # already played in this trick: still counts
    events = s.apply(Marafona("Anna"))
    assert events[0].data["points"] == 3
    with pytest.raises(MarafonaTooLate):
        s.verify(Marafona("Anna"))
    scored = next(e for e in play_hand(s) if e.kind == "hand_scored").data
    assert scored["marafona"] == {"Anna+Carla": 3, "Ben+Dan": 0}
    assert sum(s.scores.values()) == 14


def test_marafona_after_the_first_trick_is_too_late():
    s = new(deals=[deal_with(Anna=["4D", "3B", "2B", "AB"])])
    s.apply(Declare("Anna", "B"))
    for _ in range(4):
        s.apply(first_legal_play(s))
    with pytest.raises(MarafonaTooLate):
        s.verify(Marafona("Anna"))


def test_battezzante_and_dealer_rotate_to_the_right():
    s = new(seed=5, dealer="Dan")
    holder = s.holdings.holder_of("4D")
    assert s.battezzante == holder
    other = next(p for p in PLAYERS if p != holder)
    with pytest.raises(NotYourRole):
        s.verify(Declare(other, "D"))
    with pytest.raises(NotASuit):
        s.verify(Declare(holder, "H"))
    s.apply(Declare(holder, "D"))
    assert s.turn == holder  # the battezzante leads the first trick
    play_hand(s)
    # hand 2: the deal passed to the right of Dan (Anna), the battezzante sits to her right
    assert (s.hand_no, s.dealer, s.battezzante) == (1, "Anna", "Ben")


def test_the_partners_early_look_is_recorded():
    s = new(deals=[deal_with(Anna=["4D"])])
    s.apply(Look("Ben"))  # anyone else may look
    events = s.apply(Look("Carla"))  # Anna's partner
    assert events[0].kind == "foul" and s.fouls[0]["player"] == "Carla"
    s.apply(Declare("Anna", "S"))
    with pytest.raises(OutOfOrder):
        s.verify(Look("Ben"))


def test_an_early_look_is_judged_once_the_battezzante_is_known():
    s = new()  # nothing known: the first declarer shows the 4 di denari
    s.apply(Look("Dan"))
    events = s.apply(Declare("Ben", "S"))
    assert [e.kind for e in events] == ["trump_declared", "foul"]
    assert s.fouls[0]["player"] == "Dan"


def test_announcements_only_by_the_leader():
    s = new(seed=11)
    s.apply(Declare(s.battezzante, "C"))
    leader = s.turn
    card = first_legal_play(s).card
    with pytest.raises(UnknownAnnouncement):
        s.verify(Play(leader, card, "carico"))
    events = s.apply(Play(leader, card, "volo"))  # true or false, it is legal
    assert events[0].data["call"] == "volo" and "true" not in events[0].data
    assert s.calls[leader]["true"] in (True, False)
    assert s.view(leader)["calls"][leader]["true"] == s.calls[leader]["true"]
    assert s.view(None)["calls"][leader]["true"] is None  # private until the hand ends
    second = first_legal_play(s)
    with pytest.raises(AnnouncementNotByLeader):
        s.verify(Play(second.player, second.card, "busso"))
    assert s.calls[leader]["call"] == "volo"


def test_false_announcements_are_legal_and_marked():
    # Anna leads the 3 di spade saying "volo" while holding the 5 di spade: false, but legal.
    s = new(deals=[deal_with(Anna=["4D", "3S", "5S", "RS"])])
    s.apply(Declare("Anna", "C"))
    s.apply(Play("Anna", "3S", "volo"))
    assert s.calls["Anna"]["true"] is False
    t = new(deals=[deal_with(Anna=["4D", "3S", "5S", "RS"])])
    t.apply(Declare("Anna", "C"))
    t.apply(Play("Anna", "3S", "striscio"))
    assert t.calls["Anna"]["true"] is True
    scored = next(e for e in play_hand(t) if e.kind == "hand_scored")
    assert scored.data["calls"]["Anna"]["true"] is True  # told when the hand is over


def test_second_announcement_is_refused():
    # Anna leads every trick with the top trumps she holds: she wins and leads again.
    s = new(deals=[deal_with(Anna=["4D", "3D", "2D", "AD", "RD"])])
    s.apply(Declare("Anna", "D"))
    s.apply(Play("Anna", "3D", "busso"))
    for _ in range(3):
        s.apply(first_legal_play(s))
    assert s.turn == "Anna" and not s.trick
    before = s.snapshot()
    with pytest.raises(SecondAnnouncement):
        s.apply(Play("Anna", "2D", "striscio"))
    assert s.snapshot() == before
    s.apply(Play("Anna", "2D"))


def test_out_of_turn_revoke_and_unknown_player_leave_the_state_untouched():
    s = new(deals=[deal_with(Anna=["4D", "3S"], Ben=["5S", "6C"])])
    s.apply(Declare("Anna", "C"))
    before = s.snapshot()
    with pytest.raises(OutOfTurn):
        s.apply(Play("Ben", "5S"))
    with pytest.raises(PlayerNotInGame):
        s.apply(Play("Zed", "5S"))
    with pytest.raises(CardNotInHand):
        s.apply(Play("Anna", "5S"))
    s.apply(Play("Anna", "3S"))
    mid = s.snapshot()
    with pytest.raises(Revoke):
        s.apply(Play("Ben", "6C"))  # Ben holds the 5 di spade
    assert s.snapshot() == mid != before
    assert not s.can(Play("Ben", "6C")) and s.can(Play("Ben", "5S"))


def test_chiamarsi_fuori_wrong_loses_at_once():
    s = new(seed=1)
    s.apply(Declare(s.battezzante, "S"))
    caller = "Ben"
    events = s.apply(CallOut(caller))
    assert events[0].data["right"] is False
    assert s.is_over and s.winner != s.team_of[caller]
    assert s.result["reason"] == "chiamata_fuori_sbagliata"
    with pytest.raises(GameAlreadyOver) as info:
        s.apply(CallOut("Anna"))
    assert info.value.details["winner"] == s.winner  # the error says who won


def test_chiamarsi_fuori_right_wins_at_once():
    for seed in range(40):
        s = new(seed=seed)
        while not s.is_over:
            if s.phase == "declare":
                s.apply(Declare(s.battezzante, "C"))
                continue
            ready = [t for t in s.teams if s.running_total(t) >= 41]
            if ready and s.trick_no < 9:
                team = ready[0]
                caller = s.teams[team][1]
                events = s.apply(CallOut(caller))
                assert events[0].data["right"] is True
                assert s.winner == team and s.result["reason"] == "chiamata_fuori"
                assert s.result["total"] == s.running_total(team) >= 41
                return
            s.apply(first_legal_play(s))
    pytest.fail("no seed reached 41 before the last trick")


@pytest.mark.parametrize("target", [41, 31])
def test_the_game_ends_at_the_target(target):
    s = new(seed=2, target=target)
    while not s.is_over:
        if s.phase == "declare":
            s.apply(Declare(s.battezzante, "D"))
        else:
            s.apply(first_legal_play(s))
    assert s.scores[s.winner] >= target
    before_last = s.history[-2]["scores"] if len(s.history) > 1 else {t: 0 for t in s.teams}
    assert max(before_last.values()) < target
    assert s.result["reason"] == "target"


def _marafona_hand(seed, suit, start):
    """Seed 165: the battezzante holds the 3, 2, Ace of spade; first-legal play makes the
    hand 4 + 3 (Marafona) for their team, 7 for the other."""
    s = new(seed=seed)
    s.scores = dict(zip(s.teams, start))  # the totals before the hand
    b = s.battezzante
    s.apply(Declare(b, suit))
    s.apply(Marafona(b))
    events = play_hand(s)
    return s, s.team_of[b], events


def test_equal_totals_past_the_target_play_another_hand():
    # M3: both teams reach 41 with equal totals: no winner, another hand.
    s, team, events = _marafona_hand(165, "S", (34, 34))
    other = next(t for t in s.teams if t != team)
    assert s.history[-1]["points"] == {team: 4, other: 7}
    assert s.scores == {team: 41, other: 41}
    assert not s.is_over and any(e.kind == "tie_play_on" for e in events)
    assert s.hand_no == 1 and s.phase == "declare"


def test_fuori_right_after_a_tie_at_the_target_needs_the_higher_total():
    # M8: 41-41 after the hand (M3 plays on); a fuori before a trick of the new hand counts
    # 41 against 41: not higher, so the call is wrong and the caller's team loses.
    s, team, _ = _marafona_hand(165, "S", (34, 34))
    other = next(t for t in s.teams if t != team)
    s.apply(Declare(s.battezzante, "C"))
    caller = s.teams[team][0]
    events = s.apply(CallOut(caller))
    called = next(e.data for e in events if e.kind == "called_out")
    assert called["total"] == called["other_total"] == 41 and called["right"] is False
    assert s.is_over and s.winner == other
    assert s.result["reason"] == "chiamata_fuori_sbagliata" and "(M8)" in s.result["message"]


def test_fuori_after_a_tie_is_right_once_the_tricks_of_the_hand_put_the_team_ahead():
    # M8: the same tie; the first trick that scores puts one team ahead, counted from the
    # tricks taken so far in this hand: its fuori is right, the other team's is wrong.
    s, _, _ = _marafona_hand(165, "S", (34, 34))
    s.apply(Declare(s.battezzante, "C"))
    while all(v < 3 for v in s.thirds.values()):
        s.apply(first_legal_play(s))
    ahead = max(s.teams, key=s.running_total)
    behind = next(t for t in s.teams if t != ahead)
    assert s.running_total(ahead) > s.running_total(behind) == 41
    wrong = s.copy()
    wrong.apply(CallOut(wrong.teams[behind][0]))
    assert wrong.winner == ahead and wrong.result["reason"] == "chiamata_fuori_sbagliata"
    s.apply(CallOut(s.teams[ahead][1]))
    assert s.winner == ahead and s.result["reason"] == "chiamata_fuori"


def test_the_higher_total_wins_when_both_pass_the_target():
    s, team, events = _marafona_hand(165, "S", (36, 35))  # the order of s.teams
    first, second = s.teams
    assert s.scores[first] >= 41 and s.scores[second] >= 41
    assert s.is_over and s.winner == max(s.teams, key=s.scores.get)
    assert s.scores[s.winner] > min(s.scores.values())


@pytest.mark.parametrize(
    "setup, error",
    [
        ({"players": PLAYERS[:3]}, BadPlayerCount),
        ({"players": ["A", "A", "B", "C"]}, BadPlayerCount),
        ({"players": PLAYERS, "options": {"target": 51}}, BadOption),
        ({"players": PLAYERS, "options": {"points": 3}}, UnknownOption),
        ({"players": PLAYERS, "options": {"dealer": "Zed"}}, BadOption),
        ({"players": PLAYERS, "teams": {"x": ["Anna", "Ben"], "y": ["Carla", "Dan"]}}, BadTeams),
        ({"players": PLAYERS, "deals": [{"Anna": ["3D"]}]}, BadDeal),
        ({"players": PLAYERS, "deals": True}, BadDeal),
        ({"players": PLAYERS, "deals": [{p: True for p in PLAYERS}]}, BadDeal),
        ({"players": PLAYERS, "deals": [{p: ["3D"] * 10 for p in PLAYERS}]}, BadDeal),
    ],
)
def test_bad_setups_are_named(setup, error):
    with pytest.raises(error):
        ENGINE.new_game(setup)


def test_teams_by_name_and_options_from_the_command_line():
    s = ENGINE.new_game(
        {
            "players": PLAYERS,
            "teams": {"Noi": ["Anna", "Carla"], "Voi": ["Ben", "Dan"]},
            "options": {"target": "31", "dealer": "Carla"},
        }
    )
    assert s.team_of == {"Anna": "Noi", "Carla": "Noi", "Ben": "Voi", "Dan": "Voi"}
    assert s.options == {"target": 31, "dealer": "Carla"}


def test_partial_knowledge_catches_impossible_and_revealed_plays():
    s = new()
    s.apply(Declare("Ben", "C"))  # Ben shows the 4 di denari
    s.apply(Play("Ben", "3S"))
    with pytest.raises(CardAlreadyPlayed):
        s.apply(Play("Carla", "3S"))
    with pytest.raises(CardNotInHand):
        s.apply(Play("Carla", "4D"))  # it is Ben's
    s.apply(Play("Carla", "5B"))  # Carla does not follow spades: she claims to have none
    s.apply(Play("Dan", "6S"))
    s.apply(Play("Anna", "7S"))
    assert s.turn == "Ben"  # the 3 wins
    s.apply(Play("Ben", "2B"))
    events = s.apply(Play("Carla", "AS"))  # a spade after all
    fouls = [e for e in events if e.kind == "foul"]
    assert fouls and fouls[0].data["foul"] == "revealed_Revoke" and fouls[0].data["trick"] == 1
    assert s.fouls[-1]["player"] == "Carla"


def test_partial_knowledge_marafona_shows_cards():
    s = new()
    s.apply(Declare("Anna", "S"))
    s.apply(Play("Anna", "7C"))
    s.apply(Marafona("Ben"))
    s.apply(Play("Ben", "3S"))
    with pytest.raises(CardNotInHand):
        s.verify(Play("Carla", "AS"))  # Ben showed it
    t = new()
    t.apply(Declare("Anna", "S"))
    t.apply(Play("Anna", "2S"))
    with pytest.raises(NoMarafona):  # the 2 of trump is already someone else's
        t.verify(Marafona("Ben"))


def test_view_hides_the_other_hands():
    s = new(seed=9)
    v = s.view("Anna")
    assert v["cards"]["hand"] == s.holdings.hands["Anna"]
    assert "hands" not in v["cards"] and "seed" not in v
    assert s.view(None)["cards"]["hand"] is None
    assert s.snapshot()["cards"]["hands"]["Ben"] == s.holdings.hands["Ben"]


def test_scorekeeper_lines():
    s = new(seed=9)
    p = ENGINE.parse_command
    b = s.battezzante
    assert p(s, f"declare {b.lower()} denari") == Declare(b, "D")
    assert p(s, f"briscola {b} B") == Declare(b, "B")
    assert p(s, "play Anna 3 di denari busso") == Play("Anna", "3D", "busso")
    assert p(s, "play anna RC") == Play("Anna", "RC")
    assert p(s, "gioca Ben asso di spade volo") == Play("Ben", "AS", "volo")
    assert p(s, "marafona Dan") == Marafona("Dan")
    assert p(s, "fuori Carla") == CallOut("Carla")
    assert p(s, "look Carla") == Look("Carla")
    for bad in ["", "dance Anna", "play", "play Anna", "play Anna 9Z", "declare Anna", "declare Anna hearts"]:
        with pytest.raises(MalformedAction) as info:
            p(s, bad)
        assert info.value.details.get("hint")


def test_render_shows_the_table():
    s = new(seed=9)
    text = ENGINE.render(s)
    assert "hand 1" in text and "battezzante" in text
    s.apply(Declare(s.battezzante, "S"))
    s.apply(first_legal_play(s))
    text = ENGINE.render(s)
    assert "trick 1/10" in text and "trump spade" in text and "to play" in text
    s.apply(CallOut("Anna"))
    assert "GAME OVER" in ENGINE.render(s)


def test_actions_round_trip_through_the_codec():
    for action in [
        Declare("Anna", "D"),
        Look("Ben"),
        Play("Anna", "3D", "volo"),
        Play("Ben", "RC"),
        Marafona("Dan"),
        CallOut("Carla"),
    ]:
        assert ENGINE.codec.from_dict(action.to_dict()) == action


def test_a_card_seen_in_a_hand_reveals_an_earlier_revoke():
    s = new()
    s.apply(Declare("Ben", "C"))
    s.apply(Play("Ben", "3S"))
    s.apply(Play("Carla", "5B"))  # no spades, says Carla
    events = s.apply(ENGINE.parse_command(s, "seen Carla asso di spade 7D"))
    assert [e.kind for e in events] == ["seen", "foul"]
    assert s.fouls[0]["foul"] == "revealed_Revoke" and s.fouls[0]["trick"] == 1
    with pytest.raises(CardNotInHand):
        s.verify(Show("Dan", ("AS",)))  # it is in Carla's hand
    with pytest.raises(CardNotInHand):
        s.verify(Show("Dan", ("4D",)))  # the battezzante's
    full = new(seed=3)
    mine = full.holdings.hands["Anna"][0]
    full.apply(Show("Anna", (mine,)))
    with pytest.raises(CardNotInHand):
        full.apply(Show("Ben", (mine,)))


def test_waiting_for_and_copy():
    s = new(seed=3)
    assert s.waiting_for() == {"step": "declare", "player": s.battezzante}
    twin = s.copy()
    s.apply(Declare(s.battezzante, "D"))
    assert s.waiting_for() == {"step": "play", "player": s.battezzante, "trick": 1}
    assert twin.phase == "declare"
    s.apply(CallOut("Anna"))
    assert s.waiting_for() == {"step": "over"}
