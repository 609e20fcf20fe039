"""Identification of rectified crops against rendered templates."""

import cv2
import numpy as np
import pytest

from tests.cards.helpers import cloth, degrade, place, quad
from vision.cards import identify as I
from vision.cards.decks import card, faces, symbol_siblings
from vision.cards.geometry import order_corners
from vision.cards.identify import CardIdentifier
from vision.cards.rectify import rectify
from vision.cards.render import HELD_OUT_DESIGN, render_card
from vision.cards.templates import (
    UnknownDeck,
    builtin_names,
    load_deck,
    read_deck_folder,
    to_canonical,
    write_deck_folder,
)


def read_back(deck_name, design, cards, angle=0.0, seed=0, jitter=1.5):
    """Place each card in a photo (turned `angle`), degrade it, rectify from slightly wrong
    corners (as a detector gives them) and return the crops."""
    rng = np.random.default_rng(seed)
    crops = []
    for k, face in enumerate(cards):
        q = quad(480, 360, 300, angle + rng.uniform(-8, 8), skew=0.05)
        img = degrade(place(cloth(seed=k), face, q, design), seed=k)
        # corners as a detector that cannot tell up from down gives them: top edge up in the image
        seen = order_corners(q + rng.normal(0, jitter, q.shape).astype(np.float32))[0]
        crops.append(rectify(img, seen))
    return crops


@pytest.mark.parametrize("deck_name", ["beccato", "italian", "french52"])
def test_rendered_decks_identify_in_photos(deck_name):
    deck = load_deck(deck_name)
    cards = faces(deck_name)[::3]  # a third of each deck keeps the test fast
    crops = read_back(deck_name, "classic", cards, seed=len(deck_name))
    results = [deck.faces.identify(c) for c in crops]
    right = [r.label == c.face_key for r, c in zip(results, cards)]
    assert sum(right) >= len(cards) - 1, [
        (c.face_key, r.label) for r, c in zip(results, cards) if r.label != c.face_key
    ]
    assert np.median([r.confidence for r in results]) > 0.7


def test_upside_down_is_read_for_beccato_faces_and_unknown_for_symmetric_pips():
    deck = load_deck("beccato")
    cards = [c for c in faces("beccato") if c.kind in ("chicken", "egg", "signal")][::4]
    upright = [deck.faces.identify(c) for c in read_back("beccato", "classic", cards, 0)]
    turned = [deck.faces.identify(c) for c in read_back("beccato", "classic", cards, 180)]
    assert all(not r.upside_down and not r.symmetric for r in upright if r.label)
    assert sum(r.upside_down for r in turned) >= len(cards) - 1
    assert [r.label for r in turned].count(None) <= 1
    # built-in decks take the symmetry from the deck definitions: pips both ways, Beccato! none
    assert load_deck("italian").faces.symmetric.all() and not deck.faces.symmetric.any()


def test_a_crop_of_no_card_is_unknown():
    deck = load_deck("italian")
    rng = np.random.default_rng(3)
    noise = (rng.random((180, 120, 3)) * 255).astype(np.uint8)
    plain = np.full((180, 120, 3), (40, 120, 60), np.uint8)
    for crop in (noise, plain):
        r = deck.faces.identify(crop)
        assert r.label is None and not r.known


def test_possible_cards_resolve_a_near_tie_but_not_a_clear_read():
    # the hand-made features alone see 8C and 8S nearly alike (the embedding tells
    # them apart clearly: no tie there)
    faces_ = load_deck("french52").faces
    plain = CardIdentifier("french52", faces_.labels, faces_.images, card_ids=faces_.card_ids, embedder=None)
    crop = read_back("french52", "classic", [c for c in faces("french52") if c.id == "8C"], seed=5)[0]
    free = plain.identify(crop)
    assert free.label == "8C"
    # 8S looks nearly the same as 8C: when only 8S is still possible it wins the tie
    tie = plain.identify(crop, possible=["8S", "KD"])
    assert tie.label == "8S" and tie.possible is True
    # a face far from the crop is not forced: the clear read is kept and flagged impossible
    clear = plain.identify(crop, possible=["KD", "QH"])
    assert clear.label == "8C" and clear.possible is False


def test_copies_share_one_face_and_possible_takes_card_ids():
    deck = load_deck("beccato")
    assert "chicken:orloff" in deck.faces.labels
    assert deck.faces.label_of("chicken:orloff:2") == "chicken:orloff"
    assert len(deck.faces) == len(faces("beccato"))


