import sys
from pathlib import Path

# the dataset and print scripts live in scripts/
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
