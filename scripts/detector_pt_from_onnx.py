"""The shipped card detector as an Ultralytics PyTorch checkpoint, rebuilt from its ONNX file.

`scripts/bench_cards.py` compares our onnxruntime detector with Ultralytics' own PyTorch predict
of the same model. The training checkpoint (`runs/card_detector/.../epochN.pt`) stays on the
machine that trained it; this rebuilds an equivalent one from what ships: the network from
`models/card_detector/card-pose.yaml` (Conv and BatchNorm fused, as Ultralytics exports and
predicts), every weight taken by name from the ONNX file's initializers (a missing or misshaped
one is an error), saved as an Ultralytics checkpoint. Its raw output is checked against
onnxruntime's on a random input before it is written.

Run it in the training environment (torch and Ultralytics; the runtime `.venv` has neither):

    .venv-train/bin/python scripts/detector_pt_from_onnx.py          # -> models/card_detector/card_detector.pt
    .venv-train/bin/python scripts/bench_cards.py --frames 20         # finds it there
    .venv-train/bin/python scripts/detector_pt_from_onnx.py --onnx SQUARE.onnx --dynamic-onnx OUT.onnx
        # the same weights with dynamic height and width (how the shipped model was made)
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DETECTOR = ROOT / "models" / "card_detector"
TOLERANCE = 1e-5  # of the output's largest value: float rounding, not another model


def rebuild(onnx_path: Path, yaml_path: Path):
    """(Ultralytics PoseModel with the ONNX file's weights, fused; the ONNX metadata)."""
    import onnx  # deferred: onnx, torch and Ultralytics, the training venv only
    import torch  # deferred: the training venv only
    from onnx import numpy_helper  # deferred: the training venv only
    from ultralytics.nn.tasks import PoseModel  # deferred: the training venv only

    proto = onnx.load(str(onnx_path))
    meta = {p.key: p.value for p in proto.metadata_props}
    weights = {t.name: numpy_helper.to_array(t) for t in proto.graph.initializer}
    names = ast.literal_eval(meta.get("names", "{}"))  # a dict literal Ultralytics wrote
    model = PoseModel(str(yaml_path), nc=len(names) or None, verbose=False)
    model.fuse(verbose=False)
    state = model.state_dict()
    problems = [
        f"{k}: {tuple(v.shape)} in the network, "
        + (f"{tuple(weights[k].shape)} in the ONNX file" if k in weights else "not in the ONNX file")
        for k, v in state.items()
        if k not in weights or tuple(weights[k].shape) != tuple(v.shape)
    ]
    if problems:
        raise SystemExit(f"{onnx_path} does not fit {yaml_path}: " + "; ".join(problems[:5]))
    model.load_state_dict({k: torch.from_numpy(weights[k].copy()) for k in state})
    model.names = names
    return model.float().eval(), meta


def rebuild_trainable(onnx_path: Path, yaml_path: Path, images: list[Path]):
    """(An unfused Ultralytics PoseModel that computes what the ONNX file does; the metadata),
    for fine-tuning: each Conv's BatchNorm gets the running mean and variance of its convolution's
    output over `images` (letterboxed like the model's input), with the scale and shift that
    make it, in eval mode, exactly the fused bias; in training mode, batch statistics near those
    keep it close to the shipped model."""
    import onnx  # deferred: onnx, torch and Ultralytics, the training venv only
    import torch  # deferred: the training venv only
    from onnx import numpy_helper  # deferred: the training venv only
    from ultralytics.nn.modules.conv import Conv  # deferred: the training venv only
    from ultralytics.nn.tasks import PoseModel  # deferred: the training venv only

    proto = onnx.load(str(onnx_path))
    meta = {p.key: p.value for p in proto.metadata_props}
    weights = {t.name: numpy_helper.to_array(t) for t in proto.graph.initializer}
    names = ast.literal_eval(meta.get("names", "{}"))
    model = PoseModel(str(yaml_path), nc=len(names) or None, verbose=False).float().eval()
    convs = {n: m for n, m in model.named_modules() if isinstance(m, Conv) and hasattr(m, "bn")}
    with torch.no_grad():
        for k, v in model.state_dict().items():
            if k in weights and tuple(weights[k].shape) == tuple(v.shape):
                v.copy_(torch.from_numpy(weights[k].copy()))
        for n, m in convs.items():  # identity BatchNorm carrying the fused bias: exact in eval mode
            bias = torch.from_numpy(weights[f"{n}.conv.bias"].copy())
            m.bn.running_mean.zero_()
            m.bn.running_var.fill_(1.0 - m.bn.eps)
            m.bn.weight.fill_(1.0)
            m.bn.bias.copy_(bias)
    imgsz = int(ast.literal_eval(meta.get("imgsz", "[640]"))[0])
    sums: dict[str, list] = {n: [0.0, 0.0, 0] for n in convs}

    def hook(name):
        def fn(_module, _inp, out):
            o = out.double()
            s = sums[name]
            s[0] = s[0] + o.sum(dim=(0, 2, 3))
            s[1] = s[1] + (o * o).sum(dim=(0, 2, 3))
            s[2] += o.shape[0] * o.shape[2] * o.shape[3]

        return fn

    handles = [m.conv.register_forward_hook(hook(n)) for n, m in convs.items()]
    import cv2  # deferred: images for the statistics

    sys.path.insert(0, str(ROOT))
    from vision.cards.detector_eval import letterbox  # deferred: the repository's own letterbox

    with torch.no_grad():
        for path in images:
            img = cv2.imread(str(path))
            if img is not None:
                model(torch.from_numpy(letterbox(img, imgsz)[0]))
    for h in handles:
        h.remove()
    with torch.no_grad():
        for n, m in convs.items():
            s0, s1, count = sums[n]
            if not count:
                continue
            mean = (s0 / count).float()
            var = (s1 / count).float() - mean * mean
            var = var.clamp_min(1e-6)
            bias = m.bn.bias.clone()
            m.bn.running_mean.copy_(mean)
            m.bn.running_var.copy_(var)
            m.bn.weight.copy_(torch.sqrt(var + m.bn.eps))
            m.bn.bias.copy_(bias + mean)
    model.names = names
    return model, meta


def largest_difference(model, onnx_path: Path, imgsz: int) -> float:
    """Largest difference between the rebuilt model's raw output and onnxruntime's, over the
    output's largest value, on one random input."""
    import onnxruntime as ort  # deferred: loads the ONNX runtime; only this check needs it
    import torch  # deferred: the training venv only

    x = np.random.default_rng(0).random((1, 3, imgsz, imgsz), dtype=np.float32)
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    ref = session.run(None, {session.get_inputs()[0].name: x})[0]
    with torch.no_grad():
        out = model(torch.from_numpy(x))
    out = (out[0] if isinstance(out, (list, tuple)) else out).numpy()
    if out.shape != ref.shape:
        raise SystemExit(f"the rebuilt model answers {out.shape}, the ONNX file {ref.shape}")
    return float(np.abs(out - ref).max() / max(float(np.abs(ref).max()), 1e-6))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--onnx", type=Path, default=DETECTOR / "card_detector.onnx")
    ap.add_argument("--yaml", type=Path, default=DETECTOR / "card-pose.yaml")
    ap.add_argument("--out", type=Path, default=DETECTOR / "card_detector.pt")
    ap.add_argument(
        "--dynamic-onnx",
        type=Path,
        metavar="OUT.onnx",
        help="also export the rebuilt model with dynamic height and width to OUT.onnx (the "
        "shipped detector: wide frames at a wide input), with the ONNX file's own metadata",
    )
    ap.add_argument(
        "--trainable",
        type=Path,
        metavar="FOLDER",
        help="an unfused checkpoint to fine-tune from (BatchNorm statistics from the pictures in FOLDER)",
    )
    args = ap.parse_args(argv)
    for given in (args.onnx, args.yaml):
        if not given.is_file():
            ap.error(f"no file {str(given)!r}")
    if args.dynamic_onnx and args.trainable:  # before any work is done or written
        ap.error("--dynamic-onnx exports the fused model: leave out --trainable")
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "0")
    try:
        import torch  # deferred: the training venv only; its absence is reported by name
        import ultralytics  # deferred: the training venv only
    except ImportError as exc:
        ap.error(
            f"{exc.name} is not installed: run this with the training environment's Python "
            "(.venv-train/bin/python, requirements-train.txt)"
        )
    if args.trainable:
        pictures = sorted(p for p in args.trainable.iterdir() if p.suffix.lower() in (".jpg", ".png"))[:64]
        model, meta = rebuild_trainable(args.onnx, args.yaml, pictures)
    else:
        model, meta = rebuild(args.onnx, args.yaml)
    imgsz = int(ast.literal_eval(meta.get("imgsz", "[640]"))[0])
    diff = largest_difference(model, args.onnx, imgsz)
    if diff > TOLERANCE:
        raise SystemExit(f"the rebuilt model differs from {args.onnx} by {diff:.2e} of its output")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(
        {
            "model": model,
            "train_args": {"task": "pose", "imgsz": imgsz, "model": str(args.yaml)},
            "date": datetime.now(UTC).isoformat(),
            "version": ultralytics.__version__,
            "license": "AGPL-3.0 (Ultralytics)",
            "docs": f"rebuilt from {args.onnx.name}",
        },
        args.out,
    )
    print(
        f"wrote {args.out}: {len(model.state_dict())} tensors from {args.onnx.name}, "
        f"largest difference from onnxruntime {diff:.1e} of the output"
    )
    if args.dynamic_onnx:
        export_dynamic(args.out, args.onnx, args.dynamic_onnx, imgsz)
    return 0


