"""Enrolling a deck from photos (the contour finder here; the detector in test_pipeline) and the
named reasons a photo is rejected."""

import cv2
import numpy as np
import pytest

from tests.cards.helpers import cloth, degrade, place, quad
from vision.cards import enroll as E
from vision.cards.decks import faces
from vision.cards.rectify import rectify
from vision.cards.templates import load_deck

CARDS = [c for c in faces("italian") if c.rank in ("A", "1", "7", "R")]
assert len(CARDS) == 12


def photo(card, seed=0, design="outline", angle=0.0):
    return degrade(place(cloth(seed=seed), card, quad(480, 360, 420, angle, aspect=58 / 98), design), seed=seed)


def write_photos(folder, cards, design="outline"):
    paths = []
    for k, card in enumerate(cards):
        p = folder / f"{card.face_key}.jpg"
        cv2.imwrite(str(p), photo(card, k, design))
        paths.append(p)
    return paths


def test_enroll_one_photo_per_card_then_identify(tmp_path):
    paths = write_photos(tmp_path, CARDS)
    res = E.enroll_deck("my-italian", paths, decks_dir=tmp_path / "decks")
    assert res.labels == [c.face_key for c in CARDS]
    assert res.methods == {"contour": len(CARDS)}
    deck = load_deck("my-italian", tmp_path / "decks")
    assert deck.source.endswith("my-italian") and len(deck.faces) == len(CARDS)
    # a new photo of each card (another angle, other noise) reads as that card
    for k, card in enumerate(CARDS):
        img = degrade(place(cloth(seed=50 + k), card, quad(400, 330, 380, 12, aspect=58 / 98), "outline"), seed=50 + k)
        q = E.find_quads_by_contour(img)
        assert len(q) == 1

        r = deck.faces.identify(rectify(img, q[0]))
        assert r.label == card.face_key, (card.face_key, r)


