"""The fusion rules: how what the cameras see becomes an action, each with its confidence.

A rule looks at a zone content that has just become stable (`ZoneContent`) and the game state,
and answers nothing, a `Proposal` (an action, its confidence, the reasoning in words and the
evidence), or a `Flag` (something contradicts what the referee knows: it is reported, never
applied). The table session applies a proposal at or above its threshold, asks for a one-tap
confirmation below it, and logs every proposal and flag with its reasoning.

Rules here:

* `reveal` (Beccato!): after a call, the chicken cards laid face up in the zone of a player
  the referee waits a reveal from become that player's `Reveal`. Confidence: the lowest card
  confidence. A reveal using a card already seen elsewhere (`CardAlreadySeen`, `TooManyOfBreed`,
  a card also lying in another zone right now) is flagged as contradictory.
* `egg` (Beccato!): while the referee waits for an egg to be drawn (a henhouse refill or an
  award from the deck), an egg card newly turned up in the eggs zone becomes the `DrawEgg`.
  An egg already seen is flagged.
* `play` (Beccaccino, Bestia): a card newly laid face up in the trick zone is played by the
  player whose turn it is; an illegal one raises an alert at once (the engine's violation). A
  table knock (signal `tap_table_*`) by the leader just before the lead card is recorded as
  Busso where the game announces it.
* Volo and Striscio (Beccaccino): how the lead card arrived in the trick zone
  (`referee.table.lead_motion`, logged as an observation `type: motion` before the card): slid
  along the cloth into the trick (`slide`) is recorded as Striscio, tossed so that it landed from
  the air (`toss`) as Volo, a card set down (`placed`) as a plain lead. The cue follows the card
  back through the last frames and measures, in card-lengths and seconds, how far it travelled
  at table level, how straight, how much bigger it looked (closer to the camera: in the air), how
  much it turned, and whether a fingertip lay on it on the way and as it landed (where the card
  camera sees hands). Thresholds (`lead_motion.MotionThresholds`, soft ramps from nil to full):
  a slide travels 0.5 -> 1.2 card-lengths with its apparent size within 6% -> 13% of its size
  at rest and a straightness 0.6 -> 0.85; a toss looks 6% -> 15% bigger on its way, or turns
  25 -> 70 degrees, with no hand on it in the 0.3 s after landing. Limits: a toss from out of
  view with no hands seen reads as placed; with no hands seen a toss is never surer than 0.75
  (always asked), and a low toss may read as a slide. Confidence: the lower of the card's and
  the motion's; a motion under `MIN_MOTION` is only evidence. Below the table's threshold the
  referee asks; when only the announcement is in doubt (the card itself read surely), `no N`
  records the plain lead instead. A knock wins over a motion (one announcement per lead); a
  player who already announced this hand, or a card that is not a lead, never gets one from
  the motion (it stays evidence). Only games whose engine names the announcements a lead can
  carry (`TableEngine.lead_calls`: Beccaccino) use the cue; a knock, toss or slide never
  becomes an announcement in Bestia or Beccato!. The scorekeeper can still type any of them
  (`play Dan 3 di spade striscio`).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from referee.core import Action, ActionCodec, TableEngine, TableState, Violation
from referee.observations import UNKNOWN_CARD, ZoneContent, card_kind, engine_card
from referee.table.lead_motion import LeadMotion

CONTRADICTIONS = ("CardAlreadySeen", "TooManyOfBreed", "RevealDoesNotMatchHand", "EggNotInDeck")
COPIES = {"chicken:serama": 4}
CHICKEN_COPIES = 3
MIN_MOTION = 0.5  # a slide or toss judged less sure than this is evidence only, never asked


@dataclasses.dataclass
class Proposal:
    rule: str
    action: Action | None  # None: the cards could not be read; the scorekeeper must type it
    confidence: float
    reasoning: str
    evidence: dict[str, Any]
    # What `no N` records instead, when only part of the action is in doubt (a lead whose
    # announcement, read from the card's motion, is unsure: the plain lead); None: nothing.
    alternative: Action | None = None

    def to_payload(self, codec: ActionCodec) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule": self.rule,
            "action": None if self.action is None else codec.to_dict(self.action),
            "confidence": round(float(self.confidence), 3),
            "reasoning": self.reasoning,
            "evidence": self.evidence,
        }
        if self.alternative is not None:
            out["alternative"] = codec.to_dict(self.alternative)
        return out


@dataclasses.dataclass
class Flag:
    rule: str
    reason: str
    violation: str | None
    evidence: dict[str, Any]
    alert: bool = False  # an illegal play: tell the table at once

    def to_payload(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "reason": self.reason,
            "violation": self.violation,
            "alert": self.alert,
            "evidence": self.evidence,
        }


def _copies(face: str) -> int:
    if face.startswith("chicken:"):
        return COPIES.get(face, CHICKEN_COPIES)
    return 1


def duplicates_across(zones: Mapping[str, tuple[str, ...]]) -> dict[str, list[str]]:
    """Faces lying, right now, in more zones (or more copies) than the deck holds: {face: zones}."""
    counts: Counter[str] = Counter()
    where: dict[str, list[str]] = {}
    for zone, cards in zones.items():
        for c in cards:
            if c != UNKNOWN_CARD:
                counts[c] += 1
                where.setdefault(c, []).append(zone)
    return {c: where[c] for c, n in counts.items() if n > _copies(c)}


def reveal_rule(
    engine: TableEngine, state: TableState, content: ZoneContent, player: str, others: Mapping[str, tuple[str, ...]]
) -> Proposal | Flag | None:
    chickens = [
        (c, conf)
        for c, conf in zip(content.cards, content.confidences)
        if c == UNKNOWN_CARD or card_kind(c) == "chicken"
    ]
    if len(chickens) < 3:
        return None  # still being laid (a reveal is 3 or 4 cards)
    evidence: dict[str, Any] = {
        "zone": content.zone,
        "camera": content.camera,
        "cards": list(content.cards),
        "confidences": [round(c, 3) for c in content.confidences],
        "since": round(content.since, 3),
    }
    if len(chickens) > 4:
        return Flag(
            "reveal",
            f"{len(chickens)} cards face up in {player}'s zone: a reveal is 3 or 4",
            "RevealWrongSize",
            evidence,
        )
    unread = sum(1 for c, _ in chickens if c == UNKNOWN_CARD)
    if unread:
        return Proposal(
            "reveal",
            None,
            0.0,
            f"{unread} of the cards in {player}'s zone could not be read: type the reveal "
            f"(reveal {player} CARD CARD CARD)",
            evidence,
        )
    dup = duplicates_across({**others, content.zone: content.cards})
    dup = {c: z for c, z in dup.items() if content.zone in z and any(x != content.zone for x in z)}
    if dup:
        evidence["also_seen"] = dup
        return Flag(
            "reveal",
            f"contradictory reveal by {player}: "
            + ", ".join(
                f"{engine_card(c)} also lies in {', '.join(z for z in zones if z != content.zone)}"
                for c, zones in dup.items()
            ),
            "CardSeenElsewhere",
            evidence,
        )
    cards = tuple(engine_card(c) for c, _ in chickens)
    action = engine.codec.from_dict({"kind": "reveal", "player": player, "cards": list(cards)})
    try:
        state.verify(action)
    except Violation as v:
        evidence["details"] = v.to_dict()
        text = "contradictory reveal" if v.name in CONTRADICTIONS else "reveal refused"
        return Flag("reveal", f"{text} by {player}: {v.message}", v.name, evidence)
    confidence = min(conf for _, conf in chickens)
    return Proposal(
        "reveal",
        action,
        confidence,
        f"after the call the referee waits for {player}'s reveal; {len(cards)} chicken cards "
        f"lay face up in {player}'s zone ({content.zone}) for {content.t - content.since:.1f} s: "
        f"{' '.join(cards)}",
        evidence,
    )


def egg_rule(
    engine: TableEngine,
    state: TableState,
    content: ZoneContent,
    new_faces: Sequence[tuple[str, float]],
    waiting: Mapping[str, Any],
) -> list[Proposal | Flag]:
    out: list[Proposal | Flag] = []
    for face, conf in new_faces:
        if card_kind(face) != "egg":
            continue
        egg = engine_card(face)
        evidence: dict[str, Any] = {
            "zone": content.zone,
            "camera": content.camera,
            "card": face,
            "confidence": round(conf, 3),
            "since": round(content.since, 3),
        }
        action = engine.codec.from_dict({"kind": "draw_egg", "egg": egg})
        try:
            state.verify(action)
        except Violation as v:
            evidence["details"] = v.to_dict()
            text = "egg already seen" if v.name in CONTRADICTIONS else "egg refused"
            out.append(Flag("egg", f"{text}: {egg}: {v.message}", v.name, evidence))
            continue
        target = (
            f"the {waiting.get('breed')} henhouse" if waiting.get("to") == "henhouse" else f"team {waiting.get('team')}"
        )
        out.append(
            Proposal(
                "egg",
                action,
                conf,
                f"the referee waits for an egg for {target}; the egg {egg} was turned up in the {content.zone} zone",
                evidence,
            )
        )
        break  # one draw at a time: the next is judged in the next state
    return out


def play_rule(
    engine: TableEngine,
    state: TableState,
    content: ZoneContent,
    face: str,
    conf: float,
    knock: Mapping[str, Any] | None,
    motion: LeadMotion | None = None,
    motion_entry: int | None = None,
) -> Proposal | Flag:
    player = state.to_play
    card = engine_card(face)
    evidence: dict[str, Any] = {
        "zone": content.zone,
        "camera": content.camera,
        "card": face,
        "confidence": round(conf, 3),
        "since": round(content.since, 3),
    }
    if player is None:
        return Flag(
            "play",
            f"a card ({card}) was laid in the trick zone while nobody is to play",
            "NotPlaying",
            evidence,
            alert=True,
        )
    data: dict[str, Any] = {"kind": "play", "player": player, "card": card}
    reasoning = f"{card} was laid face up in the trick zone; it is {player}'s turn"
    if knock is not None and "busso" in engine.lead_calls:
        data["call"] = "busso"
        evidence["knock"] = knock
        reasoning += f"; {player} knocked on the table at {knock['start']:.1f} s before leading: Busso"
    if motion is not None:
        evidence["motion"] = {"kind": motion.kind, "confidence": round(motion.confidence, 3), "entry": motion_entry}
    action = engine.codec.from_dict(data)
    try:
        state.verify(action)
    except Violation as v:
        evidence["details"] = v.to_dict()
        return Flag("play", f"illegal play by {player}: {card}: {v.message}", v.name, evidence, alert=True)
    call = motion.call if motion is not None else None
    if motion is None or call is None or call not in engine.lead_calls:
        return Proposal("play", action, conf, reasoning, evidence)
    how = f"{player}'s card was {motion.reason} ({motion.kind}, confidence {motion.confidence:.2f})"
    if knock is not None:
        return Proposal(
            "play",
            action,
            conf,
            reasoning + f"; the card also looked {motion.kind}: the knock is the announcement",
            evidence,
        )
    if motion.confidence < MIN_MOTION:
        return Proposal("play", action, conf, reasoning + f"; {how}: too unsure to be an announcement", evidence)
    announced = engine.codec.from_dict({**data, "call": call})
    try:
        state.verify(announced)
    except Violation as v:  # not a lead, or a second announcement this hand: the plain play stands
        evidence["motion"]["not_announced"] = v.name
        return Proposal(
            "play", action, conf, reasoning + f"; {how}, not recorded as {call.capitalize()}: {v.message}", evidence
        )
    return Proposal(
        "play",
        announced,
        min(conf, motion.confidence),
        reasoning + f"; {how}: {call.capitalize()}",
        evidence,
        alternative=action,
    )
