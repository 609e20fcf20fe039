"""Topic spotting: which Signal-card topic (TV shows, games, sport) a stretch of talk is about.

Words heard are matched against keyword stems in English and Italian ("stem*" matches words
starting with it; a bare word matches exactly; "two words" matches a phrase). Words of the game
itself (cards, chickens, eggs, Coccodé, turn, deck...) never count, even when they look like a
topic word. Hits are voted over a window of seconds: the topic with the most hits wins; a single
hit, or a tie, is reported as unsure.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from vision.audio.recognize import Word

TOPICS = ("talk_tv", "talk_games", "talk_sport")

STEMS: dict[str, dict[str, tuple[str, ...]]] = {
    "talk_sport": {
        "en": (
            "sport*",
            "football*",
            "soccer*",
            "tennis*",
            "basketball*",
            "baseball*",
            "volleyball*",
            "rugby*",
            "hockey*",
            "golf*",
            "goal",
            "goals",
            "goalkeeper*",
            "striker*",
            "penalt*",
            "league*",
            "championship*",
            "olympic*",
            "athlet*",
            "marathon*",
            "race",
            "races",
            "racing",
            "bike*",
            "cycling",
            "cyclist*",
            "swimming",
            "swimmer*",
            "stadium*",
            "coach*",
            "match",
            "matches",
            "tournament*",
            "world cup",
            "half time",
            "juventus",
            "ferrari",
            "formula one",
            "messi",
            "skiing",
            "boxing",
            "fans",
        ),
        "it": (
            "sport*",
            "calci*",
            "gol",
            "squadr*",
            "campionat*",
            "allenator*",
            "rigor*",
            "juventus",
            "juve",
            "tennis",
            "basket",
            "pallavol*",
            "ciclism*",
            "olimpi*",
            "stadi*",
            "tifos*",
            "attaccant*",
            "portier*",
            "serie a",
            "formula uno",
            "ferrari",
            "nuoto",
            "maratona",
            "scudetto",
            "coppa*",
        ),
    },
    "talk_tv": {
        "en": (
            "tv",
            "television*",
            "televis*",
            "episode*",
            "series",
            "shows",
            "the show",
            "cooking show",
            "sitcom*",
            "channel*",
            "netflix",
            "movie*",
            "film",
            "films",
            "actor*",
            "actress*",
            "documentar*",
            "cartoon*",
            "news",
            "program",
            "programs",
            "programme*",
            "soap opera",
            "reality show",
            "binge*",
            "streaming",
            "broadcast*",
            "presenter*",
            "quiz show",
            "talk show",
        ),
        "it": (
            "tv",
            "televis*",
            "film",
            "serie",
            "puntat*",
            "episodi*",
            "programm*",
            "telegiornal*",
            "canal*",
            "attor*",
            "attric*",
            "sanremo",
            "fiction",
            "cartoni",
            "cartone animato",
            "documentari*",
            "reality",
            "netflix",
            "conduttor*",
            "stagion*",
        ),
    },
    "talk_games": {
        "en": (
            "chess",
            "poker",
            "monopoly",
            "scrabble",
            "puzzle*",
            "console*",
            "videogame*",
            "video game",
            "video games",
            "board game",
            "board games",
            "nintendo",
            "playstation",
            "xbox",
            "minecraft",
            "fortnite",
            "zelda",
            "tetris",
            "sudoku",
            "crossword*",
            "checkers",
            "backgammon",
            "solitaire",
            "arcade*",
            "joystick*",
            "controller*",
            "gamer*",
            "gaming",
            "dice",
            "lego",
        ),
        "it": (
            "videogioc*",
            "scacchi",
            "poker",
            "monopoli",
            "console",
            "playstation",
            "nintendo",
            "xbox",
            "puzzle",
            "cruciverb*",
            "sudoku",
            "tombola",
            "dadi",
            "giochi da tavolo",
            "gioco da tavolo",
            "lego",
        ),
    },
}

# Words of the game being played (Beccato!, Beccaccino, Bestia): never a topic.
GAME_WORDS: dict[str, tuple[str, ...]] = {
    "en": (
        "card*",
        "chicken*",
        "egg",
        "eggs",
        "rooster*",
        "hen",
        "hens",
        "coccod*",
        "cocco*",
        "cock*",
        "chicchiri*",
        "beccat*",
        "caught",
        "catch",
        "deck*",
        "shuffl*",
        "deal*",
        "turn*",
        "trick*",
        "trump*",
        "suit*",
        "hand",
        "hands",
        "game",
        "games",
        "play",
        "plays",
        "played",
        "playing",
        "player",
        "players",
        "win*",
        "won",
        "round*",
        "point*",
        "score*",
        "ace*",
        "king*",
        "queen*",
        "jack*",
        "knave*",
        "signal*",
        "partner*",
        "team",
        "teams",
        "draw*",
        "discard*",
        "pass",
        "bid*",
        "bet*",
        "pot",
    ),
    "it": (
        "carta",
        "carte",
        "gallin*",
        "poll*",
        "uov*",
        "uova",
        "gallo",
        "coccod*",
        "chicchiri*",
        "beccat*",
        "beccacc*",
        "marafon*",
        "bestia",
        "mazz*",
        "turn*",
        "gioc*",
        "partit*",
        "briscol*",
        "asso",
        "fant*",
        "cavall*",
        "punto",
        "punti",
        "punteggio",
        "vinc*",
        "vins*",
        "mano",
        "mescol*",
        "tocca",
        "segnal*",
        "compagn*",
        "squadra",
        "pesc*",
        "scart*",
        "giro",
        "mani",
    ),
}


def _matches(word: str, stem: str) -> bool:
    return word.startswith(stem[:-1]) if stem.endswith("*") else word == stem


def is_game_word(word: str, langs: Iterable[str] = ("en", "it")) -> bool:
    w = word.lower()
    return any(_matches(w, s) for lang in langs for s in GAME_WORDS[lang])


@dataclasses.dataclass(frozen=True)
class TopicHit:
    topic: str
    words: str  # the word or phrase that matched
    stem: str
    start: float
    end: float
    prob: float


def hits(words: Sequence[Word], langs: Iterable[str] = ("en", "it")) -> list[TopicHit]:
    """Topic keywords among the words heard (phrases first), game words excluded."""
    langs = tuple(langs)
    phrases = [(t, s) for t in TOPICS for lang in langs for s in STEMS[t][lang] if " " in s]
    singles = [(t, s) for t in TOPICS for lang in langs for s in STEMS[t][lang] if " " not in s]
    out: list[TopicHit] = []
    used = [False] * len(words)
    texts = [w.text.lower() for w in words]
    for topic, phrase in phrases:
        parts = phrase.split()
        for i in range(len(words) - len(parts) + 1):
            if any(used[i : i + len(parts)]):
                continue
            if all(_matches(texts[i + j], p) for j, p in enumerate(parts)):
                span = words[i : i + len(parts)]
                out.append(
                    TopicHit(
                        topic,
                        " ".join(texts[i : i + len(parts)]),
                        phrase,
                        span[0].start,
                        span[-1].end,
                        min(w.prob for w in span),
                    )
                )
                for j in range(len(parts)):
                    used[i + j] = True
    for i, w in enumerate(words):
        if used[i] or is_game_word(texts[i], langs):
            continue
        for topic, stem in singles:
            if _matches(texts[i], stem):
                out.append(TopicHit(topic, texts[i], stem, w.start, w.end, w.prob))
                break
    return sorted(out, key=lambda h: h.start)


@dataclasses.dataclass(frozen=True)
class TopicVote:
    topic: str
    start: float
    end: float
    tally: dict
    hits: tuple[TopicHit, ...]
    confidence: float
    unsure: bool


def vote(topic_hits: Sequence[TopicHit], window: float = 8.0) -> list[TopicVote]:
    """Group hits no more than `window` seconds apart; each group votes for one topic."""
    groups: list[list[TopicHit]] = []
    for h in sorted(topic_hits, key=lambda h: h.start):
        if groups and h.start - groups[-1][-1].end <= window:
            groups[-1].append(h)
        else:
            groups.append([h])
    out = []
    for g in groups:
        tally = {t: sum(1 for h in g if h.topic == t) for t in TOPICS}
        ranked = sorted(tally.items(), key=lambda kv: -kv[1])
        (top, n), (_, second) = ranked[0], ranked[1]
        total = sum(tally.values())
        confidence = n / (total + 1.0)
        out.append(
            TopicVote(
                top,
                g[0].start,
                g[-1].end,
                {k: v for k, v in tally.items() if v},
                tuple(h for h in g if h.topic == top),
                round(confidence, 3),
                unsure=(n < 2 or n == second),
            )
        )
    return out
