"""The card embedding (vision/cards/embed.py): the shipped model, what it tells apart in a
printing it never saw, and identification without it."""

import numpy as np
import pytest

from tests.cards.helpers import assert_runs_without_torch, cloth, degrade, place, quad
from vision.cards import embed as E
from vision.cards import identify as I
from vision.cards.decks import faces
from vision.cards.detector import ModelNotFound
from vision.cards.geometry import order_corners
from vision.cards.rectify import rectify
from vision.cards.render import HELD_OUT_DESIGN, render_card
from vision.cards.templates import load_deck, to_canonical


def photos(deck_name, cards, design, seed=0, height=150, jitter=2.0):
    """Each card placed on a cloth (turned a little), degraded, and cut out again from corners
    a few pixels off."""
    rng = np.random.default_rng(seed)
    out = []
    for k, card in enumerate(cards):
        q = quad(480, 360, height, rng.uniform(-20, 20), skew=0.05)
        img = degrade(place(cloth(seed=k), card, q, design), seed=k, blur=1.0)
        seen = order_corners(q + rng.normal(0, jitter, q.shape).astype(np.float32))[0]
        out.append(rectify(img, seen))
    return out


@pytest.fixture(scope="module")
def embedder():
    e = E.default_embedder()
    assert e is not None, f"the shipped model is missing: {E.MODEL_PATH}"
    return e


def test_shipped_model_gives_unit_vectors_alike_one_at_a_time_or_in_a_batch(embedder):
    cards = faces("italian")[:3]
    crops = [to_canonical(render_card(c, "classic", 4.0)) for c in cards]
    batch = embedder.embed(crops)
    assert batch.shape == (3, embedder.dim) and embedder.dim >= 32
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-4)
    one = embedder.embed([crops[1]])[0]
    assert np.allclose(one, batch[1], atol=1e-4)
    assert embedder.embed([]).shape == (0, embedder.dim)


@pytest.mark.parametrize("deck_name", ["beccato", "italian", "french52"])
def test_tells_apart_the_faces_of_a_printing_it_never_saw(embedder, deck_name):
    """The held-out printing ("outline": outlined pips, another font) was never in training.
    By the embedding alone, the nearest rendered face is the right one; for the French
    deck the rank always (clubs against spades in outlined pips are its known weak spot,
    docs/card-reading.md), the suit mostly."""
    cards = faces(deck_name)
    pick = (
        cards[::4]
        if deck_name != "french52"
        else [c for c in cards if c.id.endswith(("C", "S")) and c.id[:-1] in ("3", "6", "8", "10", "K")]
    )
    refs = embedder.embed([to_canonical(render_card(c, HELD_OUT_DESIGN, 4.0)) for c in cards])
    got = embedder.embed(photos(deck_name, pick, HELD_OUT_DESIGN, seed=4))
    nearest = [cards[int(j)] for j in np.argmax(got @ refs.T, axis=1)]
    wrong = [(c.face_key, n.face_key) for n, c in zip(nearest, pick) if n.face_key != c.face_key]
    if deck_name == "french52":
        assert all(n.rank == c.rank for n, c in zip(nearest, pick)), wrong
        assert len(wrong) <= len(pick) // 2, wrong
    else:
        assert len(wrong) <= 1, wrong


def test_templates_use_it_by_default_and_read_without_it(monkeypatch):
    deck = load_deck("french52")
    assert deck.faces.embedder is not None and deck.backs.embedder is None
    cards = [c for c in faces("french52") if c.id in ("7H", "QS", "2D")]
    crops = photos("french52", cards, "classic", seed=2)
    plain = I.CardIdentifier("plain", deck.faces.labels, deck.faces.images, embedder=None)
    for t in (deck.faces, plain):
        assert [t.identify(c).label for c in crops] == [c.face_key for c in cards]
    # with the model file missing, the default is the hand-made features alone
    monkeypatch.setattr(E, "MODEL_PATH", E.MODEL_PATH.with_name("missing.onnx"))
    E.default_embedder.cache_clear()
    try:
        assert I.CardIdentifier("x", ["a"], [crops[0]]).embedder is None
    finally:
        E.default_embedder.cache_clear()


