"""A live table on the web: `run_live` on its own thread, its frames drawn for the screen.

    live = LiveRunner(config, {"cards": 0}, "sessions/tonight").start()
    hub = TableHub(tokens=Tokens(), live=live); live.attach(hub)

The phones' calls and the terminal's lines go into the table's keyboard lines (`put_line`), in
order with what the cameras see; the table's own decisions bump the hub's version. Each
camera's newest frame is kept and drawn on request (`jpeg`) with the zones (seats among them),
the cards found and their names, as `referee clip` draws them: never a signal seen (a signal
on the public screen would tell everyone a team's secret).

With a `buffer` (`tablereferee.challenge.ChallengeBuffer`) every frame is also kept there, with
what was observed in it, for the instant challenge to replay.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.core import RefereeError
from referee.observations import CardsSeen
from referee.scorekeeper import Scorekeeper
from referee.table.session import Decision, TableSession
from tablereferee.recording.clip import draw_readings, draw_zones
from tablereferee.run import RunResult, TableConfig, run_live
from tablereferee.web import words
from tablereferee.web.hub import NoCameras
from vision.capture.sources import CameraFrame
from vision.cards import decks

JPEG_QUALITY = 80
_STOP = None  # what ends the keyboard lines


class LiveDidNotStart(RefereeError):
    """The live table stopped before its session began (a camera that does not open...)."""


class LiveRunner:
    """`run_live` on a thread, as the hub's live table (`tablereferee.web.hub.LiveTable`)."""

    def __init__(
        self,
        config: TableConfig,
        cameras: Mapping[str, Any],
        out: str | Path,
        *,
        paced: bool = True,
        duration: float | None = None,
        record: bool = True,
        threads: int | None = None,
        echo: Any = None,
        buffer: Any = None,
        **run_options: Any,
    ) -> None:
        self.config = config
        self.specs = dict(cameras)
        self.out = Path(out)
        self.options = {"paced": paced, "duration": duration, "record": record, "threads": threads, **run_options}
        self.keeper: Scorekeeper | None = None
        self.session: TableSession | None = None
        self.result: RunResult | None = None
        self.error: BaseException | None = None
        self.hub: Any = None
        self._echo = echo
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._started = threading.Event()
        self._frames: dict[str, tuple[int, np.ndarray, list[dict[str, Any]]]] = {}
        self._readings: dict[str, list[dict[str, Any]]] = {}
        self._encoded: dict[str, tuple[int, bytes]] = {}
        self._new_frame = threading.Condition()
        self._thread: threading.Thread | None = None
        self.deck = config.deck
        self.buffer = buffer  # a `tablereferee.challenge.ChallengeBuffer`: the last seconds, for a challenge

    # -- running -----------------------------------------------------------------------------

    def start(self, timeout: float = 120.0) -> LiveRunner:
        """Start the table; answers once its session exists (models loaded, cameras open)."""
        self._thread = threading.Thread(target=self._run, daemon=True, name="live-table")
        self._thread.start()
        self._started.wait(timeout)
        if self.session is None:
            raise LiveDidNotStart(f"the live table did not start: {self.error or 'it took too long'}")
        return self

    def _run(self) -> None:
        try:
            self.result = run_live(
                self.specs,
                self.out,
                self.config,
                keyboard=self._keyboard(),
                echo=self._decided,
                listener=self,
                **self.options,
            )
        except BaseException as exc:  # noqa: BLE001  (reported by start, or after the session as a stop)
            self.error = exc
        finally:
            self._started.set()
            with self._new_frame:
                self._new_frame.notify_all()
            if self.hub is not None:
                self.hub.changed()

    def _keyboard(self) -> Iterator[str]:
        while True:
            line = self._lines.get()
            if line is _STOP:
                yield "quit"
                return
            yield line

    def attach(self, hub: Any) -> None:
        self.hub = hub

    def stop(self, timeout: float = 30.0) -> RunResult | None:
        """Stop the table (as `quit` typed) and wait for it to finish writing."""
        self._lines.put(_STOP)
        if self._thread is not None:
            self._thread.join(timeout)
        return self.result

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- what run_live tells ---------------------------------------------------------------------

    def started(self, session: TableSession) -> None:
        self.session = session
        self.keeper = session.sk
        self._started.set()

    @property
    def origin(self) -> float | None:
        """The session's clock origin (epoch seconds): a log entry's time less it is session time."""
        return None if self.session is None else self.session.origin

    def frame(self, frame: CameraFrame, observations: list[Any]) -> None:
        if self.buffer is not None:
            self.buffer.add(frame, observations)
        for obs in observations:
            if isinstance(obs, CardsSeen) and obs.camera == frame.camera:
                self._readings[frame.camera] = [self._named(c.to_dict()) for c in obs.cards]
        with self._new_frame:
            number = self._frames[frame.camera][0] + 1 if frame.camera in self._frames else 0
            self._frames[frame.camera] = (number, frame.image, list(self._readings.get(frame.camera, [])))
            self._new_frame.notify_all()

    def _named(self, reading: dict[str, Any]) -> dict[str, Any]:
        card = reading.get("card")
        if isinstance(card, str):
            try:
                reading["card"] = decks.card(self.deck, card).name
            except KeyError:
                pass
        return reading

    def _decided(self, decision: Decision) -> None:
        if self._echo is not None:
            self._echo(decision)
        if self.hub is not None and decision.kind != "cards":
            self.hub.changed()

    # -- what the hub asks -----------------------------------------------------------------------

    def put_line(self, text: str) -> None:
        self._lines.put(text)

    def cameras(self) -> list[str]:
        return list(self.specs)

    def questions(self) -> list[dict[str, Any]]:
        session = self.session
        if session is None:
            return []
        out = []
        with session.sk.locked():
            by_seq = {e.seq: e for e in session.log.entries}
            try:
                asks = session.open_asks()
            except RuntimeError:  # the table's thread changed them as they were read: the next view has them
                asks = []
            for ask in asks:
                entry = by_seq.get(ask)
                payload = entry.payload if entry is not None else {}
                out.append({"id": ask, "text": words.question_text(session.engine, ask, payload, state=session.state)})
        return out

    def jpeg(self, camera: str) -> bytes:
        """The camera's newest frame with its overlays, as JPEG."""
        if camera not in self.specs:
            raise NoCameras(f"this table has no camera {camera!r}", camera=camera, cameras=list(self.specs))
        with self._new_frame:
            held = self._frames.get(camera)
        if held is None:
            return _placeholder(f"waiting for camera {camera}")
        number, image, readings = held
        cached = self._encoded.get(camera)
        if cached is not None and cached[0] == number:
            return cached[1]
        canvas = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        draw_zones(canvas, self._zones(), camera)
        draw_readings(canvas, readings)
        ok, data = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        jpeg = data.tobytes() if ok else _placeholder("this frame could not be encoded")
        self._encoded[camera] = (number, jpeg)
        return jpeg

    def frame_number(self, camera: str) -> int:
        held = self._frames.get(camera)
        return -1 if held is None else held[0]

    def wait_jpeg(self, camera: str, last: int, timeout: float) -> tuple[bytes, int]:
        """The next frame after number `last` (or the same one after `timeout` seconds)."""
        with self._new_frame:
            self._new_frame.wait_for(lambda: self.frame_number(camera) != last or not self.running, timeout)
        return self.jpeg(camera), self.frame_number(camera)

    def _zones(self) -> list[dict[str, Any]]:
        return [z.to_dict() for z in self.config.zones]


def _placeholder(text: str) -> bytes:
    canvas = np.zeros((360, 640, 3), np.uint8)
    cv2.putText(canvas, text, (20, 180), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (220, 220, 220), 2, cv2.LINE_AA)
    ok, data = cv2.imencode(".jpg", canvas)
    return data.tobytes() if ok else b""


def start_live(
    table: str | None, cameras: Mapping[str, str], out: str | None, *, from_session: str | None = None, **options: Any
) -> LiveRunner:
    """`referee serve --table FILE --live NAME=SOURCE ...` (or a session folder's table, as
    `referee live --from`): the live table, started."""
    from tablereferee.commands.live import load_table, print_decision  # deferred: `referee live`'s own pieces
    from tablereferee.paths import default_session_path  # deferred: only a new session names a folder

    config = load_table(table, from_session)
    specs: dict[str, Any] = {n: int(s) if s.isdigit() and not Path(s).exists() else s for n, s in cameras.items()}
    folder = Path(out) if out else default_session_path(config.game)
    options.setdefault("echo", print_decision)
    return LiveRunner(config, specs, folder, **options).start()
