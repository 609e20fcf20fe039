"""Free Signal enrolment on real people: takes that agree, takes of different gestures, and
false events on the other gestures of each clip, as a per-file table.

    .venv/bin/python scripts/eval_free_signal.py                  # the table, from the fixtures
    .venv/bin/python scripts/eval_free_signal.py --json out.json  # and the report as JSON
    .venv/bin/python scripts/eval_free_signal.py --extract        # landmarks from the media again (~2 min)
    .venv/bin/python scripts/eval_free_signal.py --before-commit a3f6633   # "before": free.py of that commit

Landmarks are extracted the way the practice page's enrolment extracts them
(`tablereferee.practice.enrol`: one whole-frame seat, every model on every frame, frames at
most 960 px) and kept in tests/fixtures/people/free_signal/ (docs/signals.md, "Free Signals").
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from tablereferee.practice.drill import DRILL_RATES, MAX_SIDE  # noqa: E402
from vision.landmarks.calibration import whole_frame  # noqa: E402
from vision.landmarks.extract import LandmarkExtractor  # noqa: E402
from vision.signals import features as F  # noqa: E402
from vision.signals import free  # noqa: E402
from vision.signals.engine import seat_series  # noqa: E402
from vision.signals.real_eval import FIXTURES, find_media, load_landmarks, save_landmarks  # noqa: E402
from vision.video import open_frames  # noqa: E402

OUT = FIXTURES / "free_signal"
FPS = 10.0
PLAYER = "player"
# Videos extracted whole at FPS; photos as "takes": the photo re-framed a little on every frame
# (scaled, turned and shifted by a seeded random amount) and run through MediaPipe again, so a
# take of a held pose carries MediaPipe's own jitter.
VIDEOS = ("mps_gesture_recognizer_test_video", "mps_hand_landmarker_test_video", "mps_image_classification_test_video")
PHOTOS = (
    "mptasks_thumbs_up",
    "mptasks_thumbs_down",
    "mptasks_victory",
    "mptasks_pointing_up",
    "mps_hand_thumb_up",
    "mptasks_google_sample_woman_hands",
)
TAKES = 3
TAKE_FRAMES = 10  # 1 s at FPS
# The gesture clip as the practice page sends its takes: each take a recording of its own (a
# fresh extractor), 640x360 JPEG frames at 10 a second. Seconds of the clip.
CLIP = "mps_gesture_recognizer_test_video"
CLIP_TAKES = {
    "thumbs_2.8": (2.8, 4.0),
    "thumbs_3.0": (3.0, 4.2),
    "thumbs_3.2": (3.2, 4.4),
    "thumbs_4.4": (4.4, 5.6),
    "thumbs_6.0": (6.0, 7.2),
    "raise_1.0": (1.0, 2.4),
    "raise_1.1": (1.1, 2.3),
    "raise_1.2": (1.2, 2.4),
    "cheek_0.6": (0.6, 1.5),
}


def _slim(frames):
    """Keep only the FaceMesh points the signal features read (the others are set to the nose
    tip), so that a fixture stays small; Hands and Pose are kept whole."""

    keep = {F.NOSE_TIP, F.FOREHEAD, F.FACE_TOP, F.LIP_INNER_UPPER, F.LIP_INNER_LOWER, *F.CHIN, *F.MOUTH}
    for s in ("left", "right"):
        keep |= {F.EYE_OUTER[s], F.EYE_INNER[s], F.CHEEK[s], *F.EYE_UPPER[s], *F.EYE_LOWER[s]}
    out = []
    for f in frames:
        persons = []
        for p in f.persons:
            if p.face is not None:
                face = np.repeat(p.face[F.NOSE_TIP][None], len(p.face), axis=0)
                idx = sorted(keep)
                face[idx] = p.face[idx]
                p = p.replace(face=face)
            persons.append(p)
        out.append(dataclasses.replace(f, persons=tuple(persons)))
    return out


def _reframe(img, rng):
    import cv2  # deferred: only extraction needs OpenCV

    h, w = img.shape[:2]
    scale = rng.uniform(0.88, 1.0)
    angle = rng.uniform(-6.0, 6.0)
    shift = rng.uniform(-0.03, 0.03, 2) * (w, h)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    m[:, 2] += shift
    return cv2.warpAffine(img, m, (w, h), borderMode=cv2.BORDER_REPLICATE)


def extract() -> None:
    import cv2  # deferred: only extraction needs OpenCV

    def fit(img):
        h, w = img.shape[:2]
        if max(h, w) > MAX_SIDE:
            k = MAX_SIDE / max(h, w)
            img = cv2.resize(img, (round(w * k), round(h * k)), interpolation=cv2.INTER_AREA)
        return img

    OUT.mkdir(parents=True, exist_ok=True)
    cal = whole_frame(PLAYER)
    for stem in VIDEOS:
        path = find_media(stem)
        assert path is not None, stem
        frames: list = []
        with LandmarkExtractor(cal, DRILL_RATES, workers=1) as ex, open_frames(path) as src:
            next_t = 0.0
            for fr in src:
                if fr.time + 1e-6 < next_t:
                    continue
                frames.append(ex.process(fit(fr.image), round(next_t, 3), len(frames)))
                next_t += 1.0 / FPS
        save_landmarks(OUT / f"{stem}.json.gz", _slim(frames), cal)
        print(stem, len(frames), "frames", flush=True)
    for stem in PHOTOS:
        path = find_media(stem)
        assert path is not None, stem
        img = fit(cv2.imread(str(path)))
        rng = np.random.default_rng(sum(map(ord, stem)))
        frames = []
        for take in range(TAKES):
            # each take is a fresh start for MediaPipe's trackers, as a new recording is
            with LandmarkExtractor(cal, DRILL_RATES, workers=1) as ex:
                for k in range(TAKE_FRAMES):
                    t = round(take * 10.0 + k / FPS, 3)  # take n at 10n s
                    frames.append(ex.process(_reframe(img, rng), t, len(frames)))
        save_landmarks(OUT / f"{stem}.json.gz", _slim(frames), cal)
        print(stem, len(frames), "frames", flush=True)


def extract_clip_takes() -> None:
    import cv2  # deferred: only extraction needs OpenCV

    path = find_media(CLIP)
    assert path is not None
    with open_frames(path) as src:
        all_frames = [(fr.time, fr.image) for fr in src]
    cal = whole_frame(PLAYER)
    for name, (a, b) in CLIP_TAKES.items():
        picks, next_t = [], a
        for t, img in all_frames:
            if t + 1e-6 >= next_t and t <= b + 1e-6:
                small = cv2.resize(img, (640, 360), interpolation=cv2.INTER_AREA)
                picks.append(cv2.imdecode(cv2.imencode(".jpg", small)[1], cv2.IMREAD_COLOR))
                next_t += 1.0 / FPS
        with LandmarkExtractor(cal, DRILL_RATES, workers=1) as ex:
            frames = [ex.process(img, round(k / FPS, 3), k) for k, img in enumerate(picks)]
        save_landmarks(OUT / f"{CLIP}.{name}.json.gz", _slim(frames), cal)
        print(name, len(frames), "frames", flush=True)


# -- the evaluation ---------------------------------------------------------------------------

TUNE, HELD_OUT = "tune", "held-out"
SPLIT = {  # docs/signals.md: the held-out real files, on which nothing is tuned
    CLIP: TUNE,
    "mps_image_classification_test_video": TUNE,
    "mptasks_thumbs_up": TUNE,
    "mptasks_thumbs_down": TUNE,
    "mptasks_victory": TUNE,
    "mptasks_pointing_up": TUNE,
    "mps_hand_landmarker_test_video": HELD_OUT,
    "mps_hand_thumb_up": HELD_OUT,
    "mptasks_google_sample_woman_hands": HELD_OUT,
}
GESTURE = {  # what each take or photo shows (the person's own sides)
    "thumbs": "thumbs-up held before the face (right hand)",
    "raise": "right fist raised above the head",
    "cheek": "right fist arriving beside the cheek",
    "mptasks_thumbs_up": "thumbs-up at the chest (right hand)",
    "mptasks_thumbs_down": "thumbs-down before the face (right hand)",
    "mptasks_victory": "victory sign (right hand)",
    "mptasks_pointing_up": "left index pointing up at head height",
    "mps_hand_thumb_up": "thumbs-up, a hand alone (no face)",
    "mptasks_google_sample_woman_hands": "open hand held out at the chin, the other on the head",
    "open": "open hand held low, turning (no face)",
}
HAND_VIDEO = "mps_hand_landmarker_test_video"
HAND_WINDOWS = {"open_2": (2.0, 3.0), "open_4": (4.0, 5.0), "open_6": (6.0, 7.0)}


def take(ref: str):
    """A take's (series, file, gesture): "thumbs_2.8" (a clip take), "mptasks_victory:1" (a
    photo's take 1), "open_4" (a window of the hand clip)."""

    if ref in CLIP_TAKES:
        frames, cal = load_landmarks(OUT / f"{CLIP}.{ref}.json.gz")
        return seat_series(frames, cal, PLAYER), CLIP, ref.split("_")[0]
    if ref in HAND_WINDOWS:
        a, b = HAND_WINDOWS[ref]
        frames, cal = load_landmarks(OUT / f"{HAND_VIDEO}.json.gz")
        return seat_series([f for f in frames if a <= f.t <= b], cal, PLAYER), HAND_VIDEO, "open"
    stem, k = ref.split(":")
    frames, cal = load_landmarks(OUT / f"{stem}.json.gz")
    t0 = 10.0 * int(k)
    return seat_series([f for f in frames if t0 <= f.t < t0 + 5], cal, PLAYER), stem, stem


