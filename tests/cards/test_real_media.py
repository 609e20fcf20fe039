"""Cards on real photos (tests/fixtures/cards_real, see its ATTRIBUTION.md): floors a little
under the figures `scripts/eval_real_media.py` measures (docs/card-reading.md, "Real media"),
so that a regression fails. The fast tests read a fixed handful of photos; the whole set is
`-m slow`.

The held-out split (files whose first number is a multiple of 3) is measured here like the
tune split, and nothing was chosen on it.
"""

import cv2
import numpy as np
import pytest

from vision.cards import enroll as E
from vision.cards import real_eval as R
from vision.cards.detections import CardDetections
from vision.cards.detector import CardDetector
from vision.cards.light import flat_field
from vision.cards.rectify import rectify
from vision.cards.suits import suit_of

FEW = ("IMG_2561.JPG", "IMG_2564.JPG", "IMG_2395.JPG", "IMG_2383.JPG", "cam_image5.jpg", "cam_image6.jpg")


@pytest.fixture(scope="module")
def detector():
    return CardDetector()


def test_the_split_is_fixed_by_the_file_name():
    assert R.split_of("IMG_2433.JPG") == "held_out" and R.split_of("cam_image45.jpg") == "held_out"
    assert R.split_of("IMG_2383.JPG") == "tune" and R.split_of("feliksh_screenshot3.png") == "held_out"
    photos = R.edje_photos()
    assert len(photos) == 67 and sum(len(p.cards) for p in photos) == 143
    held = [p for p in photos if p.split == "held_out"]
    assert len(held) == 21 and sum(len(p.cards) for p in held) == 45


def test_a_few_real_photos_read_by_the_built_in_french_deck_are_never_surely_wrong(detector):
    rows = R.evaluate(detector, ["french52"], files=FEW)
    t = R.totals(rows)
    assert t["cards"] == 18 and t["found"] >= 17
    assert t["sure_wrong"] == 0, R.format_table(rows)
    # the 10 of clubs named from its pips (our printing's club is unlike the photos'), not the
    # 10 of spades the face looks likest
    assert t["wrong"] <= 1 and t["right"] >= 9, R.format_table(rows)
    clubs = [r for r in rows if r.file == "IMG_2395.JPG"]
    assert clubs[0].read in (None, "10C")


def test_a_fragment_of_a_real_card_is_never_a_sure_card_of_its_own(detector):
    # the detector breaks these cards into parts or finds cards in the pattern (a nine of clubs
    # on patterned cloth, a king of hearts on stone, a queen of clubs on newspaper): a part is
    # read unknown, or named below sure, never a second card the table would take (measured:
    # the nine's part named 9C at 0.89, the ten's 10C at 0.89; the rest unknown)
    rows = R.evaluate(detector, ["french52"], files=("IMG_2482.JPG", "IMG_2544.JPG", "IMG_2550.JPG", "IMG_2677.JPG"))
    extra = [r for r in rows if r.extra]
    t = R.totals(rows)
    assert len(extra) >= 6 and t["extra"] == len(extra), R.format_table(rows)
    assert t["extra_sure"] == 0, R.format_table(rows)
    assert all(r.read in (None, r.lies_on) for r in extra), R.format_table(rows)  # a part names its own card
    assert t["cards"] == 5 and t["sure_wrong"] == 0  # the cards themselves counted once each


def test_the_pips_tell_hearts_from_diamonds_and_spades_from_clubs():
    # a lone card of each suit, its box's corners (the photos are square on): the pips' shape
    # names the suit and their number the rank
    for name, suit, count in (("IMG_2395.JPG", "C", 10), ("IMG_2391.JPG", "S", 9), ("IMG_2463.JPG", "D", 9)):
        photo = next(p for p in R.edje_photos() if p.name == name)
        image = cv2.imread(str(photo.path))
        x0, y0, x1, y1 = photo.cards[0].box
        quad = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        check = suit_of(flat_field(rectify(image, quad)))
        assert check.suit == suit and check.count(suit) == count, (name, check)


def test_a_deck_enrolled_from_real_photos_names_its_cards_and_not_the_others(detector, tmp_path):
    edje = {p.name: p for p in R.edje_photos()}
    singles = {c: edje[n] for c, n in (("9S", "IMG_2391.JPG"), ("KD", "IMG_2440.JPG"), ("QD", "IMG_2387.JPG"))}
    singles["9D"] = edje["IMG_2463.JPG"]
    enrolled = set(R.enrol(detector, singles, tmp_path))
    assert enrolled == {"9S", "KD", "QD", "9D"}
    reader = R.CardReader(detector, R.load_deck("edje", tmp_path))
    rows = []
    for name in ("IMG_2561.JPG", "IMG_2564.JPG"):  # 9D (partly hidden), 9S, KD, AD; JS, QD, 10H, AD
        rows += R.read_photo(reader, "enrolled", edje[name], deck=enrolled)
    table = R.format_table(rows)
    assert not any(r.outcome == "wrong" and r.sure for r in rows), table
    strangers = [r for r in rows if not r.in_deck and r.found]  # AD twice, 10H (JS is missed)
    assert len(strangers) >= 3 and not any(r.sure for r in strangers), table
    # measured: both aces of diamonds unknown; the 10 of hearts named the 9 of diamonds at 0.90, not sure
    assert sum(r.read is None for r in strangers) >= 2, table
    assert sum(r.outcome == "right" for r in rows) >= 3, table  # measured 4: 9D, 9S, KD, QD


