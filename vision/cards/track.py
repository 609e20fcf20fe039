"""Cards followed across frames: supervision's ByteTrack gives each card a track id, and each
track remembers what its card was read as (a card turned face down is still that card).

ByteTrack (a Kalman filter per track, matched by box overlap in two passes, high then low
confidence) keeps a track alive for `lost_frames` frames without a detection, so a card hidden
by a passing hand comes back under the same id. On top of it, `CardTracker` keeps a vote per
track (the identification confidences of each label it was read as); a frame where the card
is half covered and reads `unknown` (or reads wrongly at low confidence) reports the track's
label instead, with the vote's share as confidence.

`StillCards` is the card stage's read-once memory: a card lying still on the cloth (its corners
where they were, its view unchanged) keeps the name it was read as instead of being identified
on every frame; moved, turned, covered or replaced, it is read again. `StillFrames` goes one
step further: while the camera's whole view stays as it was when the detector last ran, and
that run found the cards its previous one did, each read or kept for sure, the detector is not
run at all and that run's cards are the frame's.
"""

from __future__ import annotations

import collections
import dataclasses
import warnings
from typing import Any

import cv2
import numpy as np

from vision.cards.detections import CardDetections
from vision.cards.detector import box_iou
from vision.still import still_thumbnail, thumbnail_change


class CardTracker:
    def __init__(
        self,
        frame_rate: float = 30.0,
        lost_frames: int | None = None,
        activation: float = 0.25,
        matching: float = 0.8,
        min_vote: float = 0.5,
    ) -> None:
        import supervision as sv  # deferred: supervision loads its own stack; only tracking needs it

        self._sv = sv
        self.frame_rate = frame_rate
        self.lost_frames = int(lost_frames if lost_frames is not None else max(30, round(2 * frame_rate)))
        with warnings.catch_warnings():  # deprecated in 0.28 for the `trackers` package, which
            # needs numpy 2; requirements.txt pins supervision 0.30.9, which has it
            warnings.simplefilter("ignore", FutureWarning)
            self._tracker = sv.ByteTrack(
                track_activation_threshold=activation,
                lost_track_buffer=self.lost_frames,
                minimum_matching_threshold=matching,
                frame_rate=int(round(frame_rate)) or 30,
                minimum_consecutive_frames=1,
            )
        self.min_vote = min_vote
        # per track, each label's summed confidence, in the order the labels were first read
        self.votes: dict[int, dict[str, float]] = collections.defaultdict(lambda: collections.defaultdict(float))

    def reset(self) -> None:
        self._tracker.reset()
        self.votes.clear()

    def update(self, detections: CardDetections) -> CardDetections:
        """A copy of `detections` with track ids (and remembered labels) filled in."""
        out = detections.copy()
        if len(out) == 0:
            self._tracker.update_with_detections(self._sv.Detections.empty())
            return out
        svd = self._sv.Detections(
            xyxy=out.xyxy.astype(np.float32),
            confidence=out.confidence.astype(np.float32),
            class_id=np.zeros(len(out), int),
            data={"index": np.arange(len(out))},
        )
        tracked = self._tracker.update_with_detections(svd)
        # No track matched (a card seen for the first time after the first frame is not a track
        # until its second sighting): supervision then answers `Detections.empty()`, without
        # our "index" column, and every card keeps track id -1 for this frame.
        if len(tracked) and tracked.tracker_id is not None and "index" in tracked.data:
            for idx, tid in zip(tracked.data["index"], tracked.tracker_id):
                out.track_id[int(idx)] = int(tid)
        self._remember(out)
        return out

    def _remember(self, out: CardDetections) -> None:
        for i in range(len(out)):
            tid = int(out.track_id[i])
            if tid < 0:
                continue
            votes = self.votes[tid]
            if out.face_up[i] and out.label[i] is not None:  # only faces vote (not backs)
                votes[out.label[i]] += float(out.label_confidence[i])
            if not votes:
                continue
            label, weight = _most_voted(votes)
            share = weight / sum(votes.values())
            if share < self.min_vote:
                continue
            # A card seen but not read (half covered, turned face down, blurred) keeps the name
            # its track was read as; so does a weak read that disagrees with a strong record.
            if (
                out.label[i] is None
                or not out.face_up[i]
                or (out.label[i] != label and out.label_confidence[i] < share)
            ):
                out.label[i] = label
                out.label_confidence[i] = share

    def summary(self) -> dict[int, dict[str, Any]]:
        """What each track was read as: {track id: {"label", "share", "votes"}}."""
        out = {}
        for tid, votes in self.votes.items():
            if votes:
                label, weight = _most_voted(votes)
                out[tid] = {"label": label, "share": weight / sum(votes.values()), "votes": dict(votes)}
        return out


