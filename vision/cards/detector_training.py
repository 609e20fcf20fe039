"""Training the card detector (Ultralytics pose, 2 classes, 4 corner keypoints) and writing its
record and model card (`scripts/train_card_detector.py` is the command).

Runs in the training venv (`.venv-train`: torch, ultralytics; see requirements-train.txt),
entirely offline (`detector_eval.offline_ultralytics`). A run lives in runs/card_detector/NAME/
(Ultralytics' run: weights, results.csv, progress.jsonl); `export_and_evaluate` writes
card_detector.onnx, metrics.json, train_log.txt and MODEL_CARD.md to the output folder.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from vision.cards import detector_eval, detector_real
from vision.cards.detector import CardDetector
from vision.cards.detector_eval import ROOT, RUNS, offline_ultralytics


def _progress_callback(log_path: Path, stop_file: Path):
    t0 = time.time()

    def on_fit_epoch_end(trainer):
        m = {k: round(float(v), 4) for k, v in (trainer.metrics or {}).items()}
        line = {
            "epoch": trainer.epoch + 1,
            "epochs": trainer.epochs,
            "elapsed_s": round(time.time() - t0),
            "epoch_s": round(trainer.epoch_time or 0, 1),
            "loss": {k: round(float(v), 4) for k, v in trainer.label_loss_items(trainer.tloss).items()},
            "val": m,
        }
        with open(log_path, "a") as f:
            f.write(json.dumps(line) + "\n")

    def on_train_batch_end(trainer):
        if stop_file.exists():
            trainer.stop = True

    return on_fit_epoch_end, on_train_batch_end


def train_arguments(args) -> dict:
    """Ultralytics' `train` arguments for a run of this script."""
    kw = dict(
        data=str(Path(args.data).resolve()),
        epochs=args.epochs,
        imgsz=args.imgsz,
        batch=args.batch,
        device="cpu",
        workers=args.workers,
        project=str(RUNS / "card_detector"),
        name=args.name,
        exist_ok=True,
        pretrained=str(args.init) if args.init else False,
        amp=False,
        plots=False,
        seed=args.seed,
        deterministic=False,
        patience=max(args.epochs, 100),
        cache=args.cache,
        save_period=1,  # every epoch's weights, for --select-on
        # the scenes already carry perspective, rotation, colour and blur; mirrored cards do not exist
        fliplr=0.0,
        degrees=0.0,
        mosaic=args.mosaic,
        close_mosaic=args.close_mosaic,
        hsv_h=0.01,
        hsv_s=0.4,
        hsv_v=0.3,
        scale=0.4,
        translate=0.1,
        warmup_epochs=args.warmup_epochs,
    )
    if args.hours:
        kw["time"] = args.hours
    if args.lr0 is not None:  # Ultralytics' automatic choice ignores lr0: name what it picks
        # (AdamW, beta1 0.9, biases warmed up from 0: the default bias warm-up from 0.1 is for SGD
        # and would shake a trained model's biases hard in its first steps)
        kw.update(optimizer="AdamW", lr0=args.lr0, momentum=0.9, warmup_bias_lr=0.0)
    if getattr(args, "freeze", None):  # Ultralytics freezes the parameters named model.<x>.*
        kw["freeze"] = list(args.freeze)
    if getattr(args, "rect", False):  # batches of one aspect each (Ultralytics then cannot shuffle)
        kw["rect"] = True
    return kw


def train(args) -> Path:
    offline_ultralytics(args.threads)
    from ultralytics import YOLO  # deferred: torch and Ultralytics, the training venv only

    run_dir = RUNS / "card_detector" / args.name
    run_dir.mkdir(parents=True, exist_ok=True)
    log_path = run_dir / "progress.jsonl"
    stop_file = run_dir / "STOP"
    stop_file.unlink(missing_ok=True)
    model = YOLO(args.model, task="pose")
    if args.init:
        model.load(str(args.init))  # weights of an earlier run of the same YAML
        init = init_record(Path(args.init))
        (run_dir / "init.json").write_text(json.dumps(init, indent=1))
    fit_end, batch_end = _progress_callback(log_path, stop_file)
    model.add_callback("on_fit_epoch_end", fit_end)
    model.add_callback("on_train_batch_end", batch_end)
    kw = train_arguments(args)
    t0 = time.time()
    try:
        model.train(**kw)
    except KeyboardInterrupt:
        print("training interrupted: exporting the best checkpoint so far", flush=True)
    (run_dir / "train_seconds.txt").write_text(f"{time.time() - t0:.0f}\n")
    return run_dir


