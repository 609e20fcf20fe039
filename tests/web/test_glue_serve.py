"""`referee serve`'s own socket and stop: a live table's open MJPEG stream never holds the
server up as it stops."""

from __future__ import annotations

import signal
import socket
import subprocess
from pathlib import Path

import httpx

from tablereferee.commands.serve import GRACE_SECONDS
from tests.web.conftest import ROOT, Served

DEMO = ROOT / "datasets" / "demo"


def test_an_open_live_stream_ends_as_the_server_stops(tmp_path: Path) -> None:
    args = ["--table", str(DEMO / "session.json"), "--live", f"cards={DEMO / 'cameras' / 'cards'}"]
    served = Served([*args, "--out", str(tmp_path / "live")], cwd=tmp_path, timeout=90)
    try:
        with httpx.Client(base_url=served.url, timeout=30) as http:
            with http.stream("GET", "/api/cameras/cards/live.mjpg") as stream:
                chunks = stream.iter_bytes()
                assert b"--frame" in next(chunks)  # the stream is open, a frame in
                served.proc.send_signal(signal.SIGINT)
                # the stream ends with its next frame; the server stops well inside its grace
                # period (the stream's own 1 s wait, not uvicorn's cut at GRACE_SECONDS)
                rest = b"".join(chunks)
                served.proc.wait(GRACE_SECONDS)
            assert rest == b"" or rest.endswith(b"\r\n")
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the server did not stop: {served.stderr()[-2000:]}") from None
    finally:
        served.stop()
    assert (tmp_path / "live" / "log.db").is_file()


def test_the_listening_socket_sends_small_answers_at_once(monkeypatch) -> None:
    """TCP_NODELAY on the listening socket (what each accepted connection inherits)."""
    from tablereferee.commands import serve as command

    made: list[socket.socket] = []

    class Stop(Exception):
        pass

    def create_app(*_a, **_k):  # the socket is bound and set: stop before serving
        raise Stop

    real = socket.socket

    def tracked(*a, **k):
        s = real(*a, **k)
        made.append(s)
        return s

    monkeypatch.setattr(command.socket, "socket", tracked)
    monkeypatch.setattr("tablereferee.web.create_app", create_app)
    from tablereferee.web import TableHub

    try:
        command.serve(TableHub(), "127.0.0.1", 0, prompt=False)
    except Stop:
        pass
    listening = [s for s in made if s.type == socket.SOCK_STREAM]
    assert listening and listening[0].getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    for s in made:
        s.close()
