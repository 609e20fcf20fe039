"""The detector's model card is written from the training record (scripts/train_card_detector.py)."""

import argparse
import importlib.util
import json
from pathlib import Path

import pytest

from scripts import detector_pt_from_onnx as P
from scripts import train_card_detector
from vision.cards import detector_training as T

METRICS = Path(__file__).resolve().parents[2] / "models" / "card_detector" / "metrics.json"


def test_the_card_says_how_the_checkpoint_was_chosen(tmp_path):
    record = json.loads(METRICS.read_text())
    record["selection"] = None
    T.write_model_card(tmp_path / "plain.md", record)
    assert "the best by validation fitness" in (tmp_path / "plain.md").read_text()
    record["selection"] = {
        "data": "datasets/generated/cards_selval/data.yaml",
        "epochs": [
            {"checkpoint": "epoch0.pt", "epoch": 1, "recall_face_up": 0.951, "precision": 0.9},
            {"checkpoint": "epoch1.pt", "epoch": 2, "recall_face_up": 0.9732, "precision": 0.91},
        ],
    }
    T.write_model_card(tmp_path / "selected.md", record)
    text = (tmp_path / "selected.md").read_text()
    assert "selection split `datasets/generated/cards_selval/data.yaml`" in text
    assert "0.951, 0.973" in text and "validation fitness" not in text


def test_a_dataset_without_its_held_out_split_is_refused_before_training(tmp_path, capsys):
    data = tmp_path / "data.yaml"
    data.write_text(f"path: {tmp_path}\ntrain: images/train\nval: images/val\n")
    assert "no `test:` split" in T.test_split_problem(data)
    data.write_text(data.read_text() + "test: images/test\n")
    assert "no images in" in T.test_split_problem(data)
    (tmp_path / "images" / "test").mkdir(parents=True)
    (tmp_path / "images" / "test" / "000000.jpg").write_bytes(b"")
    assert T.test_split_problem(data) is None
    assert T.test_split_problem(tmp_path / "missing.yaml") == "no such file"
    with pytest.raises(SystemExit) as exc:
        train_card_detector.main(["--data", str(tmp_path / "missing.yaml")])
    assert exc.value.code == 2
    assert "--data" in capsys.readouterr().err


def test_export_only_takes_the_model_yaml_the_run_was_trained_from(tmp_path):
    (tmp_path / "args.yaml").write_text("task: pose\nmodel: models/card_detector/card-pose.yaml\nimgsz: 480\n")
    assert T.run_arg(tmp_path, "model") == "models/card_detector/card-pose.yaml"
    assert T.run_arg(tmp_path / "nowhere", "model") is None


def test_initial_weights_are_described_from_the_run_they_were_saved_in(tmp_path):
    data = tmp_path / "data"
    (data / "images" / "test").mkdir(parents=True)
    (data / "data.yaml").write_text(f"path: {data}\ntrain: images/train\nval: images/val\ntest: images/test\n")
    (data / "meta.json").write_text(json.dumps({"splits": {"train": {"images": 6000, "designs": ["classic", "bold"]}}}))
    run = tmp_path / "v6"
    (run / "weights").mkdir(parents=True)
    (run / "weights" / "epoch5.pt").write_bytes(b"")
    (run / "args.yaml").write_text(f"model: card-pose.yaml\ndata: {data / 'data.yaml'}\n")
    (run / "progress.jsonl").write_text("".join(json.dumps({"epoch": e, "loss": e}) + "\n" for e in (*range(1, 9), 8)))
    (run / "train_seconds.txt").write_text("5981\n")
    init = T.init_record(run / "weights" / "epoch5.pt")
    assert init["epochs_run"] == 8 and init["epoch"] == 6 and init["train_seconds"] == 5981.0
    assert init["dataset_splits"]["train"]["images"] == 6000
    row = T._init_row({"init": init})
    assert "epoch 6 of 8 and 5981 s on 6000 training scenes (classic, bold)" in row and "?" not in row
    assert (
        T._init_row({"init": {"weights": "w.pt"}})
        == "| initial weights | `w.pt`: an earlier run of the same YAML here |\n"
    )


