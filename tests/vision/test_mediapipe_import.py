"""MediaPipe is loaded without its drawing helpers' matplotlib, which nothing here draws with,
and the helpers still load when something asks for them."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
import numpy as np
from vision.landmarks.extract import load_mediapipe
mp = load_mediapipe()
graph = mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=1)
graph.process(np.zeros((96, 128, 3), np.uint8))
graph.close()
print("matplotlib" in sys.modules)
spec = mp.solutions.drawing_utils.DrawingSpec(color=(1, 2, 3))
import mediapipe.python.solutions.drawing_utils as du
print("matplotlib" in sys.modules, du.DrawingSpec is type(spec), spec.color)
print(mp.solutions.drawing_styles.get_default_hand_landmarks_style() is not None)
"""


def test_mediapipe_without_matplotlib_until_drawing_is_used() -> None:
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True)
    lines = out.stdout.split("\n")
    assert lines[:3] == ["False", "True True (1, 2, 3)", "True"], out.stdout + out.stderr
