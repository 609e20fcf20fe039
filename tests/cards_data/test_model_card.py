"""The detector's model card is written from the training record (scripts/train_card_detector.py)."""

import json
from pathlib import Path

import pytest

import train_card_detector as T

METRICS = Path(__file__).resolve().parents[2] / "models" / "card_detector" / "metrics.json"


def test_the_card_says_how_the_checkpoint_was_chosen(tmp_path):
    record = json.loads(METRICS.read_text())
    record["selection"] = None
    T.write_model_card(tmp_path / "plain.md", record)
    assert "the best by validation fitness" in (tmp_path / "plain.md").read_text()
    record["selection"] = {"data": "datasets/generated/cards_selval/data.yaml", "epochs": [
        {"checkpoint": "epoch0.pt", "epoch": 1, "recall_face_up": 0.951, "precision": 0.9},
        {"checkpoint": "epoch1.pt", "epoch": 2, "recall_face_up": 0.9732, "precision": 0.91}]}
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
        T.main(["--data", str(tmp_path / "missing.yaml")])
    assert exc.value.code == 2
    assert "--data" in capsys.readouterr().err


def test_export_only_takes_the_model_yaml_the_run_was_trained_from(tmp_path):
    (tmp_path / "args.yaml").write_text("task: pose\nmodel: models/card_detector/card-pose.yaml\nimgsz: 480\n")
    assert T.run_model(tmp_path) == "models/card_detector/card-pose.yaml"
    assert T.run_model(tmp_path / "nowhere") is None
