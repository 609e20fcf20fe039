"""Cards followed across frames: supervision's ByteTrack gives each card a track id, and each
track remembers what its card was read as (a card turned face down is still that card).

ByteTrack (a Kalman filter per track, matched by box overlap in two passes, high then low
confidence) keeps a track alive for `lost_frames` frames without a detection, so a card hidden
by a passing hand comes back under the same id. On top of it, `CardTracker` keeps a vote per
track (the identification confidences of each label it was read as); a frame where the card
is half covered and reads `unknown` (or reads wrongly at low confidence) reports the track's
label instead, with the vote's share as confidence.
"""

from __future__ import annotations

import collections
import warnings
from typing import Any

import numpy as np

from vision.cards.detections import CardDetections


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