# The sock of IMG_2384.JPG as the detector shipped before 2026-12-03 took it for a face-up card
# (score 0.54); the shipped one finds the king alone.
SOCK = CardDetections.from_corners([[[0, 457], [5, 395], [95, 412], [88, 477]]], confidence=np.float32([0.54]))


def test_a_one_card_photo_with_a_sock_beside_the_card_enrols_the_card_its_index_reads(detector):
    # the king of clubs on carpet, a sock in the photo's corner
    image = cv2.imread(str(R.MEDIA / "edje" / "IMG_2384.JPG"))
    aspect = E.deck_aspect("french52")
    (alone,) = E.find_cards(image, detector, 1, aspect=aspect)  # the shipped detector: the king only

    def with_the_sock(img):  # a detector that also takes the sock for a card
        return CardDetections.merge([detector(img), SOCK])

    with pytest.raises(E.TooManyCards):
        E.find_cards(image, with_the_sock, 1, aspect=aspect)
    (card,) = E.find_cards(image, with_the_sock, 1, aspect=aspect, claim="KC", base="french52")
    assert np.allclose(card.corners, alone.corners, atol=2.0)
    assert card.method == "index"
    x0, y0, x1, y1 = next(p for p in R.edje_photos() if p.name == "IMG_2384.JPG").cards[0].box
    centre = card.corners.mean(axis=0)
    assert x0 < centre[0] < x1 and y0 < centre[1] < y1
    with pytest.raises(E.TooManyCards):  # a claim its index does not read picks nothing
        E.find_cards(image, with_the_sock, 1, aspect=aspect, claim="KS", base="french52")


def test_the_index_names_the_suit_where_the_face_takes_a_same_colour_sibling(detector, tmp_path):
    # the four kings: the face of the enrolled king of spades reads as the king of clubs' at 0.9;
    # the corner index reads the spade (0.96) and the pips' shapes agree: the king of spades. The
    # kings of hearts and diamonds, never enrolled, are not named
    edje = {p.name: p for p in R.edje_photos()}
    enrolled = set(R.enrol(detector, {"KC": edje["IMG_2384.JPG"], "KS": edje["IMG_2510.JPG"]}, tmp_path))
    assert enrolled == {"KC", "KS"}  # the king of clubs' photo, with a sock beside it, is taken
    reader = R.CardReader(detector, R.load_deck("edje", tmp_path))
    rows = R.read_photo(reader, "enrolled", edje["cam_image2.jpg"], deck=enrolled)
    table = R.format_table(rows)
    reads = {r.card: r.read for r in rows}
    assert reads["KS"] == "KS" and reads["KC"] == "KC", table
    assert reads["KH"] is None and reads["KD"] is None, table


def test_a_refused_enrolment_photo_is_replaced_by_the_card_taken_again(detector, tmp_path):
    """The ten of diamonds on carpet (IMG_2396) comes out 0.55 wide for 1 high and is refused; the
    enrolment goes on to the same card's next photo (IMG_2409), as a user taking it again."""
    extra = R.extra_enrolment_photos()
    first, again = extra["10D"]
    assert (first.name, again.name) == ("IMG_2396.JPG", "IMG_2409.JPG")
    with pytest.raises(E.BadCardShape):
        E.find_cards(cv2.imread(str(first.path)), detector, 1, aspect=E.deck_aspect("french52"))
    assert R.enrol(detector, {}, tmp_path, alternatives={"10D": extra["10D"]}) == ["10D"]
    reader = R.CardReader(detector, R.load_deck("edje", tmp_path))
    reads = reader.read(cv2.imread(str(R.MEDIA / "edje" / "IMG_2647.JPG")))  # a group photo with the 10D
    assert "10D" in {str(x) for x in reads.label}


