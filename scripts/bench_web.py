"""Bench the web table on loopback: a call on a phone to the table screen updated, the live view's
frames per second and added CPU, the server's memory (issue 26; goal: p95 under 200 ms).

    .venv/bin/python scripts/bench_web.py                 # 60 calls, 20 phones, the live view
    .venv/bin/python scripts/bench_web.py --calls 200 --no-live --no-browser
    .venv/bin/python scripts/bench_web.py --load 300      # 20 phones calling for 5 minutes

Everything runs against real `referee serve` processes on 127.0.0.1 (a free port each):

- calls: 20 phones joined (5 a player) with their WebSockets open; one phone after another calls
  Coccodé, the player to show reveals, the scorer undoes both. Each call is timed from the moment
  its request leaves to the moment the table screen has it: on a public WebSocket (the message
  that carries the new version arrives) and, unless --no-browser, in Chromium (the table page's
  `data-version` changes: the page has drawn it). The baseline of the same run is a bare request
  (`GET /api/health`): the ratios say what the table adds to a round trip.
- live: `referee serve --live` on the demo session's card camera (datasets/demo, 10 fps), once
  with nobody watching and once with a viewer on `live.mjpg`: the frames per second the viewer
  gets and the CPU the server spends the more (seconds of CPU per second, from /proc).
- memory: the server's resident memory (VmRSS) idle, after the calls, and at the end of the live run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from tests.web.browser import CHROMIUM, FLAGS, PLAYERS, Phones, client  # noqa: E402

DEMO = ROOT / "datasets" / "demo"
CLIP = DEMO / "cameras" / "cards" / "seg_000000000.mp4"
EGGS = ["egg dollar-1", "egg star-2", "egg moon-3"]
REVEAL = ["orloff", "padovana", "brahma"]


class Server:
    """`referee serve ...` on 127.0.0.1 and a free port, ready once it prints `serving on URL`."""

    def __init__(self, args: list[str], cwd: Path, timeout: float = 90.0) -> None:
        cmd = [sys.executable, "-m", "tablereferee.cli", "serve", *args, "--port", "0", "--no-prompt"]
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True, env=env)
        self.lines: list[str] = []
        ready = threading.Event()

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line.rstrip("\n"))
                if line.startswith("serving on "):
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(timeout) or self.proc.poll() is not None:
            self.stop()
            raise SystemExit(f"the server did not start: {self.lines[-5:]}")
        self.url = next(x for x in self.lines if x.startswith("serving on ")).split()[-1]
        self.scorer = next(x for x in self.lines if x.startswith("scorer: ")).rsplit("scorer=", 1)[1]
        found = re.search(r"\(code (\w+)\)", next(x for x in self.lines if x.startswith("join: ")))
        assert found is not None
        self.code = found.group(1)

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


class Screen:
    """The table screen's public WebSocket: when each version arrived."""

    def __init__(self, url: str) -> None:
        self.arrived: dict[int, float] = {}
        self.news = threading.Condition()
        self.socket = connect(url.replace("http://", "ws://") + "/ws", max_size=None)
        self.thread = threading.Thread(target=self._listen, daemon=True)
        self.thread.start()

    def _listen(self) -> None:
        try:
            for raw in self.socket:
                version = int(json.loads(raw)["version"])
                with self.news:
                    self.arrived.setdefault(version, time.perf_counter())
                    self.news.notify_all()
        except Exception:  # noqa: BLE001  (closed at the end)
            return

    def seen(self, version: int, timeout: float = 10.0) -> float:
        with self.news:
            self.news.wait_for(lambda: any(v >= version for v in self.arrived), timeout)
            times = [t for v, t in self.arrived.items() if v >= version]
        if not times:
            raise SystemExit(f"the table screen never showed version {version}")
        return min(times)

    def close(self) -> None:
        self.socket.close()