def test_unknown_deck_is_a_named_error_listing_the_known(tmp_path):
    with pytest.raises(UnknownDeck) as err:
        load_deck("no-such-deck", tmp_path)
    assert "beccato" in err.value.details["known"] and "french52:outline" in err.value.details["known"]
    assert "no-such-deck" in str(err.value)
    assert {"beccato", "italian", "french52", "french40"} <= set(builtin_names())


def test_symbol_siblings_are_the_faces_that_differ_by_their_suit_symbol_alone():
    french = symbol_siblings("french52")
    assert len(french) == 10 and all(len(g) == 4 and len({k[:-1] for k in g}) == 1 for g in french)
    assert ("7S", "7H", "7D", "7C") in french and ("AS", "AH", "AD", "AC") in french
    # the figures are drawings of their own, in their suit's colours: not siblings
    assert not any(k[:-1] in ("J", "Q", "K") for g in french for k in g)
    assert len(symbol_siblings("italian")) == 7 and len(symbol_siblings("french40")) == 7
    assert not any(k[:-1] in ("F", "C", "R") for g in symbol_siblings("italian") for k in g)
    eggs = symbol_siblings("beccato")  # the four eggs of each number; chickens and henhouses are their own
    assert len(eggs) == 7 and all(k.startswith("egg:") for g in eggs for k in g)
    assert ("egg:dollar-3", "egg:star-3", "egg:moon-3", "egg:sun-3") in eggs


