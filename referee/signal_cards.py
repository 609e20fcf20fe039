"""The Beccato! Signal cards: one id per printed signal, shared by the rules engine (each team's
secret signal) and the recognisers (which report events under the same id).

The printed Signals Guide lists 20 distinct signals (in 33 cards); the rulebook's examples add
winks, and the Free Signal variant lets a team invent its own (`FREE_SIGNAL`).
"""

from __future__ import annotations

import dataclasses
from typing import Literal

Cue = Literal["body", "face", "cards", "audio"]


@dataclasses.dataclass(frozen=True)
class SignalCard:
    id: str
    text: str
    cue: Cue
    printed: bool = True  # on a printed Signal card (False: from the rulebook's examples)


SIGNAL_CARDS: tuple[SignalCard, ...] = (
    SignalCard("rest_elbow_right", "Rest your right elbow on the table.", "body"),
    SignalCard("rest_elbow_left", "Rest your left elbow on the table.", "body"),
    SignalCard("touch_nose_left", "Touch your nose with your left hand.", "body"),
    SignalCard("touch_nose_right", "Touch your nose with your right hand.", "body"),
    SignalCard("raise_hand_left", "Raise your left hand.", "body"),
    SignalCard("raise_hand_right", "Raise your right hand.", "body"),
    SignalCard("touch_chin_left", "Touch your chin with your left hand.", "body"),
    SignalCard("touch_chin_right", "Touch your chin with your right hand.", "body"),
    SignalCard("talk_games", "Talk about games.", "audio"),
    SignalCard("talk_sport", "Talk about sport.", "audio"),
    SignalCard("touch_eye_right", "Touch your right eye.", "body"),
    SignalCard("touch_eye_left", "Touch your left eye.", "body"),
    SignalCard("tap_table_right", "Tap the table with your right hand.", "body"),
    SignalCard("tap_table_left", "Tap the table with your left hand.", "body"),
    SignalCard("talk_tv", "Talk about TV shows.", "audio"),
    SignalCard("cards_only_two", "Hold your cards so that only two can be seen.", "cards"),
    SignalCard("cards_only_one", "Hold your cards so that only one can be seen.", "cards"),
    SignalCard("cards_middle_upside_down", "Hold your cards so that the middle one is upside down.", "cards"),
    SignalCard("mumble", "Mumble.", "audio"),
    SignalCard("hum", "Hum.", "audio"),
    SignalCard("wink_left", "Wink with your left eye.", "face", printed=False),
    SignalCard("wink_right", "Wink with your right eye.", "face", printed=False),
)

FREE_SIGNAL = "free"

BY_ID: dict[str, SignalCard] = {card.id: card for card in SIGNAL_CARDS}


def signal_card(signal_id: str) -> SignalCard:
    try:
        return BY_ID[signal_id]
    except KeyError:
        raise KeyError(f"no Signal card {signal_id!r}; known: {', '.join(BY_ID)}") from None