# (name, takes, index of the take that is another gesture or None)
SETS: tuple[tuple[str, tuple[str, ...], int | None], ...] = (
    ("clip: three thumbs-ups 0.2 s apart", ("thumbs_2.8", "thumbs_3.0", "thumbs_3.2"), None),
    ("clip: three thumbs-ups 1.4 s apart", ("thumbs_2.8", "thumbs_4.4", "thumbs_6.0"), None),
    ("clip: three raises", ("raise_1.0", "raise_1.1", "raise_1.2"), None),
    ("clip: two thumbs-ups and a raise", ("thumbs_2.8", "thumbs_4.4", "raise_1.2"), 2),
    ("clip: two thumbs-ups and a raise (the web test's)", ("thumbs_2.8", "thumbs_3.2", "raise_1.0"), 2),
    ("clip: a fist at the cheek among thumbs-ups", ("thumbs_2.8", "cheek_0.6", "thumbs_6.0"), 1),
    ("clip: a thumbs-up among raises", ("raise_1.0", "thumbs_3.0", "raise_1.2"), 1),
    ("photo: three thumbs-ups", tuple(f"mptasks_thumbs_up:{k}" for k in range(3)), None),
    ("photo: three thumbs-downs", tuple(f"mptasks_thumbs_down:{k}" for k in range(3)), None),
    ("photo: three victory signs", tuple(f"mptasks_victory:{k}" for k in range(3)), None),
    ("photo: three pointing up", tuple(f"mptasks_pointing_up:{k}" for k in range(3)), None),
    (
        "photos: a thumbs-down among thumbs-ups",
        ("mptasks_thumbs_up:0", "mptasks_thumbs_down:0", "mptasks_thumbs_up:1"),
        1,
    ),
    ("photos: a victory sign among thumbs-ups", ("mptasks_thumbs_up:0", "mptasks_thumbs_up:2", "mptasks_victory:0"), 2),
    (
        "photos: a pointing hand among victory signs",
        ("mptasks_victory:0", "mptasks_victory:1", "mptasks_pointing_up:0"),
        2,
    ),
    ("photo: three thumbs-ups, a hand alone", tuple(f"mps_hand_thumb_up:{k}" for k in range(3)), None),
    ("photo: three open hands at the chin", tuple(f"mptasks_google_sample_woman_hands:{k}" for k in range(3)), None),
    ("hand clip: three open hands", tuple(HAND_WINDOWS), None),
    ("hand clip and photo: a thumbs-up among open hands", ("open_2", "open_4", "mps_hand_thumb_up:0"), 2),
)
# Streams matched after each enrolment, with where each gesture is in them (seconds): the clips
# whole, each photo's takes one by one. An event overlapping none of the enrolled gesture's
# places (0.3 s slack) is a false event.
STREAMS: tuple[tuple[str, str, dict[str, tuple[float, float]]], ...] = (
    (CLIP, CLIP, {"thumbs": (2.4, 7.8), "raise": (1.0, 2.45), "cheek": (0.8, 1.45)}),
    (HAND_VIDEO, HAND_VIDEO, {"open": (0.0, 8.2)}),
    ("mps_image_classification_test_video", "mps_image_classification_test_video", {}),
    *((f"{stem}:{k}", stem, {stem: (-1.0, 99.0)}) for stem in PHOTOS for k in range(TAKES)),
)