def _most_voted(votes: dict[str, float]) -> tuple[str, float]:
    """The label with the most votes (the first read of equals), and its votes."""
    return max(votes.items(), key=lambda kv: kv[1])


# -- read once per card lying still -----------------------------------------------------------

THUMB_SIZE = (24, 36)  # (width, height) of the view a still card is compared by


@dataclasses.dataclass
class _Still:
    raw: np.ndarray  # (4, 2) the detector's corners when the card was read
    face_up: bool
    thumb: np.ndarray  # the view inside `raw` then (THUMB_SIZE, grey, float32)
    read: CardDetections  # one row: what the card was read as (label, corners, orientation)
    snapped: bool  # whether the read moved its corners (for `drop_second_guesses`)
    unseen: int = 0  # frames since it was last detected
    sure: bool = True  # read known at the sure confidence or more
    kept: int = 0  # times its reading was kept since it was read
    tries: int = 1  # not sure: how many times in a row this view was read, each time unsure


def card_view(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card inside `quad` as a small grey picture (THUMB_SIZE), lightly blurred and brought
    to zero mean and unit contrast: what a card lying still is compared by from frame to frame
    (sensor noise averages out and the camera's exposure drift cancels; a different face or a
    hand over it does not)."""
    w, h = THUMB_SIZE
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    m = cv2.getPerspectiveTransform(np.asarray(quad, np.float32).reshape(4, 2), dst)
    crop = cv2.warpPerspective(grey_of(image), m, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    view = cv2.GaussianBlur(crop, (3, 3), 0).astype(np.float32)
    view -= view.mean()
    return view / max(float(view.std()), 4.0)  # a blank view keeps its noise small


def grey_of(image: np.ndarray) -> np.ndarray:
    """A BGR picture in grey (a grey one as it is): convert a frame once for every step that compares views."""
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def view_change(a: np.ndarray, b: np.ndarray) -> float:
    """How much two views of a card (`card_view`) differ: the mean difference, in units of the
    view's contrast, of its most changed eighth of pixels, so that a changed corner index or a
    finger counts as much as a whole new face."""
    d = np.abs(a - b).ravel()
    k = max(1, d.size // 8)
    return float(np.partition(d, d.size - k)[-k:].mean())


class StillCards:
    """Read once per card lying still: a card whose detected corners have not moved (by more
    than `moved` of its short side, all four) and whose view has not changed (`view_change`
    under `changed`, compared at the corners it was read from) keeps what it was
    read as, without being identified again; moved, turned, covered or replaced, it is read
    afresh. A reading that was not sure (unknown, or known under `sure`) is read again on each
    of the next frames, a new look with new sensor noise, until the same view has read unsure
    `patience` times in a row: then it is kept like a sure one, `retry` times at a time, and
    read again between (a stranger on the cloth, a card of another deck, is not identified anew
    on every frame for as long as it lies there). A card not detected for `forget` frames is
    forgotten.

        still = StillCards()
        reuse = still.match(image, found)        # per detection: a remembered reading or None
        ... identify the detections with reuse None ...
        still.remember(image, found, reads, snapped, reuse)

    The view is taken at the corners the card was first read from, not at the new ones, so the
    detector's own jitter between frames (its corners move by a tenth of the card on a card
    lying still) does not count as change, while a card pushed by a fraction of its width
    changes the view at those corners; a card sliding slowly is read again once it is off. The
    remembered card nearest in view wins, and a card read afresh where one lay replaces it. A
    card half covered or blurred as it lands reads doubtfully, and its view changes once it is
    uncovered or still: it is read again then."""

    def __init__(
        self,
        moved: float = 0.25,
        changed: float = 0.25,
        forget: int = 10,
        sure: float = 0.8,
        patience: int = 5,
        retry: int = 3,
    ) -> None:
        self.moved = moved
        self.patience, self.retry = patience, retry
        self._again: dict[int, _Still] = {}  # detection -> the doubtful card it reads again (last match)
        self.sure = sure
        self.changed = changed
        self.forget = forget
        self._cards: list[_Still] = []
        self.reused = 0
        self.read = 0

    def reset(self) -> None:
        self._cards = []
        self._again = {}

    def sure_reads(self, reads: CardDetections) -> np.ndarray:
        """Per row, whether its reading is sure: known, at confidence `sure` or more."""
        known = np.array([lab is not None for lab in reads.label], bool)
        return known & (reads.label_confidence >= self.sure)

    def tick(self) -> None:
        """A frame on which the cards of the last remembered one were seen again without being
        detected (`StillFrames`): those stay, the others age as on any frame."""
        kept = []
        for c in self._cards:
            if c.unseen:
                c.unseen += 1
                if c.unseen >= self.forget:
                    continue
            kept.append(c)
        self._cards = kept

    def match(self, image: np.ndarray, found: CardDetections) -> list[_Still | None]:
        """For each detection, the remembered card it still is (or None: read it)."""
        out: list[_Still | None] = [None] * len(found)
        self._again = {}
        if not self._cards or not len(found):
            return out
        grey = grey_of(image)
        near = self._near(found)
        taken = np.zeros(len(self._cards), bool)
        for i in range(len(found)):
            best, best_change = -1, self.changed
            for j in np.flatnonzero(near[i] & ~taken):
                c = self._cards[j]
                change = view_change(card_view(grey, c.raw), c.thumb)
                if change <= best_change:
                    best, best_change = int(j), change
            if best >= 0:
                c = self._cards[best]
                taken[best] = True
                if c.sure or (c.tries >= self.patience and c.kept < self.retry):
                    out[i] = c
                else:  # a doubtful reading: look again (and count the looks at this view)
                    self._again[i] = c
        return out

    def _near(self, found: CardDetections) -> np.ndarray:
        """(detections, remembered cards): whether the card's corners lie within `moved` of the
        detection's (the same side up)."""
        if not self._cards or not len(found):
            return np.zeros((len(found), len(self._cards)), bool)
        quads = found.corners.astype(np.float32)  # (N, 4, 2)
        raws = np.stack([c.raw for c in self._cards]).astype(np.float32)  # (M, 4, 2)
        side = np.maximum(np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=2).min(axis=1), 1.0)
        # a card turned half round may be detected with its corners numbered from the other short
        # edge: the same quad either way
        d = np.minimum(
            np.linalg.norm(quads[:, None] - raws[None], axis=3).max(axis=2),
            np.linalg.norm(np.roll(quads, 2, axis=1)[:, None] - raws[None], axis=3).max(axis=2),
        )
        up = np.array([c.face_up for c in self._cards], bool)
        return (d <= self.moved * side[:, None]) & (found.face_up[:, None] == up[None])

    def remember(
        self,
        image: np.ndarray,
        found: CardDetections,
        reads: CardDetections,
        snapped: np.ndarray,
        reused: list[_Still | None],
    ) -> None:
        """After a frame: the cards read afresh are remembered as read from `found`'s corners;
        the reused ones stay as they were first read; those not seen age."""
        kept: list[_Still] = []
        seen = set()
        grey = grey_of(image)
        sure_rows = self.sure_reads(reads)
        for i in range(len(found)):
            c = reused[i]
            if c is not None:
                c.unseen = 0
                c.kept += 1
                seen.add(id(c))
                kept.append(c)
                continue
            sure = bool(sure_rows[i])
            before = self._again.get(i)
            kept.append(
                _Still(
                    found.corners[i].copy(),
                    bool(found.face_up[i]),
                    card_view(grey, found.corners[i]),
                    reads[i],
                    bool(snapped[i]),
                    sure=sure,
                    tries=1 if sure or before is None else before.tries + 1,
                )
            )
        self.reused += sum(c is not None for c in reused)
        self.read += sum(c is None for c in reused)
        fresh = np.array([r is None for r in reused], bool)
        # a card read afresh where one lay replaces it
        superseded = self._near(found)[fresh].any(axis=0) if len(found) else np.zeros(len(self._cards), bool)
        for j, c in enumerate(self._cards):
            if id(c) in seen:
                continue
            c.unseen += 1
            if c.unseen < self.forget and not superseded[j]:
                kept.append(c)
        self._cards = kept