def _epoch_number(path: Path) -> int:
    return int(path.stem.removeprefix("epoch"))


def test_split_problem(data: Path) -> str | None:
    """Why the model could not be measured on `data`'s test split after training, or None."""
    if not data.is_file():
        return "no such file"
    if not any(line.startswith("test:") for line in data.read_text().splitlines()):
        return (
            "no `test:` split: the model is measured on the held-out split after training; link "
            "`images/test` and `labels/test` to `datasets/generated/cards_v2`'s and add `test: images/test`"
        )
    images = detector_eval.read_yaml_path(data) / "images" / "test"
    if not any(images.glob("*.jpg")):
        return f"no images in {images}"
    return None


def dataset_meta(data: Path) -> dict | None:
    """The generator's `meta.json` of `data`; a test split linked from another dataset (the
    held-out split every model is measured on) is described by that dataset's meta."""
    meta_path = data.resolve().parent / "meta.json"
    if not meta_path.exists():
        return None
    meta = json.loads(meta_path.read_text())
    test = detector_eval.read_yaml_path(data) / "images" / "test"
    linked_meta = test.resolve().parents[1] / "meta.json"
    if "test" not in meta.get("splits", {}) and test.is_symlink() and linked_meta.exists():
        linked = json.loads(linked_meta.read_text())
        if "test" in linked.get("splits", {}):
            meta.setdefault("splits", {})["test"] = dict(
                linked["splits"]["test"],
                linked_from=str(
                    linked_meta.parent.relative_to(ROOT) if linked_meta.is_relative_to(ROOT) else linked_meta.parent
                ),
            )
    return meta