def _stream(ref: str):

    if ":" in ref:
        return take(ref)[0]
    frames, cal = load_landmarks(OUT / f"{ref}.json.gz")
    return seat_series(frames, cal, PLAYER)


def _module(commit: str | None):
    """free.py as it is, or as it was at `commit` (for the "before" column)."""
    if commit is None:
        return free

    src = subprocess.run(
        ["git", "show", f"{commit}:vision/signals/free.py"],
        capture_output=True,
        text=True,
        check=True,
        cwd=FIXTURES.parents[2],
    ).stdout
    path = Path(tempfile.mkdtemp()) / "free_before.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("free_before", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["free_before"] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def _templates(mod, series):
    out = []
    for s in series:
        _, x = mod.resample(s.t, mod.frame_features(s))
        out.append(mod.trim_still(x) if len(x) >= 3 else x)
    return out


def evaluate(commit: str | None = None) -> dict:
    """Every set of takes learnt (accepted or refused, and the numbers), then each accepted one
    matched on every stream (hits and false events)."""
    mod = _module(commit)
    streams = {ref: _stream(ref) for ref, _, _ in STREAMS}
    rows = []
    for name, refs, odd in SETS:
        got = [take(r) for r in refs]
        series = [g[0] for g in got]
        row: dict = {"set": name, "takes": list(refs), "files": sorted({g[1] for g in got}), "odd": odd}
        row["gestures"] = [g[2] for g in got]
        tpl = _templates(mod, series)
        if min(len(x) for x in tpl) >= 2:
            pair = mod.pair_costs(tpl)
            keep = [k for k in range(len(refs)) if k != odd]
            row["agreeing"] = round(max(float(pair[a, b]) for a in keep for b in keep if a < b), 3)
            if odd is not None:
                row["different"] = round(min(float(pair[odd, k]) for k in keep), 3)
        try:
            fs = mod.FreeSignal.learn(series, name="Reds")
        except mod.FreeSignalError as exc:
            row["decision"] = "refused"
            row["reason"] = exc.message
            # right: another gesture was there, and the take named is that one (or the set as a whole)
            row["correct"] = (
                odd is not None
                and isinstance(exc, mod.DemonstrationsDisagree)
                and exc.details.get("demonstrations") in (None, [odd + 1])
            )
            rows.append(row)
            continue
        row["decision"] = "accepted"
        row["threshold"] = round(fs.threshold, 3)
        row["correct"] = odd is None
        hits, false = [], []
        mine = {g[2] for g in got}
        for ref, stem, places in STREAMS:
            for e in fs.match(streams[ref]):
                own = [places[g] for g in mine if g in places]
                said = {"stream": ref, "file": stem, "start": e.start, "end": e.end, "team": e.evidence.get("team")}
                if any(e.start <= b + 0.3 and e.end >= a - 0.3 for a, b in own):
                    hits.append(said)
                else:
                    false.append(said)
        row["hits"], row["false"] = hits, false
        row["words"] = getattr(fs, "words", "")
        rows.append(row)
    return {"commit": commit or "working tree", "rows": rows}