class StillFrames:
    """The card detector skipped on frames where nothing on the table has moved.

    After a detector run whose cards are *settled* (the same cards as the run before it, one to
    one by box overlap, face up or down alike, and every face-up one kept by `StillCards` or read
    sure), a frame whose whole view (`vision.still.still_thumbnail` at `side` pixels) differs from
    that run's by less than `changed` (`thumbnail_change`) takes that run's cards instead of
    being detected and read, for at most `refresh` seconds; then the detector runs again, as it
    does at once on any change (a card put down, picked up, pushed or turned, a hand over the
    cloth). The comparison is always with the view of the last run, so a slow drift adds up.

    Sensor noise, JPEG and a 3% exposure change measure up to 4.4 on 1280x720 frames of a cloth
    with 4 to 20 cards; one card put down 40 px further measures over 140
    (tests/cards/test_still_frames.py checks real photos).

        frames = StillFrames()
        cards = frames.reuse(image, t)      # the last settled run's cards, or None: detect
        ... detect and read ...
        frames.remember(t, found, reads, sure)  # per detection: kept or read sure
    """

    def __init__(self, side: int = 160, changed: float = 10.0, refresh: float = 0.5, overlap: float = 0.5) -> None:
        self.side, self.changed, self.refresh, self.overlap = side, changed, refresh, overlap
        self._thumb: np.ndarray | None = None  # the view of the frame last asked about
        self._ref: tuple[float, np.ndarray, CardDetections] | None = None  # the last settled run
        self._last: CardDetections | None = None  # the last run's detections
        self.skipped = 0
        self.detected = 0

    def reset(self) -> None:
        self._thumb, self._ref, self._last = None, None, None

    def reuse(self, image: np.ndarray, t: float) -> CardDetections | None:
        """The cards of the last settled run when the view has not changed since it, else None."""
        self._thumb = still_thumbnail(image, self.side)
        ref = self._ref
        if ref is None or not 0.0 <= t - ref[0] < self.refresh:
            return None
        if thumbnail_change(self._thumb, ref[1]) < self.changed:
            self.skipped += 1
            return ref[2].copy()
        return None

    def remember(self, t: float, found: CardDetections, reads: CardDetections, sure: np.ndarray) -> None:
        """After a detector run on the frame last asked about: its detections, its final cards, and
        per detection whether its reading is sure (kept or read sure; True for a face-down card)."""
        self.detected += 1
        thumb = self._thumb
        settled = thumb is not None and bool(np.all(sure)) and self._same(self._last, found)
        self._last = found.copy()
        self._ref = (t, thumb, reads.copy()) if settled and thumb is not None else None

    def _same(self, a: CardDetections | None, b: CardDetections) -> bool:
        """Whether two runs found the same cards: as many, each of one overlapping one of the
        other by `overlap` of their union, face up or down alike."""
        if a is None or len(a) != len(b):
            return False
        if not len(b):
            return True
        iou = box_iou(a.xyxy, b.xyxy) * (a.face_up[:, None] == b.face_up[None, :])
        best = iou.argmax(axis=1)
        return bool(np.all(iou[np.arange(len(a)), best] >= self.overlap) and len(set(best.tolist())) == len(b))
