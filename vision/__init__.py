"""Perception: cameras, cards, body landmarks, signals and audio, as typed, timestamped observations."""
