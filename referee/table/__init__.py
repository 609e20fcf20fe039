"""The table session: camera observations and keyboard lines fused into a refereed game.

`TableSession` (session.py) feeds typed observations (`referee.observations`) through a stabiliser
(stabilize.py) and explicit rules (rules.py) into the scorekeeper and the session log; table
zones (zones.py) say where a card lies; lead_motion.py tells a lead card slid (Striscio) or
tossed (Volo) from one set down. See docs/live-table.md.
"""

from referee.observations import CameraStatus, CardReading, CardsSeen, HandsSeen, HandTips, KeyboardLine, ZoneContent
from referee.table.lead_motion import LeadMotion, MotionThresholds
from referee.table.session import Decision, TableSession
from referee.table.zones import TableZones, Zone, rect_zone

__all__ = [
    "CameraStatus",
    "CardReading",
    "CardsSeen",
    "Decision",
    "HandTips",
    "HandsSeen",
    "KeyboardLine",
    "LeadMotion",
    "MotionThresholds",
    "TableSession",
    "TableZones",
    "Zone",
    "ZoneContent",
    "rect_zone",
]
