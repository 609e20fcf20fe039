"""The practice history of a table: every drill's verdict and every quiz answer, in one SQLite
file beside the table's sessions (`<sessions>/practice.sqlite`).

    store = PracticeStore(path)
    store.add_drill(result)                  # a drill's verdict (Drill.finish())
    store.history("Anna")                    # her drills, oldest first
    store.add_answer(player, clip, said)     # a quiz answer, scored
    store.leaderboard()                      # every quiz-taker's hits, misses, false alarms, d'
    store.spotting("raise_hand_right")       # how often quiz-takers spotted that signal
    store.add_rehearsal(result)              # a team rehearsal's round (never its signal)
    store.rehearsals("Reds")                 # the team's rounds, oldest first

A team's own signal is kept as "the team's own signal": its card is never written.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from tablereferee.practice.quiz import Tally, score_answer

SCHEMA = """
CREATE TABLE IF NOT EXISTS drills (
    id TEXT PRIMARY KEY, player TEXT NOT NULL, signal TEXT NOT NULL, secret INTEGER NOT NULL,
    seen INTEGER NOT NULL, delay REAL, nonchalance REAL NOT NULL, confidence REAL, frames INTEGER,
    at REAL NOT NULL, detail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS drills_player ON drills (player, at);
CREATE TABLE IF NOT EXISTS answers (
    n INTEGER PRIMARY KEY AUTOINCREMENT, player TEXT NOT NULL, clip TEXT NOT NULL,
    truth_player TEXT, truth_signal TEXT, said_player TEXT, said_signal TEXT,
    outcome TEXT NOT NULL, at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS answers_player ON answers (player);
CREATE TABLE IF NOT EXISTS calibrations (player TEXT PRIMARY KEY, profile TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS rehearsals (
    id TEXT PRIMARY KEY, team TEXT NOT NULL, signaller TEXT NOT NULL, spotter TEXT,
    seen INTEGER NOT NULL, reaction REAL, early INTEGER NOT NULL, at REAL NOT NULL, detail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS rehearsals_team ON rehearsals (team, at);
"""
SECRET_LABEL = "the team's own signal"


class PracticeStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False)
        self._db.executescript(SCHEMA)
        self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- drills --------------------------------------------------------------------------------

    def add_drill(self, result: dict[str, Any], secret: bool = False) -> None:
        signal = SECRET_LABEL if secret else str(result["card"]["signal"])
        detail = {
            k: result.get(k)
            for k in ("seen", "unsure", "delay", "cue", "start", "end", "seen_share", "fps", "server_ms")
        }
        detail["nonchalance"] = result.get("nonchalance")
        if secret:
            detail["cue"] = None  # the cue's words name the signal
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO drills VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    result["drill"],
                    result["player"],
                    signal,
                    int(secret),
                    int(bool(result["seen"])),
                    result.get("delay"),
                    float(result["nonchalance"]["score"]),
                    result.get("confidence"),
                    result.get("frames"),
                    time.time(),
                    json.dumps(detail),
                ),
            )
            self._db.commit()

    def history(self, player: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, signal, seen, delay, nonchalance, confidence, frames, at FROM drills"
                " WHERE player = ? ORDER BY at, rowid",
                (player,),
            ).fetchall()
        return [
            {
                "drill": r[0],
                "signal": r[1],
                "seen": bool(r[2]),
                "delay": r[3],
                "nonchalance": r[4],
                "confidence": r[5],
                "frames": r[6],
                "at": r[7],
            }
            for r in rows
        ]

    def players(self) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT player FROM drills UNION SELECT player FROM answers ORDER BY 1").fetchall()
        return [r[0] for r in rows]

    def summary(self, player: str) -> dict[str, Any]:
        """A player's drills in figures: per signal, how often read, the mean delay and score."""
        per: dict[str, dict[str, Any]] = {}
        for h in self.history(player):
            s = per.setdefault(h["signal"], {"drills": 0, "seen": 0, "delays": [], "scores": []})
            s["drills"] += 1
            s["seen"] += int(h["seen"])
            if h["delay"] is not None:
                s["delays"].append(h["delay"])
            if h["seen"]:
                s["scores"].append(h["nonchalance"])
        return {
            sig: {
                "drills": s["drills"],
                "seen": s["seen"],
                "mean_delay": round(sum(s["delays"]) / len(s["delays"]), 3) if s["delays"] else None,
                "mean_nonchalance": round(sum(s["scores"]) / len(s["scores"]), 1) if s["scores"] else None,
            }
            for sig, s in per.items()
        }

    # -- each player's calibration ------------------------------------------------------------

    def save_profile(self, player: str, profile: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO calibrations VALUES (?,?,?)", (player, json.dumps(profile), time.time())
            )
            self._db.commit()

    def profile(self, player: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT profile FROM calibrations WHERE player = ?", (player,)).fetchone()
        return json.loads(row[0]) if row else None

    # -- the quiz ------------------------------------------------------------------------------

    def add_answer(
        self,
        player: str,
        clip: str,
        truth: tuple[str | None, str | None],
        said: tuple[str | None, str | None],
    ) -> str:
        outcome = score_answer(truth, said)
        with self._lock:
            self._db.execute(
                "INSERT INTO answers (player, clip, truth_player, truth_signal, said_player, said_signal, outcome, at)"
                " VALUES (?,?,?,?,?,?,?,?)",
                (player, clip, truth[0], truth[1], said[0], said[1], outcome, time.time()),
            )
            self._db.commit()
        return outcome

    def tally(self, player: str) -> Tally:
        with self._lock:
            rows = self._db.execute("SELECT outcome FROM answers WHERE player = ?", (player,)).fetchall()
        return Tally.of(r[0] for r in rows)

    def leaderboard(self) -> list[dict[str, Any]]:
        with self._lock:
            names = [r[0] for r in self._db.execute("SELECT DISTINCT player FROM answers").fetchall()]
        board = [{"player": p, **self.tally(p).to_dict()} for p in names]
        return sorted(board, key=lambda r: (-r["d_prime"], -r["hits"], r["player"]))

    def spotting(self, signal: str) -> dict[str, Any]:
        """How often the quiz-takers spotted `signal`: of the answers to clips of it, the hits
        (player and signal named), the wrong ones (someone named, not both right) and the misses."""
        with self._lock:
            rows = self._db.execute(
                "SELECT outcome, COUNT(*) FROM answers WHERE truth_signal = ? AND truth_player IS NOT NULL"
                " GROUP BY outcome",
                (signal,),
            ).fetchall()
        n = {str(o): int(c) for o, c in rows}
        answers = sum(n.values())
        hits = n.get("hit", 0)
        return {
            "answers": answers,
            "spotted": hits,
            "noticed": hits + n.get("wrong", 0),
            "missed": n.get("miss", 0),
            "spotted_share": round(hits / answers, 3) if answers else None,
        }

    # -- team rehearsals -----------------------------------------------------------------------

    def add_rehearsal(self, result: dict[str, Any]) -> None:
        """A rehearsal's round as `Rehearsal.result` gives it: its figures, never its signal."""
        detail = {k: result.get(k) for k in ("gesture_start", "referee_delay", "taps", "early_taps", "quiz", "words")}
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO rehearsals VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    result["rehearsal"],
                    result["team"],
                    result["signaller"],
                    result.get("spotter"),
                    int(bool(result["seen"])),
                    result.get("reaction"),
                    int(result.get("early_taps") or 0),
                    time.time(),
                    json.dumps(detail),
                ),
            )
            self._db.commit()

    def rehearsals(self, team: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, signaller, spotter, seen, reaction, early, at, detail FROM rehearsals"
                " WHERE team = ? ORDER BY at, rowid",
                (team,),
            ).fetchall()
        out = []
        for r in rows:
            detail = json.loads(r[7])
            out.append(
                {
                    "rehearsal": r[0],
                    "signaller": r[1],
                    "spotter": r[2],
                    "seen": bool(r[3]),
                    "reaction": r[4],
                    "early_taps": r[5],
                    "at": r[6],
                    "referee_delay": detail.get("referee_delay"),
                    "quiz": detail.get("quiz"),
                }
            )
        return out