def export_dynamic(pt: Path, source: Path, out: Path, imgsz: int) -> None:
    """Ultralytics' export of the rebuilt checkpoint `pt` with dynamic batch, height and width,
    written to `out` with `source`'s metadata (its date, description, names; `dynamic` set in its
    export arguments), checked to answer a square input as `source` does."""
    import onnx  # deferred: the training venv only
    import onnxruntime as ort  # deferred: only this check needs it
    from ultralytics import YOLO  # deferred: the training venv only

    with tempfile.TemporaryDirectory() as tmp:
        local = Path(tmp) / "card_detector.pt"
        shutil.copy(pt, local)
        exported = Path(
            YOLO(str(local), task="pose").export(format="onnx", imgsz=imgsz, opset=18, simplify=True, dynamic=True)
        )
        proto = onnx.load(str(exported))
    meta = {p.key: p.value for p in onnx.load(str(source), load_external_data=False).metadata_props}
    args = ast.literal_eval(meta.get("args", "{}"))
    meta["args"] = str({**args, "dynamic": True})
    del proto.graph.value_info[:]  # shape annotations only: the runtime infers them
    del proto.metadata_props[:]
    for key, value in meta.items():
        proto.metadata_props.add(key=key, value=value)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(proto, str(out))
    x = np.random.default_rng(1).random((1, 3, imgsz, imgsz), dtype=np.float32)
    answers = []
    for path in (source, out):
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        answers.append(session.run(None, {session.get_inputs()[0].name: x})[0])
    diff = float(np.abs(answers[0] - answers[1]).max() / max(float(np.abs(answers[0]).max()), 1e-6))
    if diff > TOLERANCE:
        raise SystemExit(f"the dynamic export differs from {source} by {diff:.2e} of its output")
    print(f"wrote {out}: dynamic height and width, largest difference from {source.name} {diff:.1e} of the output")


if __name__ == "__main__":
    sys.exit(main())
