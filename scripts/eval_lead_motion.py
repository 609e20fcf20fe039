"""How often the lead-motion cue (referee/table/lead_motion.py) is right on generated streams.

Each trial draws one lead: slid (start 1.5-4.5 card-lengths away, 0.3-0.9 s, turned up to 30
degrees), tossed (released 0.8-3.5 card-lengths above the cloth, 1-4 card-lengths away,
0.15-0.45 s, spun 0-150 degrees) or placed (carried the last 0-0.6 card-lengths from 0-1 card-length
above the cloth, 0.2-0.5 s), or a card first seen in place (`appears`: tossed from
out of view or set down under a hand; the truth is "placed" when a hand was on it, "toss"
otherwise). The stream (tests/live/motion_streams.py) is sampled at a random frame rate
(5, 10, 15 or 30 fps) and phase, on a table turned and moved at random in the picture, then
made noisy like a real card reader: every corner jittered (Gaussian, `--jitter` pixels at 100
pixels a card-length), each reading missed with probability `--miss`, each hands observation
missed with probability `--hand-miss`, fingertips jittered by 0.1 card-lengths.

With `--rendered`, each lead is drawn instead as pictures (our own Italian card faces,
`vision.cards.render`, on a green cloth, 1280x720, 110 pixels a card-length, bigger when in the
air, with motion blur over a 1/100 s exposure) and read by the live card stage itself
(`vision.capture.stages.CardStage`: the shipped detector, identification, zones); no hands are
drawn. This measures the cue on the real card reader's corners, misses and misreads.

For each true class it reports how often the cue's class was right, how often the table would
apply an announcement at the default threshold (0.8) rightly and wrongly, and how often it
would ask (for the right announcement, or a wrong one). Run from the repository root:

    .venv/bin/python scripts/eval_lead_motion.py --trials 400 --seed 1
    .venv/bin/python scripts/eval_lead_motion.py --trials 400 --seed 1 --no-hands
    .venv/bin/python scripts/eval_lead_motion.py --rendered --trials 60 --seed 1 --fps 10
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.observations import HandsSeen, HandTips  # noqa: E402
from referee.table import CardReading, CardsSeen  # noqa: E402
from referee.table.lead_motion import lead_motion  # noqa: E402
from tests.live.motion_streams import (  # noqa: E402
    PICTURE,
    RENDER_TABLE,
    Table,
    appears,
    placed,
    rendered_frames,
    slide,
    stream,
    toss,
)
from vision.capture.stages import CardStage  # noqa: E402
from vision.cards.decks import deck  # noqa: E402

THRESHOLD = 0.8
CALL = {"slide": "striscio", "toss": "volo", "placed": None}
KIND = {"toss, first seen in place": "toss", "placed, first seen in place": "placed"}


def draw(rng: random.Random) -> tuple[str, object]:
    kind = rng.choice(["slide", "toss", "placed", "slide", "toss", "placed", "appears"])
    heading = rng.uniform(0, 2 * math.pi)

    def away(lo: float, hi: float) -> tuple[float, float]:
        d = rng.uniform(lo, hi)
        return (d * math.cos(heading), d * math.sin(heading))

    if kind == "slide":
        return "slide", slide(start=away(1.5, 4.5), duration=rng.uniform(0.3, 0.9), turn=rng.uniform(-30, 30))
    if kind == "toss":
        return "toss", toss(
            start=away(1.0, 4.0),
            height=rng.uniform(0.8, 3.5),
            duration=rng.uniform(0.15, 0.45),
            turn=rng.uniform(0, 150),
        )
    if kind == "placed":
        return "placed", placed(start=away(0.0, 0.6), height=rng.uniform(0.0, 1.0), duration=rng.uniform(0.2, 0.5))
    hand_on = rng.random() < 0.5
    return ("placed, first seen in place" if hand_on else "toss, first seen in place"), appears(hand_on=hand_on)


def noisy(items, rng: random.Random, jitter: float, miss: float, hand_miss: float, scale: float):
    out = []
    for x in items:
        if isinstance(x, CardsSeen):
            sd = jitter * scale / 100
            cards = tuple(
                CardReading(
                    r.card,
                    r.confidence,
                    r.face_up,
                    r.zone,
                    tuple((u + rng.gauss(0, sd), v + rng.gauss(0, sd)) for u, v in r.corners),
                    r.track_id,
                )
                for r in x.cards
                if rng.random() >= miss
            )
            out.append(CardsSeen(x.t, x.camera, cards, x.frame))
        elif isinstance(x, HandsSeen):
            if rng.random() < hand_miss:
                continue
            hands = tuple(
                HandTips(
                    tuple((u + rng.gauss(0, 0.1 * scale), v + rng.gauss(0, 0.1 * scale)) for u, v in h.points), h.player
                )
                for h in x.hands
            )
            out.append(HandsSeen(x.t, x.camera, hands))
    return out


def judge(items, settle: float = 0.5):
    frames = [x for x in items if isinstance(x, CardsSeen)]
    since = next((f.t for f in frames if any(r.zone == "trick" and r.card == "AS" for r in f.cards)), None)
    if since is None:
        return None
    upto = [f for f in frames if f.t <= since + settle]
    while upto and not any(r.zone == "trick" and r.card == "AS" for r in upto[-1].cards):
        upto.pop()  # the table judges on a frame where the card was read
    return lead_motion(upto, "trick", "AS", since, [x for x in items if isinstance(x, HandsSeen)])


# -- rendered leads, read by the live card stage ---------------------------------------------


def rendered_trial(rng: random.Random, stage, motion, face: str, fps: float):
    """The CardsSeen the live card stage reports for one rendered lead (oldest first)."""
    return [stage(frame) for frame in rendered_frames(motion, face, fps=fps, seed=rng.randrange(1 << 30))]


def run_rendered(args) -> dict:
    rng = random.Random(args.seed)
    zones = RENDER_TABLE.zones()
    stage = CardStage("cards", deck="italian", finder=args.finder, locate=zones.locate, fps=None, threads=args.threads)
    faces = [c.face_key for c in deck("italian")]
    rows = collections.defaultdict(collections.Counter)
    for _ in range(args.trials):
        while True:  # a lead whose start lies in the picture
            truth, motion = draw(rng)
            x, y = RENDER_TABLE.px(motion.pose(0.0).x, motion.pose(0.0).y)
            if 70 <= x <= PICTURE[0] - 70 and 90 <= y <= PICTURE[1] - 90:
                break
        face = rng.choice(faces)
        frames = rendered_trial(rng, stage, motion, face, args.fps)
        kind = KIND.get(truth, truth)
        row = rows[truth]
        row["n"] += 1
        last = [r for r in frames[-1].cards if r.zone == "trick" and r.card]
        if not last:
            row["not read"] += 1
            continue
        read = max(last, key=lambda r: r.confidence).card
        row["card read right"] += read == face
        since = next(f.t for f in frames if any(r.zone == "trick" and r.card == read for r in f.cards))
        m = lead_motion(frames, "trick", read, since)
        if m is None:
            row["not judged"] += 1
            continue
        _count(row, m, kind)
    return {
        "settings": {k: v for k, v in vars(args).items() if k != "json"},
        "per_class": {k: dict(v) for k, v in sorted(rows.items())},
    }


def _count(row, m, kind: str) -> None:
    row["class right"] += m.kind == kind
    if m.call is not None and m.confidence >= THRESHOLD:
        row["applied right" if m.call == CALL[kind] else "applied WRONG"] += 1
    elif m.call is not None and m.confidence >= 0.5:
        row["asked" if m.call == CALL[kind] else "asked WRONG"] += 1
    else:
        row["plain lead" + (" (right)" if CALL[kind] is None else " (missed call)")] += 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jitter", type=float, default=2.0, help="corner noise, pixels at 100 px a card-length")
    ap.add_argument("--miss", type=float, default=0.1, help="probability a card reading is missed")
    ap.add_argument("--hand-miss", type=float, default=0.2, help="probability a hands observation is missed")
    ap.add_argument("--no-hands", action="store_true", help="the card camera sees no hands")
    ap.add_argument("--rendered", action="store_true", help="draw the leads and read them with the card stage")
    ap.add_argument("--fps", type=float, default=10.0, help="--rendered: the card stage's frame rate")
    ap.add_argument("--finder", default="detector", help="--rendered: detector, detector+outline or contour")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.rendered:
        report = run_rendered(args)
        if args.json:
            print(json.dumps(report, indent=1))
            return 0
        _table(report)
        return 0
    rng = random.Random(args.seed)
    rows = collections.defaultdict(collections.Counter)
    by_fps = collections.defaultdict(collections.Counter)
    for _ in range(args.trials):
        truth, motion = draw(rng)
        fps = rng.choice([5.0, 10.0, 15.0, 30.0])
        table = Table(
            scale=rng.uniform(60, 160),
            angle=rng.uniform(-180, 180),
            offset=(rng.uniform(300, 900), rng.uniform(200, 500)),
        )
        items = stream(motion, "AS", fps=fps, phase=rng.random(), table=table, hands=not args.no_hands)
        items = noisy(items, rng, args.jitter, args.miss, args.hand_miss, table.scale)
        m = judge(items)
        row = rows[truth]
        row["n"] += 1
        if m is None:
            row["not judged"] += 1
            continue
        kind = KIND.get(truth, truth)
        _count(row, m, kind)
        by_fps[fps]["n"] += 1
        by_fps[fps]["right"] += m.kind == kind
    report = {
        "settings": {k: v for k, v in vars(args).items() if k != "json"},
        "per_class": {k: dict(v) for k, v in sorted(rows.items())},
        "class_right_by_fps": {str(k): round(v["right"] / v["n"], 3) for k, v in sorted(by_fps.items())},
    }
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    _table(report)
    print("class right by frame rate:", report["class_right_by_fps"])
    return 0


def _table(report) -> None:
    print(f"settings: {report['settings']}")
    print(
        f"{'truth':28s} {'n':>4s} {'class right':>12s} {'applied right':>14s} {'applied WRONG':>14s} "
        f"{'asked':>6s} {'asked WRONG':>11s} {'plain (right)':>14s} {'plain (missed)':>15s} {'not read':>9s}"
    )
    for truth, row in report["per_class"].items():
        n = row["n"]
        pct = lambda k, row=row, n=n: f"{100 * row.get(k, 0) / n:5.1f}%"  # noqa: E731
        print(
            f"{truth:28s} {n:4d} {pct('class right'):>12s} {pct('applied right'):>14s} {pct('applied WRONG'):>14s} "
            f"{pct('asked'):>6s} {pct('asked WRONG'):>11s} {pct('plain lead (right)'):>14s} "
            f"{pct('plain lead (missed call)'):>15s} "
            f"{pct('not read'):>9s}"
        )
    if any("card read right" in r for r in report["per_class"].values()):
        print(
            "card read right:", {k: f"{r.get('card read right', 0)}/{r['n']}" for k, r in report["per_class"].items()}
        )


if __name__ == "__main__":
    raise SystemExit(main())