def scaling_ablation(floors=(0.05, 0.1, 0.2)) -> list[str]:
    """Per-column scaling learnt from the takes' own spread (each column divided by its standard
    deviation over all the takes' frames, at least `floor`), against the fixed weights: how many
    sets are decided right, and the other gesture's distance over the agreeing takes' (the
    margin the refusal has)."""

    def templates(refs):
        return _templates(free, [take(r)[0] for r in refs])

    def judge(pair, odd):
        try:
            free.check_agreement(pair)
        except free.DemonstrationsDisagree as exc:
            return odd is not None and exc.details.get("demonstrations") in (None, [odd + 1])
        return odd is None

    def ratio(pair, odd):
        keep = [k for k in range(len(pair)) if k != odd]
        return min(float(pair[odd, k]) for k in keep) / max(float(pair[keep[0], keep[1]]), 1e-9)

    lines = []
    for floor in (None, *floors):
        right, ratios = 0, []
        for _name, refs, odd in SETS:
            tpl = templates(refs)
            if floor is not None:
                spread = np.nanstd(np.concatenate(tpl), axis=0)
                scale = 1.0 / np.maximum(np.nan_to_num(spread, nan=1.0), floor)
                tpl = [x * (scale / scale.mean()) for x in tpl]
            pair = free.pair_costs(tpl)
            right += judge(pair, odd)
            if odd is not None:
                ratios.append(ratio(pair, odd))
        what = "fixed weights" if floor is None else f"scaled by the takes' spread (at least {floor})"
        lines.append(f"| {what} | {right} of {len(SETS)} | {min(ratios):.2f} | {float(np.median(ratios)):.2f} |")
    return [
        "| columns | sets decided right | other gesture / agreeing takes, worst | median |",
        "|---|---|---|---|",
        *lines,
    ]