def test_a_linked_held_out_split_is_described_by_the_dataset_it_comes_from(tmp_path):
    def dataset(root, splits):
        (root / "images").mkdir(parents=True)
        (root / "data.yaml").write_text(f"path: {root}\ntrain: images/train\nval: images/val\ntest: images/test\n")
        (root / "meta.json").write_text(json.dumps({"seed": 1, "splits": splits}))

    dataset(tmp_path / "v2", {"test": {"images": 300, "cards": 731}})
    (tmp_path / "v2" / "images" / "test").mkdir()
    dataset(tmp_path / "v7", {"train": {"images": 6000}})
    (tmp_path / "v7" / "images" / "test").symlink_to(tmp_path / "v2" / "images" / "test")
    meta = T.dataset_meta(tmp_path / "v7" / "data.yaml")
    assert meta["splits"]["train"] == {"images": 6000}
    assert meta["splits"]["test"]["images"] == 300 and meta["splits"]["test"]["linked_from"].endswith("v2")
    assert T.dataset_meta(tmp_path / "v2" / "data.yaml")["splits"] == {"test": {"images": 300, "cards": 731}}
    assert T.dataset_meta(tmp_path / "nowhere" / "data.yaml") is None
    # a real-photo mix (scripts/make_card_real_mix.py) records its parts, not "splits"
    (tmp_path / "mix" / "images").mkdir(parents=True)
    (tmp_path / "mix" / "data.yaml").write_text(f"path: {tmp_path / 'mix'}\ntest: images/test\n")
    (tmp_path / "mix" / "meta.json").write_text(json.dumps({"seed": 11, "train": {"real_photos": 296}}))
    (tmp_path / "mix" / "images" / "test").symlink_to(tmp_path / "v2" / "images" / "test")
    meta = T.dataset_meta(tmp_path / "mix" / "data.yaml")
    assert meta["train"] == {"real_photos": 296} and meta["splits"]["test"]["cards"] == 731


def _run_args(**over):
    base = dict(
        data="d.yaml",
        epochs=60,
        imgsz=480,
        batch=16,
        workers=2,
        name="v",
        init=None,
        seed=0,
        cache="ram",
        mosaic=0.0,
        close_mosaic=0,
        warmup_epochs=0.3,
        hours=0.0,
        lr0=None,
    )
    return argparse.Namespace(**{**base, **over})


def test_training_arguments_keep_cards_unmirrored_and_every_epoch():
    kw = T.train_arguments(_run_args(hours=1.5))
    assert kw["fliplr"] == 0.0 and kw["save_period"] == 1 and kw["time"] == 1.5
    assert "optimizer" not in kw  # Ultralytics' automatic choice


def test_a_learning_rate_names_the_optimizer_that_would_ignore_it_otherwise():
    kw = T.train_arguments(_run_args(lr0=0.0005, init="runs/x/weights/epoch3.pt"))
    assert kw["optimizer"] == "AdamW" and kw["lr0"] == 0.0005
    assert kw["warmup_bias_lr"] == 0.0 and kw["momentum"] == 0.9  # as the automatic choice sets them
    assert kw["pretrained"] == "runs/x/weights/epoch3.pt"
    assert "freeze" not in kw


def test_layers_named_to_freeze_reach_ultralytics():
    kw = T.train_arguments(_run_args(freeze=["23.cv4"]))
    assert kw["freeze"] == ["23.cv4"]  # Ultralytics freezes the parameters named model.23.cv4.*


def test_rectangular_batches_reach_ultralytics_only_when_asked():
    assert T.train_arguments(_run_args(rect=True))["rect"] is True
    assert "rect" not in T.train_arguments(_run_args())