def test_enroll_a_sheet_in_reading_order(tmp_path):
    cards = CARDS[:6]
    sheet = cloth(h=900, w=1200, seed=9)
    for k, card in enumerate(cards):  # two rows of three
        sheet = place(
            sheet, card, quad(220 + 380 * (k % 3), 230 + 440 * (k // 3), 360, 3 * (k - 2), aspect=58 / 98), "outline"
        )
    p = tmp_path / "sheet.png"
    cv2.imwrite(str(p), degrade(sheet))
    res = E.enroll_deck("sheet-deck", [p], labels=[c.face_key for c in cards], per_photo=6, decks_dir=tmp_path)
    deck = load_deck("sheet-deck", tmp_path)
    for card in cards:
        i = deck.faces.labels.index(card.face_key)
        assert deck.faces.identify(deck.faces.images[i]).label == card.face_key
    assert len(res.labels) == 6


def test_mistaken_photos_are_rejected_by_name_and_nothing_is_written(tmp_path):
    good = write_photos(tmp_path, CARDS[:2])
    empty = tmp_path / "nothing.jpg"
    cv2.imwrite(str(empty), cloth(seed=3))
    two = tmp_path / "two.jpg"
    img = place(cloth(seed=4), CARDS[2], quad(250, 360, 380, aspect=58 / 98), "outline")
    cv2.imwrite(str(two), place(img, CARDS[3], quad(700, 360, 380, aspect=58 / 98), "outline"))
    blurry = tmp_path / "blurry.jpg"
    cv2.imwrite(str(blurry), cv2.GaussianBlur(photo(CARDS[4], 5), (0, 0), 6))
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a jpeg at all")
    decks = tmp_path / "decks"
    with pytest.raises(E.EnrollmentRejected) as err:
        E.enroll_deck("bad", good + [empty, two, blurry], decks_dir=decks)
    reasons = {r["photo"]: r["reason"] for r in err.value.details["rejected"]}
    assert reasons == {"nothing.jpg": "NoCardFound", "two.jpg": "TooManyCards", "blurry.jpg": "BlurryPhoto"}
    with pytest.raises(E.EnrollmentRejected) as err:
        E.enroll_deck("bad", good + [broken], decks_dir=decks)
    assert err.value.details["rejected"][0]["reason"] == "UnreadableImage"
    assert not (decks / "bad").exists()


def test_empty_enrollment_and_other_named_errors(tmp_path):
    with pytest.raises(E.EmptyEnrollment):
        E.enroll_deck("nothing", [], decks_dir=tmp_path)
    paths = write_photos(tmp_path, CARDS[:2])
    unnamed = []
    for k, p in enumerate(paths):  # names that give no card: the guided order, which needs 40
        unnamed.append(p.with_name(f"photo_{k + 1}.jpg"))
        unnamed[-1].write_bytes(p.read_bytes())
    with pytest.raises(E.PhotoCountMismatch):
        E.enroll_deck("short", unnamed, base="italian", decks_dir=tmp_path)  # 40 cards, 2 photos
    E.enroll_deck("twice", paths, decks_dir=tmp_path)
    with pytest.raises(E.DeckExists):
        E.enroll_deck("twice", paths, decks_dir=tmp_path)
    E.enroll_deck("twice", paths[::-1], decks_dir=tmp_path, replace=True)
    assert load_deck("twice", tmp_path).faces.labels == [CARDS[1].face_key, CARDS[0].face_key]


def test_guide_and_sharpness_measure():
    lines = E.guide("italian", per_photo=10)
    assert len(lines) == 4 and lines[0].startswith("photo 1: AC (Asso")
    sharp = photo(CARDS[0])
    q = E.find_quads_by_contour(sharp)[0]
    assert E.sharpness(sharp, q) > E.MIN_SHARPNESS > E.sharpness(cv2.GaussianBlur(sharp, (0, 0), 6), q)


def test_a_card_of_the_wrong_proportions_is_rejected():
    italian = E.deck_aspect("italian")
    assert italian == pytest.approx(58 / 98)
    square_ish = degrade(place(cloth(seed=8), CARDS[0], quad(480, 360, 420, aspect=0.75), "outline"), seed=8)
    with pytest.raises(E.BadCardShape):
        E.find_cards(square_ish, None, aspect=italian)
    assert len(E.find_cards(photo(CARDS[0]), None, aspect=italian)) == 1


@pytest.mark.parametrize("angle", [0.0, 8.0, -11.0])
def test_a_photos_card_is_cut_from_its_corners_within_half_a_percent(angle):
    """The contour finder's outline cuts the rounded corners; the sides fitted to the paper's
    edges meet in the card's own corners (a template is only as good as its corners)."""
    truth = quad(480, 360, 420, angle, aspect=58 / 98)
    img = degrade(place(cloth(seed=3), CARDS[5], truth, "outline"), seed=3)
    found = E.find_cards(img, None, 1, aspect=58 / 98)[0]
    diag = float(np.linalg.norm(truth[0] - truth[2]))
    err = min(float(np.linalg.norm(np.roll(found.corners, k, axis=0) - truth, axis=1).mean()) for k in range(4)) / diag
    assert err < 0.005, err


@pytest.mark.parametrize(
    "name, base, card",
    [
        ("4S.jpg", "french52", "4S"),
        ("spades_4.jpg", "french52", "4S"),
        ("clubs_10.jpg", "french52", "10C"),
        ("clubs_1.jpg", "french52", "AC"),
        ("queen_of_hearts.png", "french52", "QH"),
        ("10h.JPG", "french52", "10H"),
        ("4 di coppe.jpg", "italian", "4C"),
        ("re_di_bastoni.jpg", "italian", "RB"),
        ("8c.jpg", "italian", "FC"),  # a scan's name: 8 is the fante
        ("IMG_2383.JPG", "french52", None),
        ("8C.jpg", "french40", None),  # no eights in a 40-card deck
        ("photo_4.jpg", "french52", None),
    ],
)
def test_a_photos_card_comes_from_its_file_name(name, base, card):
    assert E.card_from_file_name(name, base) == card


def test_names_give_the_cards_and_an_order_not_sure_is_refused(tmp_path):
    cards = CARDS[:3]
    names = ["asso di coppe.jpg", "7_di_coppe.jpg", "re di coppe.jpg"]
    assert [c.face_key for c in cards] == ["AC", "7C", "RC"]
    paths = []
    for k, (card, n) in enumerate(zip(cards, names)):
        paths.append(tmp_path / n)
        cv2.imwrite(str(paths[-1]), photo(card, k))
    # given in another order than the deck's, each named card is taught as the card it names
    res = E.enroll_deck("named", paths[::-1], base="italian", decks_dir=tmp_path / "decks")
    assert res.labels == ["RC", "7C", "AC"]
    assert (res.folder / E.CONTACT_SHEET).is_file()  # what was learnt, to look at
    sheet = cv2.imread(str(res.folder / E.CONTACT_SHEET))
    assert sheet is not None and sheet.shape[1] > 3 * 120
    other = tmp_path / "IMG_0001.jpg"
    other.write_bytes(paths[0].read_bytes())
    with pytest.raises(E.UnsureOrder) as err:
        E.enroll_deck("mixed", paths[1:] + [other], base="italian", decks_dir=tmp_path / "decks")
    assert "IMG_0001.jpg" in err.value.message
    twice = tmp_path / "asso_coppe.jpg"
    twice.write_bytes(paths[0].read_bytes())
    with pytest.raises(E.DuplicateCard):
        E.enroll_deck("twice", [paths[0], twice], base="italian", decks_dir=tmp_path / "decks")


def test_a_card_cut_off_by_the_photos_edge_is_refused():
    img = photo(CARDS[0])
    with pytest.raises(E.CardCutOff):
        E.find_cards(img[:, :560], None, aspect=58 / 98)  # the card's right part is out of the photo


def test_a_card_broken_into_parts_is_found_whole_by_its_outline():
    truth = quad(480, 360, 420, 0.0, aspect=58 / 98)
    img = photo(CARDS[4])
    top = np.float32([truth[0], truth[1], (truth[1] + truth[2]) / 2, (truth[0] + truth[3]) / 2])
    bottom = np.float32([(truth[0] + truth[3]) / 2, (truth[1] + truth[2]) / 2, truth[2], truth[3]])
    whole = E.whole_card(img, np.stack([top, bottom]), 58 / 98)
    assert whole is not None
    diag = float(np.linalg.norm(truth[0] - truth[2]))
    assert float(np.linalg.norm(whole - truth, axis=1).max()) / diag < 0.02
