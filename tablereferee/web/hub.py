"""One table on the web: its scorekeeper, who may see what, and a version for every change.

    hub = TableHub(Scorekeeper.resume("sessions/tonight.db"))
    hub.table_view(grant)          # what the caller's role may see (GET /api/table, the WebSocket)
    hub.command(grant, "coccode Anna")

Every view is built from the engine's own views through `referee.secrecy`: the public view for
the table screen, the scorer and a player without their team's PIN; a player whose phone holds
their team's PIN sees their own view (their hand, their team's signal); a team's PIN alone
gives the team's view. The log is the state: the hub keeps nothing a restart would need.

After every change (a call from a phone, a line typed at the terminal, an entry another process
appended to the same log, a decision of a live table) `version` goes up and every subscriber is
told (`subscribe`); the web application pushes the new view to each WebSocket then.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from referee.core import Action, RefereeError, jsonable
from referee.scorekeeper import Outcome, Scorekeeper
from referee.secrecy import PUBLIC, Viewer, seats, state_json
from referee.sessionlog import Entry
from tablereferee.web import words
from tablereferee.web.auth import Grant, NotAllowed, NotYourCall, NotYourTeam, ScorerOnly, Tokens, WebError

EVENTS_SHOWN = 20
PRACTICE_SHOWN = 30  # the signals seen of a team's players, behind its PIN
VIEWS_KEPT = 32  # TableViews kept built (one per viewer and version)
BUTTONS_APART = 12  # a kind with more legal choices than this becomes one button with a picker
CARD_FIELDS = ("card", "cards", "discards", "discard", "egg")
TITLES = {"beccato": "Beccato!", "beccaccino": "Beccaccino", "bestia": "Bestia"}
log = logging.getLogger("tablereferee.web")


class NoTable(WebError):
    """No table is set up yet: the scorer sets one up on the New-table page."""

    status = 409


class NoSuchPlayer(WebError):
    """A player name nobody at this table has."""

    status = 404


class NoSuchTeam(WebError):
    """A team this table does not have."""

    status = 404


class NoSuchQuestion(WebError):
    """An answer to a question the referee is not asking."""

    status = 404


class NoCameras(WebError):
    """A camera picture asked of a table that has no live camera of that name."""

    status = 404


class NotTypable(WebError):
    """An action a live table's keyboard lines cannot carry as it is: type it as a command."""

    status = 422


class CommandMissing(WebError):
    """A command request with neither a typed `command` nor an `action`."""

    status = 422


class LiveTable(Protocol):
    """What the hub asks of a live table (`tablereferee.web.live`)."""

    keeper: Scorekeeper | None

    def put_line(self, text: str) -> None: ...

    def questions(self) -> list[dict[str, Any]]: ...

    def cameras(self) -> list[str]: ...


def viewer_for(grant: Grant, teams: Mapping[str, Sequence[str]]) -> Viewer:
    """The secrecy viewer of a grant: a player sees their own view only once their phone holds
    their team's PIN; a team's PIN alone gives the team's view; everyone else the public's."""
    if grant.player is not None:
        team = next((t for t, members in teams.items() if grant.player in members), None)
        if team is not None and team in grant.teams:
            return Viewer(grant.player, frozenset([grant.player]), frozenset([team]))
        return PUBLIC
    if grant.teams and not grant.scorer:
        team = sorted(grant.teams)[0]
        return Viewer(team, frozenset(), frozenset([team]))
    return PUBLIC


