"""Reviewing a recorded session: questions answered from what the run kept."""
