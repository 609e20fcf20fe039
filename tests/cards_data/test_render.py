"""The renderer: a distinct face for every card, readable upside down for Beccato!, and the
print-and-play PDF at real card size."""

import re

import numpy as np
import pytest

from vision.cards import decks as D
from vision.cards import printing
from vision.cards import render as R

PPM = 1.0  # small renders keep the test fast


def _differ(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Fraction of pixels that differ strongly (> 60 levels in some channel), a against each b."""
    return (np.abs(a[:, None].astype(np.int16) - b[None].astype(np.int16)).max(-1) > 60).mean((-1, -2))


@pytest.mark.parametrize("design", sorted(R.DESIGNS))
@pytest.mark.parametrize("deck_name", ["beccato", "italian", "french52"])
def test_every_face_is_distinct(deck_name, design):
    cards = D.faces(deck_name) + D.backs(deck_name)
    imgs = np.stack([R.render_card(c, design, PPM) for c in cards])
    d = np.concatenate([_differ(imgs[i : i + 8], imgs) for i in range(0, len(imgs), 8)])
    np.fill_diagonal(d, 1.0)
    i, j = np.unravel_index(d.argmin(), d.shape)
    # at least 0.5% of the card (a pip is about 1.5%) differs between any two faces
    assert d.min() > 0.005, (cards[i].id, cards[j].id, d.min())


def test_copies_share_a_face():
    a = R.render_card(D.card("beccato", "chicken:orloff:1"), "classic", PPM)
    b = R.render_card(D.card("beccato", "chicken:orloff:3"), "classic", PPM)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("design", sorted(R.DESIGNS))
def test_beccato_faces_have_a_top(design):
    for c in D.faces("beccato"):
        img = R.render_card(c, design, PPM)
        turned = _differ(img[None], img[::-1, ::-1][None])[0, 0]
        assert turned > 0.05, (c.id, turned)


def test_designs_differ_for_the_same_card():
    for deck_name in ("beccato", "italian", "french52"):
        for c in D.faces(deck_name)[:5] + D.backs(deck_name)[:1]:
            imgs = [R.render_card(c, d, PPM) for d in R.DESIGNS]
            for k in range(len(imgs)):
                for m in range(k + 1, len(imgs)):
                    assert _differ(imgs[k][None], imgs[m][None])[0, 0] > 0.005, c.id
    assert R.HELD_OUT_DESIGN not in R.TRAIN_DESIGNS


def test_size_and_mask():
    c = D.card("italian", "3D")
    img = R.render_card(c, "classic", 4.0)
    assert img.shape == (392, 232, 3) and img.dtype == np.uint8
    mask = R.card_mask(img.shape[:2], 4.0)
    assert mask[0, 0] == 0 and mask[196, 116] == 255 and mask[0, 116] == 255
    with pytest.raises(KeyError, match="no design"):
        R.render_card(c, "nope")


def test_print_pdf_has_real_card_size(tmp_path):
    dpi = 50.0
    pages = printing.layout_pages("beccato", "classic", "a4", dpi, backs=True)
    cols, rows = printing.grid("beccato", "a4")
    assert (cols, rows) == (3, 3)
    assert len(pages) == 2 * -(-110 // 9)
    ppm = dpi / 25.4
    for page, boxes in pages:
        assert page.shape[:2] == (round(297 * ppm), round(210 * ppm))
        for _, x, y, w, h in boxes:
            assert abs(w - 63 * ppm) <= 1 and abs(h - 88 * ppm) <= 1
            assert x >= 0 and y >= 0 and x + w <= page.shape[1] and y + h <= page.shape[0]
    # the backs page mirrors its faces page for long-edge duplex printing
    faces, backs = pages[0][1], pages[1][1]
    assert backs[0][0] == "back:beccato:chicken"
    assert backs[0][1] == faces[cols - 1][1]
    out = tmp_path / "deck.pdf"
    printing.write_pdf(pages[:2], out, dpi)
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    boxes = re.findall(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", data)
    assert len(boxes) == 2
    for w_pt, h_pt in boxes:  # A4 is 595 x 842 points
        assert abs(float(w_pt) - 595.3) < 2 and abs(float(h_pt) - 841.9) < 2


def test_italian_cards_fit_a_page():
    cols, rows = printing.grid("italian", "letter")
    assert cols * 58 <= 215.9 and rows * 98 <= 279.4 and cols * rows >= 4


def test_random_designs_vary_and_never_copy_the_held_out_traits():
    rng = np.random.default_rng(3)
    held = R.DESIGNS[R.HELD_OUT_DESIGN]
    designs = [R.random_design(rng) for _ in range(60)]
    assert len({d.name for d in designs}) == 60
    assert {d.back_pattern for d in designs} == set(R.BACK_PATTERNS) - {held.back_pattern}
    assert not any(d.outline_pips or d.font == held.font for d in designs)
    card = D.deck("french52")[0]
    back = D.backs("french52")[0]
    faces = {R.render_card(card, d, 4.0).tobytes() for d in designs[:8]}
    backs = {R.render_card(back, d, 4.0).tobytes() for d in designs[:8]}
    assert len(faces) == 8 and len(backs) == 8
    # a Design object and its registered name render the same card
    assert np.array_equal(R.render_card(card, R.DESIGNS["bold"], 4.0), R.render_card(card, "bold", 4.0))


def test_varied_pips_are_paler_or_resized_but_never_outlined_and_leave_the_other_traits():
    plain = [R.random_design(np.random.default_rng(s)) for s in range(40)]
    varied = [R.random_design(np.random.default_rng(s), varied_pips=True) for s in range(40)]
    # the same seed draws the same design but for its pips (datasets made before stay the same)
    assert [R.dataclasses.replace(v, pip_tone=0.0, pip_scale=1.0) for v in varied] == plain
    assert all(p.pip_tone == 0.0 and p.pip_scale == 1.0 for p in plain)
    assert not any(v.outline_pips for v in varied)
    tones = [v.pip_tone for v in varied]
    assert 0.0 in tones and max(tones) > 0.3 and max(tones) <= 0.55
    assert min(v.pip_scale for v in varied) < 0.9 < 1.1 < max(v.pip_scale for v in varied)
    seven = next(c for c in D.deck("french52") if c.face_key == "7S")
    base = R.DESIGNS["classic"]

    def ink(d):  # the darkest print of the body (the index's rank keeps its colour)
        img = R.render_card(seven, d, 4.0)
        h, w = img.shape[:2]
        return img[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4].astype(int).sum(axis=2).min()

    assert ink(R.dataclasses.replace(base, pip_tone=0.5)) > ink(base) + 150  # black pips turn grey...
    assert (
        R.render_card(seven, R.dataclasses.replace(base, pip_scale=1.15), 4.0).mean()
        < R.render_card(seven, base, 4.0).mean()
    )  # ...larger pips cover more paper


@pytest.mark.parametrize("pattern", R.BACK_PATTERNS)
def test_every_back_pattern_draws_a_symmetric_back(pattern):
    d = R.dataclasses.replace(R.DESIGNS["classic"], back_pattern=pattern)
    img = R.render_card(D.backs("italian")[0], d, 4.0)
    assert np.array_equal(img, img[::-1, ::-1])  # backs read the same both ways up
    assert img.std() > 10


def test_render_once_draws_the_same_face_outside_the_cache():
    from vision.cards.templates import render_deck_templates

    card = D.deck("french52")[7]
    R._render_cached.cache_clear()
    once = R.render_card_once(card, "classic", 4.0)
    assert R._render_cached.cache_info().currsize == 0
    assert np.array_equal(once, R.render_card(card, "classic", 4.0))
    assert R._render_cached.cache_info().currsize == 1
    render_deck_templates("french40")  # a deck's templates: made once, kept by the deck only
    assert R._render_cached.cache_info().currsize == 1