def actor_of(action: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """Who an action is done by: (player, team); (None, None) for chance's and the scorer's."""
    player = action.get("caller") if "caller" in action else action.get("player")
    team = action.get("team")
    return (player if isinstance(player, str) else None), (team if isinstance(team, str) else None)


class TableHub:
    """One table (a Scorekeeper, or a live table's), the tokens of its phones, and its version."""

    def __init__(
        self,
        keeper: Scorekeeper | None = None,
        *,
        tokens: Tokens | None = None,
        live: LiveTable | None = None,
        join_base: str = "",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._keeper = keeper
        self.live = live
        self.tokens = tokens or Tokens()
        self.join_base = join_base.rstrip("/")
        self.clock = clock
        self.version = 1
        self._lock = threading.Lock()
        self._seen = -1
        self._subscribers: list[Callable[[int], None]] = []
        self._views: dict[tuple[Any, ...], dict[str, Any]] = {}  # built TableViews, by version and viewer
        self.on_table: list[Callable[[TableHub], None]] = []
        self.challenges: Any = None  # a `tablereferee.challenge.Challenges`, on a live table
        self._pushers: list[Callable[[dict[str, Any]], None]] = []  # each WebSocket's `push(message)`
        self._actions_seen = -1  # the first log seq whose action the challenges have not been shown
        self._actions_due = threading.Event()
        self._closing = threading.Event()
        self._actions_thread: threading.Thread | None = None
        if self.keeper is not None:
            self._adopt(self.keeper)

    # -- the table --------------------------------------------------------------------------

    @property
    def keeper(self) -> Scorekeeper | None:
        if self._keeper is None and self.live is not None:
            return self.live.keeper
        return self._keeper

    def attach(self, keeper: Scorekeeper) -> None:
        """A table set up after the server started (the New-table page)."""
        self._keeper = keeper
        self._adopt(keeper)
        for hook in self.on_table:
            hook(self)
        self.changed()

    def attach_live(self, live: LiveTable) -> None:
        """A live table set up after the server started (the New-table page, with cameras)."""
        self.live = live
        attach = getattr(live, "attach", None)
        if callable(attach):
            attach(self)
        if live.keeper is not None:
            self._adopt(live.keeper)
        for hook in self.on_table:
            hook(self)
        self.changed()

    def _adopt(self, keeper: Scorekeeper) -> None:
        _, teams = seats(keeper.state)
        self.tokens.set_teams(teams)
        self._seen = keeper.log.next_seq

    def _table(self) -> Scorekeeper:
        keeper = self.keeper
        if keeper is None:
            raise NoTable("no table is set up yet: the scorer sets one up on the New-table page (/new)")
        return keeper

    @contextlib.contextmanager
    def _locked(self, keeper: Scorekeeper) -> Iterator[None]:
        # The scorekeeper's own lock: a view reads the state and the log at one moment.
        with keeper.locked():
            yield

    def teams(self) -> dict[str, list[str]]:
        keeper = self.keeper
        return {} if keeper is None else seats(keeper.state)[1]

    def players(self) -> list[str]:
        keeper = self.keeper
        return [] if keeper is None else seats(keeper.state)[0]

    # -- changes ----------------------------------------------------------------------------

    def subscribe(self, callback: Callable[[int], None]) -> Callable[[], None]:
        """Call `callback(version)` after every change (from any thread); answers the unsubscribe."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._subscribers.remove(callback)

        return unsubscribe

    def push(self, callback: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """Call `callback(message)` with every message for all screens (a challenge ready)."""
        with self._lock:
            self._pushers.append(callback)

        def unsubscribe() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._pushers.remove(callback)

        return unsubscribe

    def _push(self, message: dict[str, Any]) -> None:
        with self._lock:
            pushers = list(self._pushers)
        for callback in pushers:
            callback(message)

    # -- the instant challenge ----------------------------------------------------------------

    def attach_challenges(self, challenges: Any) -> None:
        """The table's challenges (`tablereferee.challenge.Challenges`): a Caught! logged opens
        its challenge, and every screen is told once a challenge is ready."""
        self.challenges = challenges
        keeper = self.keeper
        self._actions_seen = keeper.log.next_seq if keeper is not None else 0
        challenges.subscribe(lambda c: self._push(challenge_message(c)))
        self._actions_thread = threading.Thread(target=self._show_actions, daemon=True, name="challenge-actions")
        self._actions_thread.start()

    def close(self) -> None:
        """Show the challenges the actions logged so far, then stop (the server is stopping)."""
        self._closing.set()
        self._actions_due.set()
        if self._actions_thread is not None:
            self._actions_thread.join(5.0)

    def _show_actions(self) -> None:
        """The challenges' own thread: every action newly logged goes to `challenges.on_action`
        (a Caught! builds its challenge here, never on the server's loop or the table's)."""
        while True:
            self._actions_due.wait()
            self._actions_due.clear()
            for action, at in self._new_actions():  # those logged before a close too
                try:
                    self.challenges.on_action(action, at=at)
                except RefereeError as exc:  # nothing to replay yet: the call stands, without its replay
                    log.warning("no challenge for %s: %s", action.get("kind"), exc)
            if self._closing.is_set():
                return

    def _new_actions(self) -> list[tuple[Mapping[str, Any], float]]:
        keeper = self.keeper
        if keeper is None:
            return []
        origin = getattr(self.live, "origin", None)
        with self._locked(keeper):
            base = keeper.log.header.created if origin is None else float(origin)
            new = [e for e in keeper.log.entries if e.seq >= self._actions_seen]
            if new:
                self._actions_seen = new[-1].seq + 1
            return [(e.payload["action"], e.time - base) for e in new if e.kind == "action"]

    def changed(self) -> int:
        if self.challenges is not None:
            self._actions_due.set()
        with self._lock:
            self.version += 1
            version = self.version
            subscribers = list(self._subscribers)
            keeper = self.keeper
            if keeper is not None:
                self._seen = keeper.log.next_seq
        for callback in subscribers:
            callback(version)
        return version

    def poll(self) -> bool:
        """Read what another process appended to the log (and notice what a live table or the
        terminal added); a change bumps the version. Called every ~0.2 s by the server."""
        keeper = self.keeper
        if keeper is None:
            return False
        sync = getattr(keeper, "sync", None)
        new = sync() if callable(sync) else []
        if new or keeper.log.next_seq != self._seen:
            self.changed()
            return True
        return False

    # -- views ------------------------------------------------------------------------------

    def join_info(self, base: str = "") -> dict[str, str]:
        """The join code and the address phones open (`join_base`, else the caller's `base`)."""
        code = self.tokens.code
        root = self.join_base or base.rstrip("/")
        return {"code": code, "url": f"{root}/join/{code}", "path": f"/join/{code}"}

    def table_view(self, grant: Grant, base: str = "") -> dict[str, Any]:
        """The TableView (docs/web.md) as `grant` may see it."""
        keeper = self.keeper
        role = grant.to_dict()
        if keeper is None:
            return {
                "version": self.version,
                "ready": False,
                "role": role,
                "game": None,
                "join": self.join_info(base),
                "waiting_for": "no table is set up yet: the scorer sets one up at /new",
            }
        with self._locked(keeper):
            engine, state = keeper.engine, keeper.state
            players, teams = seats(state)
            viewer = viewer_for(grant, teams)
            key = (self.version, keeper.log.next_seq, viewer, base)
            cached = self._views.get(key)
            if cached is not None:  # twenty phones on the public view: built once per change
                return {**cached, "role": role, "questions": self.questions()}
            view = state_json(engine, state, viewer)
            standings = jsonable(state.standings()) if hasattr(state, "standings") else {}
            waiting = state.waiting_for() if hasattr(state, "waiting_for") else {}
            out = {
                "version": self.version,
                "ready": True,
                "role": role,
                "game": engine.name,
                "title": TITLES.get(engine.name, engine.name),
                "players": [
                    {"name": p, "seat": i, "team": next((t for t, ms in teams.items() if p in ms), None)}
                    for i, p in enumerate(players)
                ],
                "teams": teams,
                "waiting_for": words.waiting_text(engine, state, viewer),
                "waiting": jsonable(waiting) if not viewer.everything else {},
                "to_play": getattr(state, "to_play", None),
                "view": view,
                "standings": standings,
                "standings_lines": words.standings_lines(engine, state, viewer),
                "events": self._events(keeper, viewer),
                "questions": self.questions(),
                "over": bool(state.is_over),
                "final": final_count(state, view) if state.is_over else None,
                "cameras": self.cameras(),
                "join": self.join_info(base),
            }
            built: dict[str, Any] = jsonable(out)
            if len(self._views) >= VIEWS_KEPT:
                self._views.clear()
            self._views[key] = built
        return {**built, "role": role, "questions": self.questions()}

    def _events(self, keeper: Scorekeeper, viewer: Viewer) -> list[dict[str, Any]]:
        shown: list[dict[str, Any]] = []
        entries = [e for e in keeper.log.entries if e.kind in ("action", "correction")]
        for entry in entries[-EVENTS_SHOWN:]:
            shown.append(self._event(keeper, entry, viewer))
        return shown

    def _event(self, keeper: Scorekeeper, entry: Entry, viewer: Viewer) -> dict[str, Any]:
        """One log entry in words, as `viewer` may see it (`referee.secrecy`)."""
        engine = keeper.engine
        payload = entry.payload
        state = keeper.state
        if entry.kind == "action":
            head = words.action_text(engine, payload["action"], viewer, state=state)
        else:
            op = payload.get("op")
            head = f"Entry {payload.get('target')} {'undone' if op == 'undo' else 'amended'}."
            if op == "amend" and isinstance(payload.get("action"), Mapping):
                head = f"Entry {payload.get('target')} amended: " + words.action_text(
                    engine, payload["action"], viewer, state=state
                )
        lines = words.events_lines(
            engine, [e for e in entry.events if e.get("kind") not in ("undone", "amended")], viewer, state=state
        )
        if lines and (lines[0] == head or lines[0].startswith(head.rstrip(".") + ":")):
            head = lines.pop(0)  # the first event says the action again (or says it and more)
        said = " ".join(lines)
        return {
            "entry": entry.seq,
            "time": entry.time,
            "source": entry.source,
            "kind": entry.kind,
            "text": f"{head} {said}" if said else head,
            "lines": [head, *lines],
        }

    def questions(self) -> list[dict[str, Any]]:
        return self.live.questions() if self.live is not None else []

    def cameras(self) -> list[dict[str, str]]:
        if self.live is None:
            return []
        return [
            {"name": c, "live": f"/api/cameras/{c}/live.mjpg", "frame": f"/api/cameras/{c}/frame.jpg"}
            for c in self.live.cameras()
        ]

    def me(self, grant: Grant) -> dict[str, Any]:
        """The caller's own buttons (docs/web.md)."""
        keeper = self._table()
        with self._locked(keeper):
            teams = self.teams()
            team = next((t for t, ms in teams.items() if grant.player in ms), None) if grant.player else None
            buttons: list[dict[str, Any]] = []
            if grant.player is not None or grant.scorer:
                buttons = self._buttons(keeper, grant)
            deck = keeper.state.view(None).get("deck")
            out = {
                "version": self.version,
                "game": keeper.engine.name,  # a phone names its cards before the first TableView arrives
                "deck": deck if isinstance(deck, str) else None,
                "role": grant.to_dict(),
                "player": grant.player,
                "team": team,
                "team_unlocked": team is not None and team in grant.teams,
                "buttons": buttons,
                "questions": self.questions(),
                "over": bool(keeper.state.is_over),
            }
            if grant.scorer:
                out["corrections"] = self._corrections(keeper)
        return jsonable(out)

    def _buttons(self, keeper: Scorekeeper, grant: Grant) -> list[dict[str, Any]]:
        engine, state = keeper.engine, keeper.state
        if state.is_over:
            return []
        by_kind: dict[str, list[dict[str, Any]]] = {}
        for action in state.legal_actions():
            data = engine.codec.to_dict(action)
            if not grant.scorer and not self._may(grant, data):
                continue
            by_kind.setdefault(str(data["kind"]), []).append(data)
        buttons: list[dict[str, Any]] = []
        viewer = viewer_for(grant, seats(state)[1])
        full = _full_knowledge(state)
        for kind, actions in by_kind.items():
            varying = sorted({k for a in actions for k in a if any(b.get(k) != a.get(k) for b in actions)})
            # A simulated deal knows every hand: its legal actions would tell whoever holds a
            # player's token (the join code is public) that player's cards. Picked from the deck.
            secret = full and any(not viewer.sees_player(actor_of(a)[0]) for a in actions)
            if secret:
                varying = sorted(set(varying) | {k for a in actions for k in CARD_FIELDS if a.get(k) is not None})
            picks = [k for k in varying if k in CARD_FIELDS or any(isinstance(a.get(k), list) for a in actions)]
            group = words.CALL_NAMES.get(kind, kind.replace("_", " ").capitalize())
            if picks or len(actions) > BUTTONS_APART:
                fixed = {k: v for k, v in actions[0].items() if k not in varying}
                choose: dict[str, Any] = {}
                for k in varying:
                    values = [a.get(k) for a in actions]
                    if any(isinstance(v, list) for v in values):
                        items = sorted({str(x) for v in values if isinstance(v, list) for x in v})
                        counts = sorted({len(v) for v in values if isinstance(v, list)})
                        choose[k] = {"choices": items, "counts": counts}
                    else:
                        choose[k] = {"choices": sorted({v for v in values if v is not None}, key=str), "counts": []}
                        if any(v is None for v in values):  # left out, the action goes without it
                            choose[k]["optional"] = True
                    if secret and k in CARD_FIELDS:
                        choose[k]["choices"] = []  # pick them from GET /api/cards
                        choose[k]["picker"] = "/api/cards"
                buttons.append({"kind": kind, "group": group, "label": group, "action": fixed, "choose": choose})
            else:
                for data in actions:
                    label = words.action_text(engine, data, state=state)
                    buttons.append({"kind": kind, "group": group, "label": label, "action": data, "choose": {}})
        return buttons

    def _may(self, grant: Grant, action: Mapping[str, Any]) -> bool:
        try:
            self._check_actor(grant, action)
        except NotAllowed:
            return False
        return True

    def _check_actor(self, grant: Grant, action: Mapping[str, Any]) -> None:
        if grant.scorer:
            return
        if grant.player is None:
            raise NotAllowed("join the table with its code before making a call", role=grant.role)
        player, team = actor_of(action)
        if player is not None:
            if player != grant.player:
                raise NotYourCall(f"this is {grant.player}'s phone: it cannot act for {player}", player=player)
            return
        if team is not None:
            if grant.player not in self.teams().get(team, []):
                raise NotYourTeam(f"{grant.player} does not play for {team}", team=team)
            return
        raise ScorerOnly("only the scorer enters this (what the cards or the eggs show)", kind=action.get("kind"))

    def _corrections(self, keeper: Scorekeeper) -> dict[str, Any]:
        entries = []
        for seq in keeper.actions:
            entry = next((e for e in keeper.log.entries if e.seq == seq), None)
            if entry is not None:
                entries.append(self._event(keeper, entry, PUBLIC))
        return {"in_effect": entries[-EVENTS_SHOWN:], "last": entries[-1]["entry"] if entries else None}

    def secret(self, grant: Grant, team: str) -> dict[str, Any]:
        """A team's secret signal and its practice history (the signals the cameras and the
        microphone saw its players make, the latest `PRACTICE_SHOWN`): only for a token that
        holds the team's PIN."""
        keeper = self._table()
        teams = self.teams()
        if team not in teams:
            raise NoSuchTeam(f"this table has no team {team!r}", team=team, teams=list(teams))
        if team not in grant.teams:
            raise NotAllowed(f"the secret of {team} needs the team's PIN", team=team)
        with self._locked(keeper):
            view = state_json(keeper.engine, keeper.state, Viewer(team, frozenset(), frozenset([team])))
            practice = [
                e
                for e in keeper.log.entries
                if e.kind == "observation"
                and e.payload.get("type") == "signal"
                and e.payload.get("player") in teams[team]
            ][-PRACTICE_SHOWN:]
        signal = (view.get("signals") or {}).get(team)
        out: dict[str, Any] = {"team": team, "members": teams[team], "signal": None}
        out["practice"] = [
            {
                "entry": e.seq,
                "time": e.time,
                "player": e.payload.get("player"),
                "signal": e.payload.get("signal"),
                "confidence": e.confidence,
                "theirs": e.payload.get("signal") == signal,
            }
            for e in practice
        ]
        if isinstance(signal, str) and signal != "hidden":
            from referee.signal_cards import BY_ID, FREE_SIGNAL  # deferred: only a game with signals asks

            card = BY_ID.get(signal)
            out["signal"] = {
                "id": signal,
                "text": card.text if card else ("your own signal (Free Signal)" if signal == FREE_SIGNAL else signal),
                "cue": card.cue if card else None,
            }
        return out

    # -- acting -----------------------------------------------------------------------------

    def join(self, code: str, player: str) -> Grant:
        self._table()
        players = self.players()
        match = next((p for p in players if p.casefold() == player.strip().casefold()), None)
        if match is None:
            raise NoSuchPlayer(f"nobody called {player!r} plays at this table", player=player, players=players)
        return self.tokens.join(code, match)

    def unlock(self, team: str, pin: str, grant: Grant) -> Grant:
        self._table()
        teams = self.teams()
        if team not in teams:
            raise NoSuchTeam(f"this table has no team {team!r}", team=team, teams=list(teams))
        if grant.player is not None and grant.player not in teams[team]:
            raise NotYourTeam(f"{grant.player}'s phone unlocks {grant.player}'s own team only", team=team)
        return self.tokens.unlock(team, pin, grant)

    def command(
        self, grant: Grant, command: str | None = None, action: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """One call from a phone (an action dict, or a typed line) or the scorer's line. An illegal
        one raises its named Violation and changes nothing."""
        keeper = self._table()
        if grant.role == "public":
            raise NotAllowed("join the table with its code before making a call", role="public")
        if command is None and action is None:
            raise CommandMissing("send a typed `command` or an `action`")
        source = "web"
        text = (command or "").strip()
        word = text.split(" ", 1)[0].lower() if text else ""
        generic = word in ("undo", "amend", "note", "history", "show", "help", "quit", "exit", "yes", "no")
        if generic and not grant.scorer:
            raise ScorerOnly(f"{word} is the scorer's", command=word)
        if self._live_running():
            return self._live_command(keeper, grant, text, action)
        if generic:
            if word in ("quit", "exit", "yes", "no"):
                raise ScorerOnly(f"{word} is typed at the terminal", command=word)
            outcome = keeper.submit(text, time=self.clock(), source=source)
        else:
            parsed = self._parse(keeper, text, action)
            self._check_actor(grant, keeper.engine.codec.to_dict(parsed))
            outcome = keeper.act(parsed, time=self.clock(), source=source, line=text, text=text or None)
        return self._answer(keeper, outcome)

    def _parse(self, keeper: Scorekeeper, text: str, action: Mapping[str, Any] | None) -> Action:
        with self._locked(keeper):
            keeper.sync()
            if action is not None:
                return keeper.engine.codec.from_dict(action)
            return keeper.engine.parse_command(keeper.state, text)

    def _live_command(
        self, keeper: Scorekeeper, grant: Grant, text: str, action: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """A live table takes its lines on its own loop: checked here, then queued."""
        assert self.live is not None
        if not text or action is not None:
            parsed = self._parse(keeper, text, action)
            data = keeper.engine.codec.to_dict(parsed)
            self._check_actor(grant, data)
            with self._locked(keeper):
                keeper.state.verify(parsed)
            with self._locked(keeper):
                text = text or _typed(keeper, data)
        elif text.split(" ", 1)[0].lower() not in ("undo", "amend", "note", "yes", "no", "show", "history", "help"):
            parsed = self._parse(keeper, text, None)
            self._check_actor(grant, keeper.engine.codec.to_dict(parsed))
            with self._locked(keeper):
                keeper.state.verify(parsed)
        self.live.put_line(text)
        return {"accepted": True, "queued": True, "entry": None, "text": text, "version": self.version}

    def _answer(self, keeper: Scorekeeper, outcome: Outcome) -> dict[str, Any]:
        if not outcome.accepted:
            assert outcome.error is not None
            raise outcome.error
        version = self.changed() if outcome.entry is not None else self.version
        text = ""
        if outcome.entry is not None:
            text = self._event(keeper, outcome.entry, PUBLIC)["text"]
        elif outcome.message:
            text = outcome.message
        return {
            "accepted": True,
            "queued": False,
            "entry": outcome.entry.seq if outcome.entry else None,
            "text": text,
            "version": version,
        }

    def _live_running(self) -> bool:
        """A live table still taking lines (once its cameras end, the scorekeeper takes them)."""
        return self.live is not None and bool(getattr(self.live, "running", True))

    def submit_line(self, line: str, *, source: str = "keyboard") -> Outcome:
        """A line typed at the server's terminal: the same table, the same log."""
        keeper = self._table()
        if self._live_running():
            assert self.live is not None
            self.live.put_line(line)
            return Outcome(line, True, "blank")
        outcome = keeper.submit(line, time=self.clock(), source=source)
        if outcome.entry is not None:
            self.changed()
        return outcome

    def answer(self, grant: Grant, question: int, yes: bool) -> dict[str, Any]:
        """The one-tap answer to a referee's question (a live table's ask)."""
        self._table()
        if grant.role == "public":
            raise NotAllowed("join the table with its code before answering", role="public")
        if question not in {q["id"] for q in self.questions()}:
            raise NoSuchQuestion(f"the referee is not asking question {question}", question=question)
        assert self.live is not None  # only a live table asks
        self.live.put_line(f"{'yes' if yes else 'no'} {question}")
        return {"accepted": True, "queued": True, "question": question, "version": self.version}


def challenge_message(challenge: Any) -> dict[str, Any]:
    """What every screen is told of a challenge ready: its number, its headline, its page."""
    number = int(challenge.number)
    return {"type": "challenge", "number": number, "headline": challenge.headline(), "url": f"/challenge#n={number}"}


def _typed(keeper: Scorekeeper, data: Mapping[str, Any]) -> str:
    """An action dict as the line a live table's keyboard reads (the scorekeeper's own words),
    checked to read back as the same action; `NotTypable` when it does not."""
    parts = []
    for key, value in data.items():
        if key == "kind" or value is None:
            continue
        parts += [str(v) for v in value] if isinstance(value, list) else [str(value)]
    verb = {"draw_egg": "egg", "take_egg": "take", "place_egg": "place", "show_cards": "seen"}.get(
        str(data["kind"]), str(data["kind"])
    )
    line = " ".join([verb, *parts])
    try:
        again = keeper.engine.codec.to_dict(keeper.engine.parse_command(keeper.state, line))
    except RefereeError:
        again = None
    if again != dict(data):
        raise NotTypable(
            f"this table's keyboard would not read {line!r} as that action: send it as a typed command",
            line=line,
        )
    return line


def _full_knowledge(state: Any) -> bool:
    """A simulated deal (a seed or the deals given): the state knows every hand."""
    snapshot = state.snapshot()
    cards, table = snapshot.get("cards"), snapshot.get("table")
    return bool(
        (isinstance(cards, Mapping) and cards.get("full"))
        or (isinstance(table, Mapping) and table.get("knowledge") == "full")
    )


def final_count(state: Any, view: Mapping[str, Any]) -> dict[str, Any]:
    """The final count: winners, each team's points and eggs and, under the Egg Pyramid, the
    pyramid's rows and the bonus its complete rows earned."""
    result = view.get("result") or {}
    out: dict[str, Any] = {
        "reason": result.get("reason"),
        "winners": result.get("winners") or [],
        "shared": bool(result.get("shared")),
        "teams": {},
    }
    scores = result.get("scores") or view.get("scores") or {}
    collections = view.get("collections") or {}
    options = (view.get("table") or {}).get("options") or {}
    guilds = (view.get("table") or {}).get("guilds") or {}
    for team, score in scores.items():
        eggs = [
            {"egg": e.get("egg"), "face_up": e.get("face_up", True), "place": e.get("place")}
            for e in collections.get(team, [])
        ]
        line: dict[str, Any] = {**(score if isinstance(score, Mapping) else {"points": score}), "cards": eggs}
        if options.get("egg_pyramid") and team in guilds:
            line["pyramid"] = _pyramid(eggs, str(guilds[team]), options)
        out["teams"][team] = line
    if not out["teams"]:
        out["standings"] = jsonable(state.standings()) if hasattr(state, "standings") else {}
    return out


def _pyramid(eggs: Sequence[Mapping[str, Any]], guild: str, options: Mapping[str, Any]) -> dict[str, Any]:
    from referee.beccato.scoring import Card, pyramid_score  # deferred: Beccato!'s count, for its pyramid

    slots = {str(e["place"]): Card(str(e["egg"]), bool(e["face_up"])) for e in eggs if e.get("place")}
    fill = bool(options.get("pyramid_guild_fill", True))
    with_bonus = pyramid_score(
        slots, guild, level_bonus=bool(options.get("pyramid_level_bonus", True)), guild_fill=fill
    )
    plain = pyramid_score(slots, guild, level_bonus=False, guild_fill=fill)
    return {
        "places": {p: {"egg": c.card, "face_up": c.face_up} for p, c in slots.items()},
        "plain_points": plain.points,
        "bonus": with_bonus.points - plain.points,
        "points": with_bonus.points,
        "excluded": with_bonus.excluded,
        "why_excluded": (
            "more than three empty places in the pyramid: it cannot be filled with the Guild cards"
            if with_bonus.excluded
            else None
        ),
    }