def _decision(row: dict | None) -> str:
    if row is None:
        return "-"
    if row["decision"] == "accepted":
        return f"accepted (threshold {row['threshold']:.2f})"
    return "refused" if "DemonstrationsDisagree" not in row.get("reason", "") else "refused"


def _num(row: dict | None, key: str) -> str:
    return "-" if row is None or key not in row else f"{row[key]:.2f}"


def _false(row: dict | None) -> str:
    if row is None or row["decision"] != "accepted":
        return "-"
    return str(len(row["false"]))


def _own(row: dict | None) -> str:
    """The events on the enrolled gesture's own places, per stream that holds it."""
    if row is None or row["decision"] != "accepted":
        return "-"
    per: dict[str, int] = {}
    for e in row["hits"]:
        per[e["stream"]] = per.get(e["stream"], 0) + 1
    return ", ".join(str(n) for n in per.values()) or "0"


def sets_table(after: dict, before: dict | None) -> str:
    prior = {r["set"]: r for r in before["rows"]} if before else {}
    lines = [
        "| takes | split | should be | agreeing takes apart | the other gesture apart | decision before -> after "
        "| right | events on it (per stream) | false events before -> after |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in after["rows"]:
        b = prior.get(r["set"])
        split = "/".join(sorted({SPLIT[f] for f in r["files"]}))
        should = "accepted" if r["odd"] is None else f"refused (take {r['odd'] + 1})"
        lines.append(
            f"| {r['set']} | {split} | {should} | {_num(b, 'agreeing')} -> {_num(r, 'agreeing')} | "
            f"{_num(b, 'different')} -> {_num(r, 'different')} | {_decision(b)} -> {_decision(r)} | "
            f"{'yes' if (b or {}).get('correct') else 'no'} -> {'yes' if r['correct'] else 'no'} | "
            f"{_own(b)} -> {_own(r)} | {_false(b)} -> {_false(r)} |"
        )
    return "\n".join(lines)


def files_table(after: dict, before: dict | None) -> str:
    """Per real file: its sets decided right, the agreeing and the different distances (the
    worst of each), and the false events on it after the accepted enrolments."""

    def per_file(report: dict) -> dict:
        out: dict = {}
        for r in report["rows"]:
            for f in r["files"]:
                d = out.setdefault(f, {"sets": 0, "right": 0, "agree": [], "diff": [], "false": 0, "hits": 0})
                d["sets"] += 1
                d["right"] += bool(r["correct"])
                if "agreeing" in r:
                    d["agree"].append(r["agreeing"])
                if "different" in r:
                    d["diff"].append(r["different"])
            for e in r.get("false", []):
                out.setdefault(e["file"], {"sets": 0, "right": 0, "agree": [], "diff": [], "false": 0, "hits": 0})
                out[e["file"]]["false"] += 1
        return out

    a, b = per_file(after), per_file(before) if before else {}
    lines = [
        "| file | split | what it shows | sets decided right | agreeing takes apart (worst) "
        "| other gesture apart (nearest) | false events on it |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in SPLIT:
        x, y = a.get(f, {}), b.get(f, {})

        def worst(d, k, fn):
            return f"{fn(d[k]):.2f}" if d.get(k) else "-"

        if f == CLIP:
            what = "clip: " + ", ".join(GESTURE[g] for g in ("cheek", "raise", "thumbs"))
        elif f == HAND_VIDEO:
            what = GESTURE["open"]
        else:
            what = GESTURE.get(f, "seated at a table, a hand on a trackpad")
        right = f"{y.get('right', '-')} -> {x.get('right', 0)} of {x.get('sets', 0)}"
        agree = f"{worst(y, 'agree', max)} -> {worst(x, 'agree', max)}"
        diff = f"{worst(y, 'diff', min)} -> {worst(x, 'diff', min)}"
        false = f"{y.get('false', '-') if before else '-'} -> {x.get('false', 0)}"
        lines.append(f"| {f} | {SPLIT[f]} | {what} | {right} | {agree} | {diff} | {false} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extract", action="store_true", help="extract the landmarks from the media again")
    ap.add_argument("--before-commit", help="also run free.py of this commit (the 'before' column)")
    ap.add_argument("--before", type=Path, help="an earlier report (JSON) for the 'before' column")
    ap.add_argument("--json", type=Path, help="write the report here")
    ap.add_argument("--reasons", action="store_true", help="print every refusal's reason")
    ap.add_argument("--scaling", action="store_true", help="also try columns scaled by the takes' own spread")
    args = ap.parse_args(argv)
    if args.extract:
        extract()
        extract_clip_takes()
    after = evaluate()
    before = None
    if args.before_commit:
        before = evaluate(args.before_commit)
    elif args.before:
        before = json.loads(args.before.read_text())
    print(sets_table(after, before))
    print()
    print(files_table(after, before))
    if args.scaling:
        print()
        print("\n".join(scaling_ablation()))
    if args.reasons:
        for r in after["rows"]:
            print(f"\n{r['set']}: {r.get('reason') or r.get('words')}")
            for e in r.get("false", []):
                print(f"  false event: {e}")
    if args.json:
        args.json.write_text(json.dumps({"after": after, "before": before}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