def test_the_grey_compared_between_siblings_parts_a_club_from_a_spade_more_than_a_shadow_does():
    """`CropFeatures.grey` has its local brightness and contrast out (`_contrast`): a club
    photographed dim, under a lamp's gradient or with a shadow's sharp edge across it (which
    `flat_field` leaves) stays nearer its drawn self than the spade is. The grey levels with only
    the smooth light divided out would put the shadowed club further from its template than
    from the spade's."""
    club, spade = (
        to_canonical(render_card(next(c for c in faces("french52") if c.id == k), HELD_OUT_DESIGN, 4.0))
        for k in ("9C", "9S")
    )
    h, w = club.shape[:2]
    photographed = [
        club * 0.5 + 60,
        club * np.linspace(0.5, 1.1, w)[None, :, None],
        club * np.where(np.arange(w) < w // 2, 0.55, 1.0)[None, :, None],  # a shadow down the middle
        club * np.where(np.arange(h) < h // 3, 0.6, 1.0)[:, None, None],
    ]  # ... across the top

    def corr(a, b, local=True):
        a, b = (np.clip(im, 0, 255).astype(np.uint8) for im in (a, b))
        if local:
            return float(np.corrcoef(I.CropFeatures.of(a).grey[0].ravel(), I.CropFeatures.of(b).grey[0].ravel())[0, 1])
        return float(
            np.corrcoef(I._grey(I._inner(I.flat_field(a))).ravel(), I._grey(I._inner(I.flat_field(b))).ravel())[0, 1]
        )

    lit = [corr(club, im) for im in photographed]
    assert min(lit) > 0.85 and corr(club, spade) < min(lit) - 0.05, (corr(club, spade), lit)
    assert corr(club, spade, local=False) > corr(club, photographed[2], local=False)  # without it


@pytest.mark.parametrize("rank", ["3", "7", "10"])
def test_a_drawn_deck_tells_blurred_outlined_clubs_from_spades_by_their_grey(rank):
    """Drawn templates' grey levels are the print's own: between a club and a spade the
    embedding cannot part, the grey of the crop is compared with each template blurred as much
    as the crop is (one blur for both). Small cards seen soft are read right both ways."""
    deck = load_deck(f"french52:{HELD_OUT_DESIGN}").faces
    lbl = deck.labels.index
    for suit, other in (("C", "S"), ("S", "C")):
        face = render_card(next(c for c in faces("french52") if c.id == rank + suit), HELD_OUT_DESIGN, 4.0)
        for width, blur in ((40, 2.5), (60, 3.0)):
            small = cv2.resize(face, (width, width * 3 // 2), interpolation=cv2.INTER_AREA)
            crop = to_canonical(cv2.GaussianBlur(cv2.resize(small, (120, 180)), (0, 0), blur))
            scores = deck.grey_similarity([lbl(rank + suit), lbl(rank + other)], [0, 0], deck.features(crop))
            assert scores[0] > scores[1] + 0.002, (rank, suit, width, scores)  # margins are small: GREY_TEMPERATURE
            read = deck.identify(crop, width=float(width))
            assert read.label == rank + suit and read.runner_up == rank + other, (rank, suit, width, read)


def test_a_second_look_s_read_is_as_like_the_deck_as_its_likest_candidate(monkeypatch):
    """The similarity cannot tell siblings apart: a blurred 2 of spades is a little nearer the 2 of
    clubs' template by it, and the second look names it the 2 of spades. Whether the crop is a card
    of this deck at all (`min_similarity`) is asked of the likest of the two, so a bar between
    their similarities leaves the read known."""
    deck = load_deck(f"french52:{HELD_OUT_DESIGN}").faces
    face = render_card(next(c for c in faces("french52") if c.id == "2S"), HELD_OUT_DESIGN, 4.0)
    small = cv2.resize(face, (50, 75), interpolation=cv2.INTER_AREA)
    crop = to_canonical(cv2.GaussianBlur(cv2.resize(small, (120, 180)), (0, 0), 2.0))
    s = deck.similarities(crop, width=50.0).max(axis=0)
    spade, club = s[deck.labels.index("2S")], s[deck.labels.index("2C")]
    assert club > spade
    monkeypatch.setattr(deck, "min_similarity", float(spade + club) / 2)  # the deck is shared: restored after
    read = deck.identify(crop, width=50.0)
    assert read.label == "2S" and read.runner_up == "2C" and read.similarity == pytest.approx(spade), read


def test_a_crop_cut_from_corners_that_missed_the_card_is_never_sure(monkeypatch):
    """A quad short of the card (its top sixth cut off, the cloth below taken in) can match one
    face far better than the others without looking much like it: the 9 of diamonds so cut reads
    as the 7 of diamonds at a confidence of 0.99 from the softmax alone. Under FIT_FOR_SURE its
    confidence stays under SURE, whatever the label; a well-cut crop is still sure."""
    deck = load_deck(f"french52:{HELD_OUT_DESIGN}").faces
    card = next(c for c in faces("french52") if c.id == "9D")
    image = place(cloth(), card, quad(480, 360, 300), HELD_OUT_DESIGN)
    whole, short = quad(480, 360, 300), quad(480, 390, 270)

    def read(q):
        return deck.identify(rectify(image, q), width=float(np.linalg.norm(q[1] - q[0])))

    good, bad = read(whole), read(short)
    assert good.label == "9D" and good.confidence >= I.SURE and good.similarity >= I.FIT_FOR_SURE
    assert bad.similarity < I.FIT_FOR_SURE and bad.confidence < I.SURE
    monkeypatch.setattr(I, "FIT_FOR_SURE", -1.0)
    assert read(short).confidence >= I.SURE  # what the softmax alone said


def test_siblings_printed_alike_are_left_to_the_second_look_and_those_in_other_colours_are_not(tmp_path, monkeypatch):
    """A deck with a base (built in, or enrolled with one) pairs its faces that differ by their
    suit symbol alone and are printed in one colour: the 7 of clubs with the 7 of spades, not
    with the 7 of hearts; a deck enrolled without a base pairs none of them by the deck."""
    deck = load_deck("french52").faces
    lbl = deck.labels.index
    assert deck._blind[lbl("7C"), lbl("7S")]
    assert not deck._blind[lbl("7H"), lbl("7D")]  # this printing's hearts and diamonds are two reds
    outline = load_deck("french52:outline").faces
    assert outline._blind[outline.labels.index("7H"), outline.labels.index("7D")]  # one red
    # A photo's light tints one template's black pips (enrolled, one photo per card): still a pair
    tinted = deck.images[lbl("7S")].astype(np.float32)
    tinted[tinted.mean(axis=2) < 128] += (30.0, 0.0, -15.0)
    tinted = np.clip(tinted, 0, 255).astype(np.uint8)
    lit = I.CardIdentifier("lit", ["7C", "7S"], [deck.images[lbl("7C")], tinted], siblings=[("7C", "7S")])
    ink = lit._levels[None].ink
    assert 15.0 < float(np.linalg.norm(ink[1] - ink[0])) <= I.SIBLING_INK
    assert lit._blind[0, 1]
    # only the deck's word pairs faces now (no embeddings or hand-made scores alike enough)
    monkeypatch.setattr(I, "EMBED_BLIND", 2.0)
    monkeypatch.setattr(I, "HAND_ALIKE", 2.0)
    chosen = {k: deck.images[lbl(k)] for k in ("7C", "7S", "7H", "8C", "9D")}
    with_base = read_deck_folder(write_deck_folder(tmp_path / "a", "a", chosen, {}, base="french52")).faces
    without = read_deck_folder(write_deck_folder(tmp_path / "b", "b", chosen, {})).faces
    assert with_base.labels == without.labels
    pairs = {
        (a, b)
        for i, a in enumerate(with_base.labels)
        for j, b in enumerate(with_base.labels)
        if i != j and with_base._blind[i, j]
    }
    assert pairs == {("7C", "7S"), ("7S", "7C")}, pairs
    assert not (without._blind & ~np.eye(len(without), dtype=bool)).any()


def test_the_second_look_takes_in_the_siblings_of_every_face_it_weighs(monkeypatch):
    """Under a red lamp a 5 of spades is first most like the 5 of diamonds, then the 5 of clubs.
    Enrolled from photos, the diamond may be alike to the club (their templates' light) but not
    to the spade: the spade still belongs to the second look, as the club's sibling; left out,
    the second look could only name the club (a crisp card read wrong, and sure)."""
    deck = load_deck("french52:outline").faces
    i = deck.labels.index
    blind = np.eye(len(deck), dtype=bool)
    for a, b in (("5D", "5H"), ("5D", "5C"), ("5C", "5S")):
        blind[i(a), i(b)] = blind[i(b), i(a)] = True
    monkeypatch.setattr(deck, "_blind", blind)
    near = np.zeros(len(deck))
    near[[i(k) for k in ("5D", "5C", "5H", "5S", "4C")]] = (0.9, 0.8, 0.75, 0.74, 0.73)
    monkeypatch.setattr(deck, "_symbol", np.eye(len(deck), dtype=bool))  # colours apart: not this test
    assert deck._second_look_candidates(near, np.ones(len(deck), bool)) == [i(k) for k in ("5D", "5C", "5H", "5S")]
    q = quad(480, 360, 300, 5, skew=0.03)
    lit = place(cloth(seed=1), card("french52", "5S"), q, "outline").astype(np.float32)
    lit[..., 2] *= 1.3  # a red lamp
    lit[..., 0] /= 1.3**0.5
    crop = rectify(degrade(np.clip(lit, 0, 255).astype(np.uint8), seed=1), q)
    sims = deck.similarities(crop).max(axis=0)
    first = [deck.labels[j] for j in np.argsort(-sims)[:3]]
    assert first[0] == "5D" and sims[i("5C")] > sims[i("5S")], first
    assert deck.identify(crop).label == "5S"


def test_siblings_of_another_colour_in_a_near_tie_go_to_the_second_look_too(monkeypatch):
    """Under a magenta light the first look finds a 7 of spades nearest the 7 of diamonds, the
    spade a near second: it cannot tell which colour the print is. The faces that differ by
    their suit symbol alone join the second look whatever their colours when they are that near
    (`refine_margin`), and the spade's shape decides; with siblings of one colour alone, the
    diamond was named."""
    deck = load_deck("french52:outline").faces
    q = quad(480, 360, 200, 5, skew=0.03)
    lit = place(cloth(seed=1), card("french52", "7S"), q, "outline").astype(np.float32) * np.float32((0.9, 0.75, 1.25))
    crop = rectify(degrade(np.clip(lit, 0, 255).astype(np.uint8), seed=1, blur=1.2), q)
    width = 200 * 63 / 88
    sims = deck.similarities(crop, width=width).max(axis=0)
    i = deck.labels.index
    assert int(np.argmax(sims)) == i("7D") and sims[i("7D")] - sims[i("7S")] < deck.settings.refine_margin
    assert not deck._blind[i("7D"), i("7S")] and deck._symbol[i("7D"), i("7S")]
    read = deck.identify(crop, width=width)
    assert read.label == "7S" and read.confidence >= 0.9, read
    monkeypatch.setattr(deck, "_symbol", np.eye(len(deck), dtype=bool))  # siblings of one colour only
    assert deck.identify(crop, width=width).label == "7D"
