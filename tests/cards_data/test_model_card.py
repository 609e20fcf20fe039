"""The detector's model card is written from the training record (scripts/train_card_detector.py)."""

import json
from pathlib import Path

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