class BrowserScreen:
    """The table page in Chromium: when its `data-version` changed (the page drew the table)."""

    WATCH = """() => { window.__seen = {}; new MutationObserver(() => {
        const v = Number(document.body.dataset.version); if (!(v in window.__seen)) window.__seen[v] = Date.now();
      }).observe(document.body, {attributes: true, attributeFilter: ['data-version']}); }"""

    def __init__(self, url: str) -> None:
        from playwright.sync_api import sync_playwright  # deferred: only the browser measure needs Playwright

        self.pw = sync_playwright().start()
        self.browser = self.pw.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, headless=True)
        self.page = self.browser.new_context(viewport={"width": 1600, "height": 900}).new_page()
        self.page.goto(url + "/")
        self.page.wait_for_selector("body[data-ready=true]")
        self.page.evaluate(self.WATCH)

    def seen(self, version: int, timeout: float = 10.0) -> float:
        """Wall-clock seconds (time.time) when the page first showed `version` or later."""
        self.page.wait_for_function(f"Number(document.body.dataset.version) >= {version}", timeout=timeout * 1000)
        times = self.page.evaluate(
            f"Object.entries(window.__seen).filter(([v]) => Number(v) >= {version}).map(([, t]) => t)"
        )
        return min(times) / 1000.0

    def close(self) -> None:
        self.browser.close()
        self.pw.stop()


def bench_calls(calls: int, browser: bool, work: Path) -> dict[str, Any]:
    players = ",".join(PLAYERS)
    args = ["--game", "beccato", "--players", players, "--teams", "Reds=Anna,Carla;Blues=Ben,Dan"]
    server = Server([*args, "--log", str(work / "calls.db")], cwd=work)
    out: dict[str, Any] = {"phones": 20}
    try:
        out["rss_idle_mb"] = round(server.rss_mb(), 1)
        scorer = client(server.url, server.scorer)
        for line in EGGS:
            scorer.post("/api/commands", json={"command": line}).raise_for_status()
        screen = Screen(server.url)
        page = BrowserScreen(server.url) if browser else None
        with Phones(server.url, server.code, server.scorer, per_player=5) as phones:
            base: list[float] = []
            for _ in range(50):
                t0 = time.perf_counter()
                phones.phones[0].http.get("/api/health").raise_for_status()
                base.append((time.perf_counter() - t0) * 1000)
            socket_ms: list[float] = []
            page_ms: list[float] = []
            made = 0
            while made < calls:
                caller = phones.phones[(made * 5) % len(phones.phones)]
                steps: list[tuple[httpx.Client, dict[str, Any]]] = [
                    (caller.http, {"action": {"kind": "coccode", "caller": caller.player}})
                ]
                for step, (http, body) in enumerate(steps):
                    wall, t0 = time.time(), time.perf_counter()
                    answer = http.post("/api/commands", json=body)
                    answer.raise_for_status()
                    version = int(answer.json()["version"])
                    socket_ms.append((screen.seen(version) - t0) * 1000)
                    if page is not None:
                        page_ms.append((page.seen(version) - wall) * 1000)
                    made += 1
                    if step == 0:  # then the reveal of each player to show, and the scorer's undo of it all
                        waiting = scorer.get("/api/table").json()["waiting"].get("players") or []
                        for player in waiting:
                            phone = next(p for p in phones.phones if p.player == player)
                            steps.append(
                                (phone.http, {"action": {"kind": "reveal", "player": player, "cards": REVEAL}})
                            )
                        steps += [(scorer, {"command": "undo"})] * (1 + len(waiting))
            late = phones.settled(int(scorer.get("/api/health").json()["version"]))
            out["phones_behind"] = len(late)
        screen.close()
        if page is not None:
            page.close()
        out["rss_after_mb"] = round(server.rss_mb(), 1)
        out["calls"] = len(socket_ms)
        out["baseline_health_ms"] = {"p50": round(statistics.median(base), 2), "p95": round(pct(base, 0.95), 2)}
        for name, values in (("to_screen_socket_ms", socket_ms), ("to_screen_page_ms", page_ms)):
            if values:
                p50, p95 = statistics.median(values), pct(values, 0.95)
                out[name] = {"p50": round(p50, 1), "p95": round(p95, 1), "max": round(max(values), 1)}
                out[name.replace("_ms", "_vs_baseline")] = round(p50 / statistics.median(base), 1)
    finally:
        server.stop()
    return out