def test_the_card_compares_with_the_model_before_only_on_the_same_scenes(tmp_path):
    record = json.loads(METRICS.read_text())
    m = record["held_out_test"]
    m["at_conf"] = {
        "0.2": {"recall_face_up": 0.99, "precision": 0.8},
        "0.5": {"recall_face_up": 0.9, "precision": 0.95},
    }
    m["recall_face_up_by"] = {
        "background": {"marble": {"cards": 200, "recall": 0.975}},
        "visible": {"under half": {"cards": 100, "recall": 0.93}},
    }
    before = json.loads(json.dumps(record))
    before["held_out_test"].update(recall_face_up=0.5, map50_pose=0.123)
    before["held_out_test"]["recall_face_up_by"]["background"]["marble"]["recall"] = 0.5
    T.write_model_card(tmp_path / "card.md", record, before=before)
    text = (tmp_path / "card.md").read_text()
    assert "the model shipped before" in text and "0.123" in text
    row = next(x for x in text.splitlines() if x.startswith("| recall of face-up cards"))
    assert row.endswith(f"| {m['recall_face_up']:.3f} | 0.500 |")
    assert "conf 0.2 / 0.5): recall 0.990 / 0.900, precision 0.800 / 0.950" in text
    assert "by background: marble 0.975 (200 cards; before 0.500)" in text
    assert "by how much of the card shows: under half 0.930 (100 cards" in text
    before["held_out_test"]["images"] += 1  # other scenes: no comparison
    T.write_model_card(tmp_path / "other.md", record, before=before)
    other = (tmp_path / "other.md").read_text()
    assert "shipped before" not in other and "0.123" not in other and "before 0.500" not in other


@pytest.mark.parametrize("lr0", ["0", "-0.001"])
def test_a_learning_rate_that_is_not_positive_is_refused(lr0, capsys):
    with pytest.raises(SystemExit) as err:
        train_card_detector.main(["--lr0", lr0])
    assert err.value.code == 2 and "--lr0 must be a positive learning rate" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--select-on", "sel.yaml", "--select-on-real"], "two ways: give one"),
        (["--freeze", "model.23.cv4"], "a layer is named by its number"),
        (["--freeze", "23.cv4", "head"], "--freeze head"),
    ],
)
def test_a_selection_twice_or_a_layer_misnamed_is_refused(argv, says, capsys):
    with pytest.raises(SystemExit) as err:
        train_card_detector.main(argv)
    assert err.value.code == 2 and says in capsys.readouterr().err


def test_the_pytorch_baseline_is_rebuilt_only_where_torch_is(tmp_path, capsys):
    # scripts/detector_pt_from_onnx.py needs the training environment; in the runtime one it
    # says so by name instead of failing on an import, and writes nothing

    out = tmp_path / "card_detector.pt"
    if importlib.util.find_spec("torch") is not None and importlib.util.find_spec("ultralytics") is not None:
        assert P.main(["--out", str(out)]) == 0  # the training environment: rebuilt and checked
        assert out.is_file() and "largest difference from onnxruntime" in capsys.readouterr().out
        return
    with pytest.raises(SystemExit) as info:
        P.main(["--out", str(out)])
    assert info.value.code == 2
    assert ".venv-train" in capsys.readouterr().err
    assert not out.exists()


def test_a_dynamic_export_of_an_unfused_checkpoint_is_refused_before_anything_is_written(tmp_path, capsys):
    out = tmp_path / "x.pt"
    argv = ["--out", str(out), "--trainable", str(tmp_path), "--dynamic-onnx", str(tmp_path / "d.onnx")]
    with pytest.raises(SystemExit) as info:
        P.main(argv)
    assert info.value.code == 2 and "leave out --trainable" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "d.onnx").exists()


def test_the_pytorch_baseline_names_a_missing_model_file(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        P.main(["--onnx", str(tmp_path / "none.onnx"), "--out", str(tmp_path / "x.pt")])
    assert info.value.code == 2 and "none.onnx" in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()
