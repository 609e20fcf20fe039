"""Topic keywords, game words and voting (no audio: words as the recognizer would give them)."""

from hypothesis import given
from hypothesis import strategies as st

from vision.audio.recognize import Word
from vision.audio.topics import GAME_WORDS, STEMS, TOPICS, hits, is_game_word, vote


def words(text: str, start: float = 0.0, step: float = 0.3) -> list[Word]:
    return [Word(w, start + i * step, start + (i + 1) * step, 0.9) for i, w in enumerate(text.split())]


def test_english_sentences():
    assert [h.topic for h in hits(words("did you watch the football match"))] == ["talk_sport"] * 2
    assert [h.topic for h in hits(words("the last episode on television"))] == ["talk_tv"] * 2
    assert [h.topic for h in hits(words("i played chess yesterday"))] == ["talk_games"]


def test_italian_sentences():
    assert {h.topic for h in hits(words("hai visto la partita di calcio"), ["it"])} == {"talk_sport"}
    assert {h.topic for h in hits(words("stasera in televisione un bel film"), ["it"])} == {"talk_tv"}
    assert {h.topic for h in hits(words("un nuovo videogioco"), ["it"])} == {"talk_games"}


def test_phrases_beat_game_words():
    """'game' alone is the game at the table; 'video game' is a topic."""
    assert hits(words("good game")) == []
    assert [h.words for h in hits(words("a new video game"))] == ["video game"]
    # Italian 'serie a' is football, not a TV series
    assert [h.topic for h in hits(words("la serie a"), ["it"])] == ["talk_sport"]


def test_game_talk_never_counts():
    talk = "coccode i play two chickens and one egg caught you with the rooster card your turn"
    assert hits(words(talk)) == []
    assert hits(words("tocca a te gioca la carta della gallina e due uova"), ["it"]) == []


game_words = [s.rstrip("*") for lang in GAME_WORDS.values() for s in lang]


@given(st.lists(st.sampled_from(game_words), max_size=20))
def test_any_sequence_of_game_words_spots_nothing(ws):
    assert hits(words(" ".join(ws))) == []


def test_no_topic_stem_is_a_game_word():
    for topic in TOPICS:
        for lang, stems in STEMS[topic].items():
            for s in stems:
                if " " not in s:
                    assert not is_game_word(s.rstrip("*"), [lang]), (topic, lang, s)


def test_vote_needs_two_hits_to_be_sure_and_breaks_ties_as_unsure():
    v = vote(hits(words("football goals")))
    assert len(v) == 1 and v[0].topic == "talk_sport" and not v[0].unsure
    assert v[0].confidence > 0.6
    (one,) = vote(hits(words("the tennis final")))
    assert one.unsure
    (tie,) = vote(hits(words("football on television")))
    assert tie.unsure and tie.tally == {"talk_sport": 1, "talk_tv": 1}


def test_vote_window_splits_far_apart_talk():
    ws = words("football", 0.0) + words("television series", 30.0)
    v = vote(hits(ws), window=8.0)
    assert [x.topic for x in v] == ["talk_sport", "talk_tv"]
    assert len(vote(hits(ws), window=60.0)) == 1
