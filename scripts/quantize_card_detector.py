"""The card detector quantized to 8 bits (onnxruntime's static QDQ quantization of its
convolutions: weights int8 per channel, activations uint8 calibrated on real and synthetic
pictures), for `scripts/bench_cards.py` and `scripts/eval_card_detector.py` to weigh against
the float model. Calibration pictures: real training photos (never the test photos) and
synthetic training scenes, letterboxed as the detector does.

    .venv-train/bin/python scripts/quantize_card_detector.py --out runs/card_detector/card_detector_int8.onnx \
        --pictures ../shared/testdata/cards_real/edje/train datasets/generated/cards_realmix/images/train

`--ops all` quantizes every operation of the network (the SiLU's Sigmoid and Mul, the Adds,
Concats, pooling and upsampling) rather than only the convolutions, and leaves the head's
decoding in float (every node of the last module but its convolution branches: quantizing the
Concat that joins pixel boxes and 0-1 class scores zeroes the scores); `--format qoperator`
writes QLinear operators instead of QDQ pairs.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.cards.detector import letterbox, to_tensor  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "card_detector" / "card_detector.onnx")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--pictures", type=Path, nargs="+", required=True, help="folders of calibration pictures")
    ap.add_argument("--per-folder", type=int, default=48)
    ap.add_argument("--method", choices=("minmax", "percentile", "entropy"), default="percentile")
    ap.add_argument("--ops", choices=("conv", "all"), default="conv", help="what is quantized (see above)")
    ap.add_argument("--format", choices=("qdq", "qoperator"), default="qdq")
    args = ap.parse_args(argv)
    try:
        import onnx  # deferred: the training venv has onnx
        from onnxruntime.quantization import (  # deferred: only quantizing needs it
            CalibrationDataReader,
            CalibrationMethod,
            QuantFormat,
            QuantType,
            quantize_static,
        )
        from onnxruntime.quantization.shape_inference import quant_pre_process  # deferred: the training venv's
    except ImportError as exc:
        ap.error(f"{exc.name} is not installed: run this with .venv-train/bin/python")
    proto = onnx.load(str(args.model))
    shape = [d.dim_value for d in proto.graph.input[0].type.tensor_type.shape.dim]
    if not (shape[2] and shape[3]):  # height and width left free: calibrate at the square `imgsz`
        meta = {p.key: p.value for p in proto.metadata_props}
        side = int(ast.literal_eval(meta.get("imgsz", "[480]"))[0])
        shape[2:4] = [side, side]
    size = (shape[2], shape[3])
    ops, floats = ["Conv"], []
    if args.ops == "all":
        ops = ["Conv", "Mul", "Sigmoid", "Add", "Concat", "MaxPool", "Resize", "Split"]
        modules = [int(m.group(1)) for n in proto.graph.node if (m := re.match(r"/model\.(\d+)/", n.name))]
        if not modules:
            ap.error(f"--ops all: {args.model} has no nodes named as Ultralytics exports them (/model.N/...)")
        head = f"/model.{max(modules)}/"  # the last module: Ultralytics' detection head
        branch = re.compile(re.escape(head) + r"cv\d")  # its convolution branches are quantized
        floats = [n.name for n in proto.graph.node if n.name.startswith(head) and not branch.match(n.name)]
    rng = np.random.default_rng(0)
    blobs = []
    for folder in args.pictures:
        files = sorted(p for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
        for k in rng.permutation(len(files))[: args.per_folder]:
            img = cv2.imread(str(files[int(k)]))
            if img is not None:
                blobs.append(to_tensor(letterbox(img, size)[0]))
    if not blobs:
        ap.error("no calibration pictures")

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.it = iter(blobs)

        def get_next(self):
            b = next(self.it, None)
            return None if b is None else {proto.graph.input[0].name: b}

    method = {
        "minmax": CalibrationMethod.MinMax,
        "percentile": CalibrationMethod.Percentile,
        "entropy": CalibrationMethod.Entropy,
    }[args.method]
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(args.model), str(pre), skip_symbolic_shape=True)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        quantize_static(
            str(pre),
            str(args.out),
            Reader(),
            quant_format=QuantFormat.QDQ if args.format == "qdq" else QuantFormat.QOperator,
            op_types_to_quantize=ops,
            nodes_to_exclude=floats,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=method,
            extra_options={"CalibPercentile": 99.99} if args.method == "percentile" else {},
        )
    q = onnx.load(str(args.out))  # keep Ultralytics' metadata (names, kpt_shape, imgsz)
    del q.metadata_props[:]
    for p in proto.metadata_props:
        q.metadata_props.add(key=p.key, value=p.value)
    onnx.save(q, str(args.out))
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB) from {len(blobs)} calibration pictures")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
