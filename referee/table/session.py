"""The table session: observations in, refereed game out, everything on one clock in one log.

    session = TableSession.start("beccato", setup, "game.db", zones, clock_origin=time.time())
    for decision in session.feed(observation):     # CardsSeen, SignalEvent, KeyboardLine, ...
        print(decision.message)

* Every observation that matters is logged (kind `observation`) before anything follows from
  it: a zone content that became stable (`type: cards`), a signal (`type: signal`), a camera
  lost or back (`type: camera`).
* Observations become actions only through the rules of `referee.table.rules`. Each proposal
  is logged with its rule, confidence, reasoning and evidence (`type: decision`), then the
  action itself (`source: camera`, its confidence). Below `threshold` the referee asks instead
  (`type: ask`): the scorekeeper answers `yes N` / `no N` (N: the ask's entry number, or
  nothing for the latest), and a yes applies the action (`source: keyboard`). A contradiction
  or an illegal play is logged as `type: flag` and never applied.
* Signals never change the game state: they are evidence, logged per player.
* At a lead in a game with announcements (Beccaccino), how the card arrived in the trick zone
  (`referee.table.lead_motion`: slid, tossed, placed) is judged from the last seconds of card
  frames (and `HandsSeen`, where the card camera sees hands) and logged (`type: motion`) just
  before the zone content; the play rule makes a slide Striscio and a toss Volo.
* Calls, corrections and anything the cameras cannot see come from the keyboard
  (`KeyboardLine`), as in `referee play`: `coccode Anna`, `caught Dario Anna`, `undo`...
* Log times are `clock_origin + t` (rounded to the millisecond), so a replay of the same
  recording with the same origin writes the same log.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter, deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar, cast

from referee.core import Action, Engine, RefereeError, TableEngine, TableState, Violation, table_engine
from referee.observations import (
    UNKNOWN_CARD,
    CameraStatus,
    CardsSeen,
    HandsSeen,
    KeyboardLine,
    SignalEvent,
    ZoneContent,
)
from referee.scorekeeper import Outcome, Scorekeeper
from referee.sessionlog import Entry, SessionLog
from referee.signal_cards import BY_ID as SIGNAL_CARDS
from referee.table.lead_motion import LeadMotion, MotionThresholds, lead_motion
from referee.table.rules import Flag, Proposal, egg_rule, play_rule, reveal_rule
from referee.table.stabilize import ZoneStabilizer
from referee.table.zones import BadZones, TableZones
from referee.voice import say_action, say_question

KNOCK_SIGNALS = ("tap_table_left", "tap_table_right")
NEW_DEAL_EVENTS = ("new_hand", "dealt", "next_round", "round_started")

_Timed = TypeVar("_Timed", CardsSeen, HandsSeen)


@dataclasses.dataclass
class Decision:
    """What the table announces after an observation."""

    kind: str  # action, ask, flag, alert, signal, camera, cards, keyboard, rejected, answer
    t: float
    message: str
    entry: int | None = None
    data: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class NoSuchAsk(RefereeError):
    """A confirmation that answers no open question."""


@dataclasses.dataclass
class _PendingLead:
    content: ZoneContent
    previous: ZoneContent | None
    ready: float  # session time after which it is judged


@dataclasses.dataclass
class _Ask:
    entry: int
    proposal: Proposal
    action: Action  # what a yes applies (the proposal's)


class TableSession:
    def __init__(
        self,
        scorekeeper: Scorekeeper,
        zones: TableZones,
        *,
        clock_origin: float,
        threshold: float = 0.8,
        stabilizer: ZoneStabilizer | None = None,
        knock_window: float = 3.0,
        motion: MotionThresholds | None = None,
    ) -> None:
        self.sk = scorekeeper
        self.engine: TableEngine = table_engine(scorekeeper.engine)
        if not isinstance(scorekeeper.state, TableState):
            raise TypeError(f"the {self.engine.name} engine's states are not TableStates")
        self.zones = zones
        self.origin = float(clock_origin)
        self.threshold = threshold
        self.stabilizer = stabilizer or ZoneStabilizer(zones)
        self.knock_window = knock_window
        self._stable: dict[str, ZoneContent] = {}
        self._used: set[tuple[str, tuple[str, ...]]] = set()
        self._asks: dict[int, _Ask] = {}
        self._eggs: list[tuple[ZoneContent, str, float, int]] = []  # new eggs not yet judged
        # Cards a rule already judged in an eggs or trick zone: one that a hand hid and uncovered
        # is not new (trick zones forget them at a new deal; eggs are unique in a whole game).
        self._accounted: dict[str, Counter[str]] = {}
        self._signals: list[SignalEvent] = []
        self._seen_signals: set[tuple[str, str, float]] = set()
        self.cameras: dict[str, bool] = {}
        # The last seconds of card frames and hands, for the lead-motion cue; motions read from a
        # stored log (a replay reusing it), waiting for their zone content.
        self.motion = motion or MotionThresholds()
        self.memory = self.motion.lookback + 4.0
        self._frames: dict[str, deque[CardsSeen]] = {}
        self._hands: deque[HandsSeen] = deque()
        self._given_motion: dict[tuple[str, str], LeadMotion] = {}
        self._hand_cameras: set[str] = set()
        self._pending: dict[str, _PendingLead] = {}

    @classmethod
    def start(
        cls,
        game: str | Engine,
        setup: Mapping[str, Any],
        log_path: str | os.PathLike[str],
        zones: TableZones,
        *,
        clock_origin: float,
        **kwargs: Any,
    ) -> TableSession:
        sk = Scorekeeper.start(game, setup, log_path, time=clock_origin)
        return cls(sk, zones, clock_origin=clock_origin, **kwargs)

    @property
    def state(self) -> TableState:
        # The scorekeeper holds the engine's states; __init__ checked they are TableStates.
        return cast(TableState, self.sk.state)

    @property
    def log(self) -> SessionLog:
        return self.sk.log

    def close(self) -> None:
        self.sk.close()

    def clock(self, t: float) -> float:
        return round(self.origin + float(t), 3)

    def open_asks(self) -> list[int]:
        return sorted(self._asks)

    def settle(self) -> list[Decision]:
        """Judge the leads still waiting to see whether a hand set their card down (the end of
        a session or recording: no later frame will come)."""
        out: list[Decision] = []
        for zone, p in sorted(self._pending.items(), key=lambda item: item[1].ready):
            del self._pending[zone]
            out.extend(self._judge(dataclasses.replace(p.content, t=max(p.ready, p.content.t)), p.previous))
        return out

    # -- the one entry point -----------------------------------------------------------------

    def feed(self, obs: Any) -> list[Decision]:
        early: list[Decision] = []
        if self._pending and isinstance(getattr(obs, "t", None), (int, float)):
            early = self._judge_pending(float(obs.t))
        return early + self._feed(obs)

    def _feed(self, obs: Any) -> list[Decision]:
        if isinstance(obs, CardsSeen):
            if not self.cameras.get(obs.camera, True):
                return []  # frames of a camera reported lost are ignored until it is back
            self._remember(self._frames.setdefault(obs.camera, deque()), obs)
            out: list[Decision] = []
            for content in self.stabilizer.feed(obs):
                out.extend(self._on_content(content))
            return out
        if isinstance(obs, ZoneContent):  # a stored reading fed again (a replay reusing the log)
            if obs.zone not in self.zones.by_name:
                raise BadZones(f"no zone {obs.zone!r} at this table", zone=obs.zone)
            self.stabilizer.set_stable(obs.zone, obs.cards, obs.face_down)
            return self._on_content(obs)
        if isinstance(obs, SignalEvent):
            return self._on_signal(obs)
        if isinstance(obs, KeyboardLine):
            return self._on_keyboard(obs)
        if isinstance(obs, CameraStatus):
            return self._on_camera(obs)
        if isinstance(obs, HandsSeen):
            self._hand_cameras.add(obs.camera)
            self._remember(self._hands, obs)
            return []
        if isinstance(obs, LeadMotion):  # a stored motion fed again (a replay reusing the log)
            self._given_motion[(obs.zone, obs.card)] = obs
            return []
        raise TypeError(f"a table session is fed observations, not {type(obs).__name__}")

    def feed_all(self, observations: Iterable[Any]) -> list[Decision]:
        out: list[Decision] = []
        for obs in observations:
            out.extend(self.feed(obs))
        return out

    # -- observations ------------------------------------------------------------------------

    def _remember(self, queue: deque[_Timed], obs: _Timed) -> None:
        queue.append(obs)
        while queue and queue[0].t < obs.t - self.memory:
            queue.popleft()

    def _observe(
        self, t: float, payload: dict[str, Any], confidence: float | None = None, source: str = "camera"
    ) -> int:
        outcome: Outcome = self.sk.observe(payload, time=self.clock(t), source=source, confidence=confidence)
        return _seq(outcome)

    def _on_camera(self, obs: CameraStatus) -> list[Decision]:
        was = self.cameras.get(obs.camera)
        self.cameras[obs.camera] = obs.ok
        if was == obs.ok:
            return []
        out: list[Decision] = []
        if not obs.ok:
            out = self._judge_pending(obs.t, camera=obs.camera)  # judged with what was seen
            self.stabilizer.reset_camera(obs.camera)
            self._frames.pop(obs.camera, None)
            for z in self.zones.of_camera(obs.camera):
                self._stable.pop(z.name, None)
        seq = self._observe(obs.t, {"type": "camera", "camera": obs.camera, "ok": obs.ok, "reason": obs.reason})
        msg = (
            f"camera {obs.camera} back"
            if obs.ok
            else f"camera {obs.camera} lost ({obs.reason or 'no frames'}): the game goes on from the keyboard"
        )
        return out + [Decision("camera", obs.t, msg, seq, {"camera": obs.camera, "ok": obs.ok})]

    def _on_signal(self, ev: SignalEvent) -> list[Decision]:
        key = (ev.player, ev.signal, round(ev.start, 1))
        if key in self._seen_signals:
            return []
        self._seen_signals.add(key)
        self._signals.append(ev)
        seq = self._observe(
            ev.end,
            {"type": "signal", **ev.to_dict()},
            confidence=ev.confidence,
            source="microphone" if _heard(ev.signal) else "camera",
        )
        sure = " (unsure)" if ev.unsure else ""
        return [
            Decision(
                "signal",
                ev.end,
                f"signal: {ev.player} {ev.signal} {ev.start:.1f}-{ev.end:.1f} s ({ev.confidence:.2f}){sure}",
                seq,
                ev.to_dict(),
            )
        ]

    def _on_content(self, content: ZoneContent) -> list[Decision]:
        previous = self._stable.get(content.zone)
        self._stable[content.zone] = content
        if previous is None and not content.cards and not content.face_down:
            return []  # an empty zone at the start says nothing
        out: list[Decision] = []
        pending = self._pending.pop(content.zone, None)
        if pending is not None:  # the zone changed before its lead was judged: judge it now
            out.extend(self._judge(dataclasses.replace(pending.content, t=content.t), pending.previous))
        return out + self._judge(content, previous, wait=True)

    def _judge(self, content: ZoneContent, previous: ZoneContent | None, wait: bool = False) -> list[Decision]:
        zone = self.zones.by_name[content.zone]
        new: list[tuple[str, float]] = []
        if zone.role in ("eggs", "trick"):
            # New: copies of a face beyond both what lay here before and what was judged here.
            before = Counter(previous.cards) if previous else Counter()
            judged = self._accounted.get(content.zone, Counter())
            known = Counter({c: max(before[c], judged[c]) for c in set(before) | set(judged)})
            for card, conf in zip(content.cards, content.confidences):
                if known[card] > 0:
                    known[card] -= 1
                else:
                    new.append((card, conf))
        # How a lead card arrived is logged before the content it explains (a replay reusing
        # the log feeds it back first). Where the card camera sees hands, the lead waits until
        # the card has lain still `settle` s, so that a hand on it as it landed has been seen.
        motion: LeadMotion | None = None
        motion_seq: int | None = None
        if zone.role == "trick" and new and new[0][0] != UNKNOWN_CARD and self._leading():
            motion = self._lead_motion(content, new[0][0])
            if (
                wait
                and motion is not None
                and content.camera in self._hand_cameras
                and content.t < motion.t + self.motion.settle
            ):
                self._pending[content.zone] = _PendingLead(content, previous, motion.t + self.motion.settle)
                return []
            if motion is not None:
                motion_seq = self._observe(content.t, motion.to_payload(), confidence=motion.confidence)
        seq = self._observe(
            content.t, content.to_payload(), confidence=min(content.confidences) if content.confidences else None
        )
        out: list[Decision] = [
            Decision("cards", content.t, f"{content.zone}: {' '.join(content.cards) or '-'}", seq, content.to_payload())
        ]
        if zone.role == "seat":
            out.extend(self._try_reveal(content, seq))
        elif zone.role == "eggs":
            out.extend(self._try_egg(content, new, seq))
        elif zone.role == "trick":
            for i, (card, conf) in enumerate(new):
                first = i == 0 and motion is not None
                out.extend(
                    self._try_play(content, card, conf, seq, motion if first else None, motion_seq if first else None)
                )
        return out

    def _judge_pending(self, t: float, camera: str | None = None) -> list[Decision]:
        """Leads whose card has lain still long enough by `t` (or all of `camera`'s: it was lost)."""
        out: list[Decision] = []
        for zone, p in list(self._pending.items()):
            if (camera is not None and p.content.camera == camera) or (camera is None and t > p.ready + 1e-9):
                del self._pending[zone]
                out.extend(self._judge(dataclasses.replace(p.content, t=max(t, p.content.t)), p.previous))
        return out

    def _leading(self) -> bool:
        """A lead is due in a game whose leads can carry an announcement."""
        return bool(self.engine.lead_calls) and self.state.to_play is not None and self.state.leading

    def _lead_motion(self, content: ZoneContent, face: str) -> LeadMotion | None:
        given = self._given_motion.pop((content.zone, face), None)
        if given is not None and content.t - given.t <= self.memory:
            return given  # (an older one was for a lead the replay judged otherwise: stale)
        frames = [f for f in self._frames.get(content.camera, ()) if f.t <= content.t]
        return lead_motion(frames, content.zone, face, content.since, list(self._hands), self.motion)

    # -- rules -------------------------------------------------------------------------------

    def _try_reveal(self, content: ZoneContent, seq: int) -> list[Decision]:
        waiting = self.state.waiting_for()
        zone = self.zones.by_name[content.zone]
        if waiting.get("step") != "reveal" or zone.player is None or zone.player not in waiting.get("players", ()):
            return []
        key = (content.zone, content.cards)
        if key in self._used:
            return []
        others = {z: c.cards for z, c in self._stable.items() if z != content.zone}
        result = reveal_rule(self.engine, self.state, content, zone.player, others)
        if result is None:
            return []
        self._used.add(key)
        return self._decide(result, content.t, [seq])

    def _try_egg(self, content: ZoneContent, new: list[tuple[str, float]], seq: int) -> list[Decision]:
        waiting = self.state.waiting_for()
        if waiting.get("step") != "draw":
            return []
        # Several eggs turned up at once (the referee was slow, or the players quick) are
        # judged one at a time, in reading order, each in the state the previous one left.
        self._eggs.extend((content, face, conf, seq) for face, conf in new)
        return self._drain_eggs(content.t)

    def _drain_eggs(self, t: float) -> list[Decision]:
        out: list[Decision] = []
        while self._eggs and not any(a.proposal.rule == "egg" for a in self._asks.values()):
            waiting = self.state.waiting_for()
            if waiting.get("step") != "draw":
                self._eggs.clear()
                break
            content, face, conf, seq = self._eggs.pop(0)
            for result in egg_rule(self.engine, self.state, content, [(face, conf)], waiting):
                out.extend(self._decide(result, t, [seq]))
        return out

    def _try_play(
        self,
        content: ZoneContent,
        card: str,
        conf: float,
        seq: int,
        motion: LeadMotion | None = None,
        motion_seq: int | None = None,
    ) -> list[Decision]:
        player = self.state.to_play
        knock: dict[str, Any] | None = None
        if player is not None and self.state.leading:
            for ev in reversed(self._signals):
                if (
                    ev.player == player
                    and ev.signal in KNOCK_SIGNALS
                    and not ev.unsure
                    and ev.confidence >= self.threshold
                    and content.since - self.knock_window <= ev.end <= content.t
                ):
                    knock = {"signal": ev.signal, "start": ev.start, "end": ev.end, "confidence": ev.confidence}
                    break
        entries = [seq] if motion_seq is None else [motion_seq, seq]
        return self._decide(
            play_rule(self.engine, self.state, content, card, conf, knock, motion, motion_seq), content.t, entries
        )

    def _decide(self, result: Proposal | Flag, t: float, evidence_entries: list[int]) -> list[Decision]:
        zone, card = result.evidence.get("zone"), result.evidence.get("card")
        if zone and card and self.zones.by_name[zone].role in ("eggs", "trick"):
            self._accounted.setdefault(zone, Counter())[card] += 1
        if isinstance(result, Flag):
            payload = {"type": "flag", **result.to_payload(), "entries": evidence_entries}
            seq = self._observe(t, payload)
            kind = "alert" if result.alert else "flag"
            return [Decision(kind, t, f"{kind.upper()}: {result.reason}", seq, payload)]
        asking = result.action is None or result.confidence < self.threshold
        if result.alternative is not None and (
            not asking or float(result.evidence.get("confidence", 0.0)) < self.threshold
        ):
            result.alternative = None  # only a doubt about the announcement alone offers the plain play
        payload = {**result.to_payload(self.engine.codec), "entries": evidence_entries}
        if asking:
            seq = self._observe(t, {"type": "ask", **payload}, confidence=result.confidence)
            if result.action is not None:
                self._asks[seq] = _Ask(seq, result, result.action)
                msg = say_question(
                    self.engine,
                    seq,
                    self.engine.codec.to_dict(result.action),
                    reasoning=result.reasoning,
                    confidence=result.confidence,
                    alternative=None if result.alternative is None else self.engine.codec.to_dict(result.alternative),
                    state=self.state,
                )
            else:
                msg = say_question(self.engine, seq, None, reasoning=result.reasoning)
            return [Decision("ask", t, msg, seq, payload)]
        assert result.action is not None  # not asking: the cards were read
        self._observe(t, {"type": "decision", **payload}, confidence=result.confidence)
        return self._apply(
            result.action, t, source="camera", confidence=result.confidence, text=f"{result.rule}: {result.reasoning}"
        )

    def _apply(self, action: Action, t: float, *, source: str, confidence: float, text: str) -> list[Decision]:
        try:
            outcome: Outcome = self.sk.act(action, time=self.clock(t), source=source, confidence=confidence)
        except Violation as v:  # the state moved since the proposal (a keyboard line in between)
            seq = self._observe(
                t,
                {
                    "type": "flag",
                    "rule": "apply",
                    "reason": v.message,
                    "violation": v.name,
                    "alert": False,
                    "evidence": {"action": self.engine.codec.to_dict(action)},
                },
            )
            return [Decision("flag", t, f"FLAG: {v}", seq)]
        self._after_events(outcome.events)
        seq = _seq(outcome)
        out = [
            Decision(
                "action",
                t,
                f"#{seq} {outcome.message or describe(self.engine, action)}",
                seq,
                {
                    "action": self.engine.codec.to_dict(action),
                    "events": outcome.events,
                    "source": source,
                    "confidence": confidence,
                    "why": text,
                },
            )
        ]
        return out + self._reconsider(t)

    def _after_events(self, events: list[dict[str, Any]]) -> None:
        if any(e.get("kind") in NEW_DEAL_EVENTS for e in events):
            for zone in self.zones.with_role("trick"):
                self._accounted.pop(zone.name, None)

    def _reconsider(self, t: float) -> list[Decision]:
        """After the state moved, reveals already lying on the table may now be awaited."""
        out: list[Decision] = []
        for zone_name, content in list(self._stable.items()):
            if self.zones.by_name[zone_name].role == "seat":
                seq = _last_cards_entry(self.log.entries, zone_name)
                out.extend(self._try_reveal(dataclasses.replace(content, t=t), seq))
        if self._eggs:
            out.extend(self._drain_eggs(t))
        return out

    # -- the keyboard --------------------------------------------------------------------------

    def _on_keyboard(self, obs: KeyboardLine) -> list[Decision]:
        text = obs.text.strip()
        word, _, rest = text.partition(" ")
        if word.lower() in ("yes", "no", "y", "n"):
            number = rest.strip().lstrip("#")
            if number and not number.isdigit():
                return [Decision("rejected", obs.t, f"rejected: NoSuchAsk: {rest.strip()!r} is not an entry number")]
            return self.answer(int(number) if number else None, word.lower() in ("yes", "y"), t=obs.t)
        outcome: Outcome = self.sk.submit(text, time=self.clock(obs.t), source="keyboard")
        if not outcome.accepted:
            return [Decision("rejected", obs.t, f"rejected: {outcome.message}", None, {"line": text})]
        if outcome.command == "blank":
            return []
        if outcome.command in ("show", "help", "history", "quit"):
            message = self.sk.table() if outcome.command == "show" else (outcome.message or outcome.command)
            return [Decision("keyboard", obs.t, message, None, {"line": text})]
        seq = _seq(outcome)
        out = [
            Decision(
                "action" if outcome.command == "action" else outcome.command,
                obs.t,
                f"#{seq} {outcome.label or text}: {outcome.message}",
                seq,
                {"line": text, "events": outcome.events, "source": "keyboard"},
            )
        ]
        if outcome.command in ("action", "correction"):
            self._after_events(outcome.events)
            out.extend(self._reconsider(obs.t))
        return out

    def answer(self, ask: int | None, accept: bool, *, t: float) -> list[Decision]:
        """The one-tap confirmation of an open ask (None: the latest)."""
        if ask is None:
            if not self._asks:
                return [Decision("rejected", t, "rejected: NoSuchAsk: there is no open question")]
            ask = max(self._asks)
        pending = self._asks.pop(ask, None)
        if pending is None:
            return [Decision("rejected", t, f"rejected: NoSuchAsk: #{ask} is not an open question")]
        seq = self._observe(t, {"type": "answer", "ask": ask, "accepted": accept}, source="keyboard", confidence=1.0)
        if not accept:
            alternative = pending.proposal.alternative
            if alternative is not None:
                return self._apply(
                    alternative,
                    t,
                    source="keyboard",
                    confidence=1.0,
                    text=f"declined #{ask}, the plain action instead: {pending.proposal.reasoning}",
                )
            return [Decision("answer", t, f"#{ask} declined: nothing applied", seq)]
        return self._apply(
            pending.action, t, source="keyboard", confidence=1.0, text=f"confirmed #{ask}: {pending.proposal.reasoning}"
        )


def describe(engine: Engine, action: Action) -> str:
    """The action in words for the table's screen: the public view (`referee.secrecy`)."""
    return say_action(engine, engine.codec.to_dict(action))


def _seq(outcome: Outcome) -> int:
    """The log entry an accepted outcome was saved as."""
    if outcome.entry is None:
        raise RuntimeError(f"{outcome.command} was not saved: {outcome.message}")
    return outcome.entry.seq


def _last_cards_entry(entries: Sequence[Entry], zone: str) -> int:
    for e in reversed(entries):
        if e.kind == "observation" and e.payload.get("type") == "cards" and e.payload.get("zone") == zone:
            return e.seq
    return 0


def _heard(signal: str) -> bool:
    """Signals that come from the microphone: the audio Signal cards and plain talk."""
    card = SIGNAL_CARDS.get(signal)
    return signal == "talking" or (card is not None and card.cue == "audio")