def mjpeg_count(url: str, seconds: float) -> int:
    frames = 0
    buffer = b""
    end = time.monotonic() + seconds
    with httpx.stream("GET", url, timeout=30) as answer:
        for chunk in answer.iter_bytes():
            buffer += chunk
            while (i := buffer.find(b"--frame")) >= 0 and (j := buffer.find(b"--frame", i + 7)) >= 0:
                frames += 1
                buffer = buffer[j:]
            if time.monotonic() >= end:
                break
    return frames


def bench_live(seconds: float, work: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"clip": str(CLIP.relative_to(ROOT)), "clip_fps": 10, "window_s": seconds}
    spent = {}
    for watched in (False, True):
        folder = work / f"live-{'watched' if watched else 'alone'}"
        server = Server(
            ["--table", str(DEMO / "session.json"), "--live", f"cards={CLIP}", "--out", str(folder)], cwd=work
        )
        try:
            cpu0, t0 = server.cpu_seconds(), time.monotonic()
            if watched:
                frames = mjpeg_count(server.url + "/api/cameras/cards/live.mjpg", seconds)
                elapsed = time.monotonic() - t0
                out["viewer_fps"] = round(frames / elapsed, 1)
            else:
                time.sleep(seconds)  # the measuring window, the same length with nobody watching
                elapsed = time.monotonic() - t0
            spent[watched] = (server.cpu_seconds() - cpu0) / elapsed
            out[f"rss_{'watched' if watched else 'alone'}_mb"] = round(server.rss_mb(), 1)
        finally:
            server.stop()
    out["cpu_alone"] = round(spent[False], 2)
    out["cpu_watched"] = round(spent[True], 2)
    out["cpu_added_by_viewer"] = round(spent[True] - spent[False], 2)
    return out


def bench_load(seconds: float, work: Path) -> dict[str, Any]:
    args = ["--game", "beccato", "--players", ",".join(PLAYERS), "--teams", "Reds=Anna,Carla;Blues=Ben,Dan"]
    server = Server([*args, "--log", str(work / "load.db")], cwd=work)
    try:
        with Phones(server.url, server.code, server.scorer, per_player=5) as phones:
            report = phones.play(seconds, first=tuple(EGGS))
            late = phones.settled(report.final_version)
            errors = sum(len(p.errors) for p in phones.phones)
        return {
            "seconds": seconds,
            "rounds": report.rounds,
            "accepted": len(report.accepted),
            "refused": dict(report.refused),
            "failures": len(report.failures),
            "socket_errors": errors,
            "phones_behind": len(late),
            "entries_in_order": report.accepted == list(range(1, len(report.accepted) + 1)),
            "rss_mb": round(server.rss_mb(), 1),
        }
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=60, help="calls timed to the table screen")
    parser.add_argument("--no-browser", action="store_true", help="time to the screen's WebSocket only")
    parser.add_argument("--no-live", action="store_true", help="skip the live view")
    parser.add_argument("--live-seconds", type=float, default=8.0, help="the live view's window")
    parser.add_argument("--load", type=float, default=0.0, help="also 20 phones calling for this many seconds")
    opts = parser.parse_args()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
        work = Path(tmp)
        browser = not opts.no_browser and CHROMIUM.exists()
        results["calls"] = bench_calls(opts.calls, browser, work)
        print(json.dumps({"calls": results["calls"]}, indent=1), flush=True)
        if not opts.no_live:
            results["live"] = bench_live(opts.live_seconds, work)
            print(json.dumps({"live": results["live"]}, indent=1), flush=True)
        if opts.load:
            results["load"] = bench_load(opts.load, work)
            print(json.dumps({"load": results["load"]}, indent=1), flush=True)
    p95 = results["calls"].get("to_screen_page_ms", results["calls"]["to_screen_socket_ms"])["p95"]
    print(f"goal p95 < 200 ms: {'met' if p95 < 200 else 'NOT met'} ({p95} ms)")


if __name__ == "__main__":
    main()