def test_a_missing_model_file_is_a_named_error(tmp_path):
    with pytest.raises(ModelNotFound):
        E.CardEmbedder(tmp_path / "nope.onnx")


def test_identification_never_imports_torch():
    code = (
        "import sys\n"
        "from vision.cards.templates import load_deck\n"
        "from vision.cards.render import render_card\n"
        "from vision.cards.decks import faces\n"
        "from vision.cards.templates import to_canonical\n"
        "d = load_deck('italian')\n"
        "c = faces('italian')[5]\n"
        "r = d.faces.identify(to_canonical(render_card(c, 'classic', 4.0)))\n"
        "assert d.faces.embedder is not None and r.label == c.face_key, r\n"
    )
    assert_runs_without_torch(code)


def test_faces_it_cannot_tell_apart_are_left_to_the_second_look(embedder):
    """Outlined clubs and spades look alike to the embedding (their templates' vectors
    nearly equal); identification then decides between them by their grey (`grey_similarity`),
    and reads them right where the embedding alone does not."""
    deck = load_deck(f"french52:{HELD_OUT_DESIGN}").faces
    cards = [c for c in faces("french52") if c.id.endswith(("C", "S")) and c.id[:-1] in ("2", "3", "6", "8", "10", "K")]
    crops = photos("french52", cards, HELD_OUT_DESIGN, seed=4)
    alone = [deck.labels[int(j)] for j in np.argmax(embedder.embed(crops) @ deck._emb.T, axis=1)]
    read = [deck.identify(c).label for c in crops]
    truth = [c.face_key for c in cards]
    assert sum(a != t for a, t in zip(alone, truth)) >= 2  # what the embedding alone gets wrong
    assert sum(r == t for r, t in zip(read, truth)) >= len(cards) - 1, list(zip(truth, read))


def test_between_such_faces_their_grey_decides_whatever_light_the_templates_were_photographed_in():
    """The second look between faces the embedding cannot tell apart correlates their
    grey with the local brightness and contrast out: a lamp's gradient, a shadow's edge and a
    colour cast across a template (enrolled from a photo) leave it nearly unchanged, and it tells
    each outlined club from its spade."""
    cards = [c for c in faces("french52") if c.id.endswith(("C", "S")) and c.id[:-1] in ("3", "6", "10")]
    clean = photos("french52", cards, HELD_OUT_DESIGN, seed=6, height=300, jitter=0.5)
    h, w = clean[0].shape[:2]
    lamp = np.linspace(0.55, 1.1, w)[None, :, None] * np.linspace(1.1, 0.8, h)[:, None, None]
    lamp = lamp * np.where(np.arange(h) < h // 3, 0.7, 1.0)[:, None, None]  # and a shadow's edge
    lit = [np.clip(im * lamp * [1.0, 0.9, 1.15], 0, 255).astype(np.uint8) for im in clean]  # and a colour cast
    deck = I.CardIdentifier("enrolled", [c.face_key for c in cards], lit)
    assert (
        np.corrcoef(I.CropFeatures.of(clean[0]).grey[0].ravel(), I.CropFeatures.of(lit[0]).grey[0].ravel())[0, 1] > 0.85
    )
    crops = photos("french52", cards, HELD_OUT_DESIGN, seed=9, height=110)
    right = []
    for card, crop in zip(cards, crops):
        partner = card.face_key[:-1] + ("S" if card.face_key.endswith("C") else "C")
        i, j = deck.labels.index(card.face_key), deck.labels.index(partner)
        feats = deck.features(crop)
        both = [max(deck.grey_similarity([n], [r], feats)[0] for r in (0, 1)) for n in (i, j)]
        right.append(both[0] > both[1])
    assert sum(right) >= len(cards) - 1, right
    read = [deck.identify(c).label for c in crops]
    assert sum(r == c.face_key for r, c in zip(read, cards)) >= len(cards) - 1, read