def test_a_real_photo_named_after_another_card_is_flagged(detector, tmp_path):
    ten_of_clubs = R.MEDIA / "edje" / "IMG_2395.JPG"
    named_wrong = tmp_path / "4S.jpg"
    named_wrong.write_bytes(ten_of_clubs.read_bytes())
    with pytest.raises(E.EnrollmentRejected) as err:
        E.enroll_deck("mine", [named_wrong], base="french52", detector=detector, decks_dir=tmp_path / "d")
    (reason,) = err.value.details["rejected"]
    assert reason["reason"] == "WrongCard" and "clubs" in reason["message"]
    spade_as_club = tmp_path / "nine_of_clubs.jpg"
    spade_as_club.write_bytes((R.MEDIA / "edje" / "IMG_2391.JPG").read_bytes())
    with pytest.raises(E.EnrollmentRejected):
        E.enroll_deck("mine", [spade_as_club], base="french52", detector=detector, decks_dir=tmp_path / "d")
    named_right = tmp_path / "clubs_10.jpg"
    named_right.write_bytes(ten_of_clubs.read_bytes())
    res = E.enroll_deck("mine", [named_right], base="french52", detector=detector, decks_dir=tmp_path / "d")
    assert res.labels == ["10C"] and (res.folder / E.CONTACT_SHEET).is_file()


def test_a_face_up_card_the_detector_calls_face_down_is_read_face_up(detector):
    # IMG_2482 (tune split): the detector shipped before 2026-12-03 called the queen of clubs face
    # down (the shipped one calls her face up); her corner index names her, her face alone does not
    # (similarity 0.30): taken face up only when the face reads a card too or the index is sure
    # alone (both corners, face similarity 0.35): unread or QC
    photo = next(p for p in R.edje_photos() if p.name == "IMG_2482.JPG")
    image = cv2.imread(str(photo.path))

    def hers(dets) -> int:
        return int(np.argmax([R._iou(photo.cards[0].box, b) for b in dets.xyxy]))

    assert detector(image).face_up[hers(detector(image))]

    def calls_her_face_down(img):
        dets = detector(img)
        dets.face_up[hers(dets)], dets.class_id[hers(dets)] = False, 1
        return dets

    rows = R.read_photo(R.CardReader(calls_her_face_down, R.load_deck("french52")), "french52", photo)
    assert rows[0].read in ("QC", None), R.format_table(rows)


def test_a_back_called_face_down_stays_face_down():
    from tests.cards.helpers import cloth, place, quad
    from vision.cards.decks import card
    from vision.cards.detections import CardDetections

    corners = quad(480, 360, 300, 10)
    image = place(cloth(720, 960), card("french52", "back:french"), corners)
    dets = CardDetections.from_corners(corners[None], face_up=[False])
    reader = R.CardReader(lambda img: dets.copy(), R.load_deck("french52"))
    out = reader.read(image)
    assert len(out) == 1 and not out.face_up[0]
    assert out.label[0] in (None, "back:french")


@pytest.mark.slow
def test_every_real_photo_floors(detector):
    """The whole set (about 3 minutes): measured no sure read wrong of any reader; clear cards
    right: 105 of 111 (built-in French deck, with the corner index), 32 of 32 of them held out;
    52 of 81 (the 16 cards enrolled from the test set's single-card photos; of the cards found
    that it lacks, none named), 81 of 81 (every card enrolled: `enrolled-full`, refused photos
    taken again), 26 of 26 of them held out (docs/card-reading.md, "Real media"; the detector
    before 2026-12-03: 99, 31, 54, 78 and 24; before the photos taken again: 75 and 24)."""
    rows = R.evaluate(detector)
    s = R.summary(rows)
    for reader in ("french52", "enrolled", "enrolled-full"):
        for split in R.SPLITS:
            t = s[reader][split]["all"]
            assert t["sure_wrong"] <= t["sure"] // 100, (reader, split, t)  # at most 1 sure read in 100 wrong
            assert t["wrong"] <= 2, (reader, split, t)
    assert s["french52"]["all"]["clear"]["right"] >= 101  # measured 105 of 111 (73 + 32)
    assert s["french52"]["held_out"]["clear"]["right"] >= 30  # measured 32 of 32
    assert s["enrolled"]["all"]["clear"]["right"] >= 49  # measured 52 of 81 (25 of them not in the deck)
    assert s["enrolled"]["all"]["all"]["not_in_deck_named"] <= 1  # measured 0 (before: 1 of 30, at 0.90, not sure)
    assert s["enrolled-full"]["all"]["clear"]["right"] >= 78  # measured 81 of 81 (before the retaken photos: 75)
    assert s["enrolled-full"]["held_out"]["clear"]["right"] >= 25  # measured 26 of 26 (before: 24)
    assert s["french52"]["all"]["clear"]["found"] >= 107  # measured 111
    for reader in ("french52", "enrolled", "enrolled-full"):  # a part of a card or a find on the cloth
        assert s[reader]["all"]["all"]["extra_sure"] <= 1, (reader, s[reader]["all"]["all"])