def run_progress(run_dir: Path) -> list[dict]:
    """A run's per-epoch log (`progress.jsonl`), one entry per epoch trained."""
    path = Path(run_dir) / "progress.jsonl"
    progress = [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []
    by_epoch = {p["epoch"]: p for p in progress}  # the final validation repeats the last epoch
    progress = [by_epoch[k] for k in sorted(by_epoch)]
    if len(progress) >= 2 and progress[-1].get("loss") == progress[-2].get("loss"):
        progress = progress[:-1]  # a run stopped on time logs its final validation as one more epoch
    return progress


def init_record(weights: Path) -> dict:
    """What the initial weights are: their run's epochs, training time and training data, read
    from the run folder they were saved in (`RUN/weights/X.pt`)."""
    weights = weights.resolve()
    rec: dict = {"weights": str(weights.relative_to(ROOT)) if weights.is_relative_to(ROOT) else str(weights)}
    run = weights.parent.parent
    if progress := run_progress(run):
        rec["epochs_run"] = len(progress)
    if weights.stem.startswith("epoch") and weights.stem[5:].isdigit():
        rec["epoch"] = _epoch_number(weights) + 1  # weights saved after that epoch, not the run's end
    if (run / "train_seconds.txt").exists():
        rec["train_seconds"] = float((run / "train_seconds.txt").read_text())
    data = run_arg(run, "data")
    meta = dataset_meta(Path(data)) if data and Path(data).is_file() else None
    if meta:
        rec["dataset_splits"] = {
            k: {kk: v.get(kk) for kk in ("images", "cards", "designs")} for k, v in meta.get("splits", {}).items()
        }
    return rec


def run_arg(run_dir: Path, key: str) -> str | None:
    """One of the arguments a run was trained with (its `args.yaml`)."""
    args_yaml = Path(run_dir) / "args.yaml"
    value = (yaml.safe_load(args_yaml.read_text()) or {}).get(key) if args_yaml.is_file() else None
    return None if value is None else str(value)


def _exported_epochs(run_dir: Path, imgsz: int, dynamic: bool = False) -> Iterator[tuple[Path, Path]]:
    """Each per-epoch checkpoint of a run (`epochN.pt`, N from 0) with its ONNX export (with
    dynamic height and width for a run trained on rectangular batches)."""
    from ultralytics import YOLO  # deferred: torch and Ultralytics, the training venv only

    for ckpt in sorted((run_dir / "weights").glob("epoch*.pt"), key=_epoch_number):
        yield (
            ckpt,
            Path(
                YOLO(str(ckpt), task="pose").export(
                    format="onnx", imgsz=imgsz, opset=18, simplify=True, dynamic=dynamic
                )
            ),
        )


def select_checkpoint(run_dir: Path, select_on: Path, imgsz: int) -> tuple[Path, list[dict]]:
    """Of the run's per-epoch checkpoints (`epochN.pt`, N from 0), the one that finds most
    face-up cards in the test split of `select_on` (then the most precise): a selection split of
    the held-out design and backgrounds, with scenes of its own, so that the test split still
    measures a model chosen without it."""
    rows = []
    for ckpt, onnx in _exported_epochs(run_dir, imgsz):
        m = detector_eval.evaluate(onnx, select_on, split="test", imgsz=imgsz, with_ultralytics=False)
        rows.append(
            {
                "checkpoint": ckpt.name,
                "epoch": _epoch_number(ckpt) + 1,
                "recall_face_up": m["recall_face_up"],
                "precision": m["precision"],
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    if not rows:
        raise SystemExit(f"--select-on: no epochN.pt checkpoints in {run_dir / 'weights'}")
    best = max(rows, key=lambda r: (r["recall_face_up"], r["precision"]))
    return run_dir / "weights" / best["checkpoint"], rows


def select_checkpoint_on_real(run_dir: Path, imgsz: int, dynamic: bool = False) -> tuple[Path, list[dict]]:
    """The epoch whose weights place most face-up cards right on the *tune* real photos
    (`vision.cards.detector_real`; the held-out photos are not looked at), fewest fragments,
    then fewest false detections breaking ties. The photos are the project's copy
    (`tests/fixtures/cards_real/edje`, the same photos and boxes as the shared one)."""
    photos = [p for p in detector_real.load_photos(detector_real.FIXTURE) if p.split == "tune"]
    rows: list[dict[str, Any]] = []
    for ckpt, onnx in _exported_epochs(run_dir, imgsz, dynamic):
        t = detector_real.totals(detector_real.evaluate(CardDetector(onnx, threads=2), photos))["tune"]
        rows.append({"checkpoint": ckpt.name, "epoch": _epoch_number(ckpt) + 1, "real_tune": t})
        print(json.dumps(rows[-1]), flush=True)
    if not rows:
        raise SystemExit(f"--select-on-real: no epochN.pt checkpoints in {run_dir / 'weights'}")
    best = max(
        rows, key=lambda r: (r["real_tune"]["face_up_right"], -r["real_tune"]["fragments"], -r["real_tune"]["false"])
    )
    return run_dir / "weights" / best["checkpoint"], rows


def export_and_evaluate(run_dir: Path, args) -> dict:
    offline_ultralytics(args.threads)
    from ultralytics import YOLO  # deferred: torch and Ultralytics, the training venv only

    selection = None
    dynamic = bool(getattr(args, "rect", False))
    if getattr(args, "select_on_real", False):
        weights, selection = select_checkpoint_on_real(run_dir, args.imgsz, dynamic)
    elif args.select_on:
        weights, selection = select_checkpoint(run_dir, args.select_on, args.imgsz)
    else:
        weights = run_dir / "weights" / "best.pt"
        if not weights.exists():
            weights = run_dir / "weights" / "last.pt"
    if not weights.exists():
        raise SystemExit(f"no checkpoint in {run_dir / 'weights'}")
    model = YOLO(str(weights), task="pose")
    onnx_path = Path(model.export(format="onnx", imgsz=args.imgsz, opset=18, simplify=True, dynamic=dynamic))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    target = out / "card_detector.onnx"
    shutil.copy(onnx_path, target)

    metrics = detector_eval.evaluate(target, Path(args.data), split="test", imgsz=args.imgsz, with_ultralytics=True)
    # the training record
    progress = run_progress(run_dir)
    ckpt_info = {}
    try:
        import torch  # deferred: the training venv only

        ck = torch.load(weights, map_location="cpu", weights_only=False)
        ckpt_info = {"date": ck.get("date"), "best_fitness": ck.get("best_fitness")}
    except Exception as exc:  # the record is still useful without it
        ckpt_info = {"error": str(exc)}
    import ultralytics  # deferred: the training venv only

    record = {
        "model": args.model,
        "imgsz": args.imgsz,
        "checkpoint": weights.name,
        "checkpoint_info": ckpt_info,
        "epochs_run": len(progress),
        "train_seconds": float((run_dir / "train_seconds.txt").read_text())
        if (run_dir / "train_seconds.txt").exists()
        else None,
        "dataset": dataset_meta(Path(args.data)),
        "selection": {
            "data": "the tune real photos (tests/fixtures/cards_real/edje)"
            if getattr(args, "select_on_real", False)
            else str(Path(args.select_on).resolve().relative_to(ROOT)),
            "epochs": selection,
        }
        if selection
        else None,
        "held_out_test": metrics,
        "last_val": progress[-1]["val"] if progress else None,
        "versions": {"ultralytics": ultralytics.__version__, "torch": torch.__version__},
        "exported": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "onnx_bytes": target.stat().st_size,
    }
    if (run_dir / "init.json").exists():
        record["init"] = json.loads((run_dir / "init.json").read_text())
    record["real_photos"] = detector_eval.real_photos(target, imgsz=args.imgsz)
    shipped = ROOT / "models" / "card_detector" / "metrics.json"  # read before `out` may replace it
    before = json.loads(shipped.read_text()) if shipped.is_file() else None
    (out / "metrics.json").write_text(json.dumps(record, indent=1) + "\n")
    lines = [json.dumps(p) for p in progress]
    (out / "train_log.txt").write_text(
        f"# one line per epoch: {run_dir.relative_to(ROOT)}, {args.model}, imgsz {args.imgsz}\n"
        + "\n".join(lines)
        + "\n"
    )
    write_model_card(out / "MODEL_CARD.md", record, provisional=args.provisional, before=before)
    print(json.dumps(metrics, indent=1))
    return record


def _init_row(r: dict) -> str:
    init = r.get("init")
    if not init:
        return ""
    epochs = f"{init['epochs_run']} epochs" if init.get("epochs_run") else ""
    if init.get("epoch"):
        epochs = f"epoch {init['epoch']}" + (f" of {init['epochs_run']}" if init.get("epochs_run") else "")
    trained = " and ".join(
        x for x in (epochs, f"{init['train_seconds']:.0f} s" if init.get("train_seconds") else "") if x
    )
    train = (init.get("dataset_splits") or {}).get("train") or {}
    if train.get("images"):
        trained += f" on {train['images']} training scenes ({', '.join(train.get('designs') or [])})"
    return (
        f"| initial weights | `{init['weights']}`: an earlier run of the same YAML here"
        f"{', ' + trained.strip() if trained else ''} |\n"
    )


def _chosen(r: dict) -> str:
    sel = r.get("selection")
    if not sel:
        return "the best by validation fitness"
    if sel["epochs"] and "real_tune" in sel["epochs"][0]:
        placed = ", ".join(f"{e['real_tune']['face_up_right']}/{e['real_tune']['fragments']}" for e in sel["epochs"])
        return (
            "the epoch that placed most face-up cards right on the tune real photos (fewest fragments "
            f"breaking ties; the held-out real photos not looked at); face up right / fragments after each "
            f"epoch: {placed}"
        )
    recalls = ", ".join(f"{e['recall_face_up']:.3f}" for e in sel["epochs"])
    return (
        f"the epoch that found most face-up cards in the selection split `{sel['data']}`; "
        f"its recall after each epoch: {recalls}"
    )


def _real_photos_section(r: dict) -> str:
    real = r.get("real_photos")
    if not real:
        return ""
    rows = "".join(
        f"| {name} | {v['expected']} | {v['found']} | {v.get('detections', v['found'])} |\n"
        for name, v in real["images"].items()
    )
    return f"""## Real photos

{real["note"]}

| image | cards in it | cards found | detections (conf {real["conf"]}) |
|---|---|---|---|
{rows}
"""


VARIED = """ The training and validation scenes are `--varied`: more backgrounds
(clutter of sheets, cups and pens on a cloth, dots, a colour mosaic, scikit-image's sample
photographs cropped, scaled and turned), designs with paler or resized pips, cards down to 28 px
high and steeper camera tilts."""


def _fmt(v) -> str:
    return "n/a" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))


METRIC_ROWS = (
    ("box mAP50", "map50_box"),
    ("pose (corner) mAP50", "map50_pose"),
    ("box mAP50-95", "map50_95_box"),
    ("recall of face-up cards (IoU 0.5, conf {conf}, COCO's matching)", "recall_face_up"),
    ("... with the face-up class right", "recall_face_up_right_class"),
    ("recall of all cards", "recall_all"),
    ("precision (conf {conf})", "precision"),
    (
        "corner error, median / 90th percentile, fraction of the card's diagonal",
        ("corner_error_median_of_diagonal", "corner_error_p90_of_diagonal"),
    ),
    ("Beccato! faces read the right way up ({orientation_cards} cards)", "orientation_accuracy_beccato"),
)


def comparable(m: dict, before: dict | None) -> bool:
    """Whether an earlier model's held-out metrics are of the same scenes at the same threshold."""
    b = (before or {}).get("held_out_test") or {}
    return bool(b) and all(b.get(k) == m.get(k) for k in ("images", "cards", "face_up_cards", "conf"))


def _metrics_table(m: dict, before: dict | None) -> str:
    b = before["held_out_test"] if before is not None and comparable(m, before) else None

    def cell(x: dict, key) -> str:
        return " / ".join(_fmt(x.get(k)) for k in key) if isinstance(key, tuple) else _fmt(x.get(key))

    head = "| metric | value |" + (" the model shipped before |" if b else "")
    rule = "|---|---|" + ("---|" if b else "")
    rows = [
        f"| {label.format(**m)} | {cell(m, key)} |" + (f" {cell(b, key)} |" if b else "") for label, key in METRIC_ROWS
    ]
    return "\n".join([head, rule, *rows]) + "\n"


def _breakdown(m: dict, before: dict | None) -> str:
    """Recall of face-up cards by group, and at other thresholds (with the model before's)."""
    b = before["held_out_test"] if before is not None and comparable(m, before) else {}
    lines = []
    at, at_b = m.get("at_conf") or {}, b.get("at_conf") or {}

    def series(at_conf: dict) -> str:
        return (
            "recall "
            + " / ".join(_fmt(v["recall_face_up"]) for v in at_conf.values())
            + ", precision "
            + " / ".join(_fmt(v["precision"]) for v in at_conf.values())
        )

    if at:
        lines.append(
            f"Recall and precision at other confidence thresholds (conf {' / '.join(at)}): {series(at)}"
            + (f" (the model before: {series(at_b)})" if list(at_b) == list(at) else "")
            + "."
        )
    names = {
        "background": "background",
        "deck": "deck",
        "short_side": "the card's short side in the model's input",
        "visible": "how much of the card shows",
    }
    by, by_b = m.get("recall_face_up_by") or {}, b.get("recall_face_up_by") or {}
    for kind, groups in by.items():
        parts = []
        for k, g in groups.items():
            was = (by_b.get(kind) or {}).get(k)
            parts.append(
                f"{k} {_fmt(g['recall'])} ({g['cards']} cards"
                + (f"; before {_fmt(was['recall'])}" if was else "")
                + ")"
            )
        lines.append(f"Recall of face-up cards by {names.get(kind, kind)}: " + ", ".join(parts) + ".")
    return "\n\n".join(lines) + ("\n" if lines else "")


def write_model_card(path: Path, r: dict, provisional: bool = False, before: dict | None = None) -> None:
    """The model card of record `r`; `before`, the record of the model shipped before it, adds a
    column when it was measured on the same held-out scenes."""
    m = r["held_out_test"]
    ds = r.get("dataset") or {}
    splits = ds.get("splits", {})

    def n(split, key="images"):
        return splits.get(split, {}).get(key, "?")

    designs = {k: ", ".join(splits.get(k, {}).get("designs", [])) for k in ("train", "val", "test")}
    bg = {k: ", ".join(sorted(splits.get(k, {}).get("backgrounds", {}))) for k in ("train", "test")}
    seconds = r["train_seconds"] or 0

    status = (
        "**PROVISIONAL**: a first short run so that the runtime can be built against real "
        "outputs; it is replaced by the main run.\n\n"
        if provisional
        else ""
    )
    text = f"""# Card detector: model card

{status}`card_detector.onnx`: finds playing cards in a frame, face up or face down, with their four
corners. It knows no card identities (identification matches rectified crops against the
templates of an enrolled deck). Input, output layout and decoding: `docs/card-detector.md`.

| | |
|---|---|
| architecture | Ultralytics YOLO11 pose, `{r["model"]}`, trained from the YAML (no pretrained weights) |
| classes | card_face_up, card_face_down |
| keypoints | 4 corners: top-left, top-right, bottom-right, bottom-left of the upright face |
| input | 1x3x{r["imgsz"]}x{r["imgsz"]} RGB 0..1, letterboxed |
| file | ONNX opset 18, {r["onnx_bytes"] / 1e6:.1f} MB; runs with onnxruntime alone |
| trained | {r["exported"]}, ultralytics {r["versions"]["ultralytics"]}, torch {r["versions"]["torch"]}, CPU |
| epochs | {r["epochs_run"]} (checkpoint `{r["checkpoint"]}`: {_chosen(r)}), {seconds:.0f} s of training |
{_init_row(r)}
## Data

Synthetic scenes only (`scripts/make_card_dataset.py`, seed {ds.get("seed", "?")}, {ds.get("width", "?")} px
wide): our own rendered faces and backs of the Beccato!, Italian and French decks
(`vision/cards/render.py`) on procedural felt, wood, stripes, noise and gradients
{"and scikit-image's brick and grass photos " if ds.get("skimage") else ""}under a camera perspective, lighting and
colour shifts, blur, noise and JPEG; scattered cards, piles, rows with overlapping cards, fans of
3-4 cards held in a hand (the middle one upside down sometimes, closed fans showing one or two
cards), face-down cards.{VARIED if ds.get("varied") else ""}

| split | images | cards | face up | designs | backgrounds |
|---|---|---|---|---|---|
| train | {n("train")} | {n("train", "cards")} | {n("train", "face_up")} | {designs["train"]} | {bg["train"]} |
| val | {n("val")} | {n("val", "cards")} | {n("val", "face_up")} | {designs["val"]} | as train |
| test (held out) | {n("test")} | {n("test", "cards")} | {n("test", "face_up")} | {designs["test"]} | {bg["test"]} |

The test split uses a card design and backgrounds that training never saw.
{("Recipe: " + ds["recipe"] + chr(10)) if ds.get("recipe") else ""}
## Metrics on the held-out test split

{_metrics_table(m, before)}
{_breakdown(m, before)}
{_real_photos_section(r)}Reproduce: `.venv-train/bin/python scripts/detector_eval.py` (after
`scripts/make_card_dataset.py` with the seed and counts above); the numbers are in
`metrics.json`, the per-epoch log in `train_log.txt`.

## As a PyTorch checkpoint

Only the ONNX file ships (the training checkpoints stay under `runs/` on the machine that trained
them). For a comparison with Ultralytics' own predict (`scripts/bench_cards.py`),
`.venv-train/bin/python scripts/detector_pt_from_onnx.py` rebuilds the same network from its
YAML (fused), loads every weight by name from `card_detector.onnx`, checks its output against
onnxruntime's and writes `card_detector.pt` here (git-ignored).

## At run time

The raw model's corner keypoints sometimes collapse onto a picture inside the card (their quad
covering under a fifth of the box) though the box is right. The runtime
(`vision/cards/detector.py`) then gives the box's corners; refinement snaps them to the card, and
a reader with a deck also tries the two cards inscribed in the box turned either way
(`vision/cards/refine.py`, `inscribed_cards`).

## Limits

Trained on synthetic scenes of our own designs only: real printings with dense artwork, strong
glare, or cards smaller than about 20 px in the letterboxed input are less reliable. The
up/down of French and Italian faces and of backs is not defined (their faces are 180-degree
symmetric): their corner order is canonicalised (top edge nearer the image top).
Licence note: trained with Ultralytics (AGPL-3.0).
"""
    path.write_text(text)
