"""Options shared by the commands: numbers that must be finite and in range, `--low-memory`."""

from __future__ import annotations

import math
from typing import Any

import click


class FiniteFloat(click.FloatRange):
    """A float in range that is a number: click's FloatRange lets `nan` through (every
    comparison with nan is false), and `inf` through an open end."""

    name = "finite float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


LOW_MEMORY_HELP = (
    "one kind of model in memory at a time: the seats' landmarks over the whole recording first, "
    "then the cards (about 190 MB less at the peak, a lower peak for recordings of a few minutes: "
    "the kept landmarks grow with the recording's length; slower where a core is free"
)


def low_memory_option(extra: str = "") -> Any:
    """`--low-memory` of the commands that referee a recording (`demo`, `replay`)."""
    return click.option("--low-memory", is_flag=True, help=f"{LOW_MEMORY_HELP}{extra})")
