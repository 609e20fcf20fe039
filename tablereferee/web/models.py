"""The request bodies of the web table's API (its OpenAPI schema comes from these)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class JoinIn(Body):
    code: str = Field(min_length=1, max_length=32, description="the join code on the table screen")
    player: str = Field(min_length=1, max_length=64, description="who this phone is: a player's name")


class CommandIn(Body):
    command: str | None = Field(
        default=None, max_length=500, description="a typed line, as at the terminal: coccode Anna"
    )
    action: dict[str, Any] | None = Field(default=None, description="an action as the engine's JSON (a button's)")


class PinIn(Body):
    pin: str = Field(min_length=1, max_length=16, description="the team's PIN")


class AnswerIn(Body):
    answer: Literal["yes", "no"]
