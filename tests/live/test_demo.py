"""End to end on the bundled demo session: it referees to the composition's ground truth, a
replay (perception run again) gives the same log, a replay reusing the stored observations
too, and a dispute package can be cut from it."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.sessionlog import read_log, replay
from tablereferee.cli import cli
from tablereferee.recording.folder import SessionFolder, read_segments

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "datasets" / "demo"


@pytest.fixture(scope="module")
def demo_session(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "session"
    result = CliRunner().invoke(cli, ["demo", "--out", str(out), "--no-clip", "--threads", "1"])
    return out, result


def test_the_demo_referees_to_the_expected_game(demo_session):
    out, result = demo_session
    assert result.exit_code == 0, result.output
    assert "result: as expected" in result.output
    expected = json.loads((DEMO / "expected.json").read_text())
    contents = read_log(out / "log.db")
    actions = [{"source": e.source, **e.payload["action"]} for e in contents.entries if e.kind == "action"]
    assert actions == expected["actions"]
    state = replay(contents).state
    assert state.scores() == expected["scores"]
    assert state.scores()["dollar"]["eggs"] == 2 and state.scores()["star"]["eggs"] == 0
    # Everything on one clock: signals (the raised fist, the hum) and the lost camera are logged.
    observed = [e.payload for e in contents.entries if e.kind == "observation"]
    signals = {(p["player"], p["signal"]) for p in observed if p["type"] == "signal"}
    assert ("Bruno", "raise_hand_right") in signals and ("unknown", "hum") in signals
    assert any(p["type"] == "camera" and p["camera"] == "people" and not p["ok"] for p in observed)


def test_the_session_folder_holds_what_a_replay_needs(demo_session):
    out, _ = demo_session
    folder = SessionFolder.open(out)
    m = folder.manifest
    assert m["game"] == "beccato" and m["zones"] and m["calibration"]["seats"][0]["name"] == "Bruno"
    assert m["models"]["cards:cards"]["deck"] == "beccato" and "sha256" in m["models"]["audio"]["classifier"]
    assert m["versions"]["python"]
    assert [t for t, _ in folder.inputs()] == [4.0, 8.0]
    assert folder.audio_path.is_file()
    assert len(list(read_segments(folder.camera_dir("cards")))) == 140


def test_a_replay_gives_the_same_log(demo_session, tmp_path):
    out, _ = demo_session
    result = CliRunner().invoke(cli, ["replay", str(out), "--out", str(tmp_path / "r"), "--json", "--threads", "1"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["comparison"]["same_log"], report["comparison"]["first_difference"]
    a, b = read_log(out / "log.db"), read_log(tmp_path / "r" / "log.db")
    assert [e.checksum for e in a.entries] == [e.checksum for e in b.entries]


def test_a_replay_reusing_the_stored_observations_gives_the_same_log(demo_session, tmp_path):
    out, _ = demo_session
    result = CliRunner().invoke(cli, ["replay", str(out), "--reuse", "--out", str(tmp_path / "r"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "same log" in result.output


def test_a_dispute_package_for_the_reveal(demo_session, tmp_path):
    out, _ = demo_session
    reveal = next(
        e for e in read_log(out / "log.db").entries if e.kind == "action" and e.payload["action"]["kind"] == "reveal"
    )
    dest = tmp_path / "dispute"
    result = CliRunner().invoke(
        cli,
        [
            "clip",
            str(out),
            "--event",
            str(reveal.seq),
            "--out",
            str(dest),
            "--before",
            "1",
            "--after",
            "1",
            "--no-landmarks",
        ],
    )
    assert result.exit_code == 0, result.output
    package = json.loads((dest / "package.json").read_text())
    assert package["reasoning"][0]["rule"] == "reveal" and package["reasoning"][0]["confidence"] > 0.8
    assert package["evidence_entries"] and package["models"]["cards:cards"]
    frames = list(read_segments_of(dest / "clip.mp4"))
    assert len(frames) == package["clip_frames"] >= 15
    assert "rule `reveal`" in (dest / "reasoning.md").read_text()
    assert any(json.loads(line)["seq"] == reveal.seq for line in (dest / "excerpt.jsonl").read_text().splitlines())


def read_segments_of(path: Path):
    import av

    with av.open(str(path)) as c:
        yield from c.decode(video=0)


def test_clip_of_a_missing_entry_is_a_named_error(demo_session):
    out, _ = demo_session
    result = CliRunner().invoke(cli, ["clip", str(out), "--event", "999"])
    assert result.exit_code == 3 and "NoSuchEvent" in result.output


def test_replay_of_a_folder_that_is_no_session_is_a_named_error(tmp_path):
    result = CliRunner().invoke(cli, ["replay", str(tmp_path)])
    assert result.exit_code == 3 and "SessionFolderError" in result.output


def _reveal_entry(folder: Path):
    entries = read_log(folder / "log.db").entries
    return next(e for e in entries if e.kind == "action" and e.payload["action"]["kind"] == "reveal")


def _reveal(folder: Path) -> int:
    return _reveal_entry(folder).seq


def _window(output: str) -> tuple[float, str]:
    """The disputed moment a clip's output names (seconds into the session) and its window
    (--before 1 --after 1) as the gap lines print it."""
    found = re.search(r"clip\.mp4 \(\d+ frames, ([\d.]+)-([\d.]+) s", output)
    assert found, output
    start, end = float(found[1]), float(found[2])
    return (start + end) / 2, f"from {start:.1f} s to {end:.1f} s"


def _clip(folder: Path, *args: str):
    return CliRunner().invoke(cli, ["clip", str(folder), "--before", "1", "--after", "1", "--no-landmarks", *args])


@pytest.fixture
def session_copy(demo_session, tmp_path):
    out, _ = demo_session
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    return copy


def test_a_dispute_whose_moment_is_not_in_the_video_says_so_and_fails(session_copy, tmp_path):
    (session_copy / "cameras" / "cards" / "seg_000000000.mp4").unlink()  # 0-10 s: the reveal at about 5 s
    dest = tmp_path / "dispute"
    result = _clip(session_copy, "--event", str(_reveal(session_copy)), "--out", str(dest))
    assert result.exit_code == 1, result.output
    moment, window = _window(result.output)
    assert 1.0 < moment < 9.0  # the window lies inside the removed segment
    assert f"error: MomentNotInVideo: The disputed moment ({moment:.2f} s) is not in the video" in result.output
    assert f"gap: camera cards: no video {window} (no segment file covers it)" in result.output
    package = json.loads((dest / "package.json").read_text())
    assert package["moment_in_video"] is False and package["clip_frames"] == 0
    assert package["video_gaps"][0]["camera"] == "cards"
    assert "is not in the video" in (dest / "reasoning.md").read_text()


def test_a_clip_names_a_damaged_segment_in_its_window(session_copy, tmp_path):
    seg = session_copy / "cameras" / "people" / "seg_000000000.mp4"
    seg.write_bytes(seg.read_bytes()[:1000])
    dest = tmp_path / "dispute"
    result = _clip(session_copy, "--event", str(_reveal(session_copy)), "--out", str(dest))
    assert result.exit_code == 0, result.output  # the card camera shows the moment
    assert f"gap: camera people: no video {_window(result.output)[1]} (seg_000000000.mp4 is unreadable" in result.output
    assert "seg_000000000.mp4 is unreadable" in (dest / "reasoning.md").read_text()


def test_a_package_is_not_overwritten_without_force(session_copy, tmp_path):
    dest = tmp_path / "dispute"
    event = str(_reveal(session_copy))
    assert _clip(session_copy, "--event", event, "--out", str(dest)).exit_code == 0
    (dest / "note.txt").write_text("the players' own notes")
    again = _clip(session_copy, "--event", event, "--out", str(dest))
    assert again.exit_code == 2 and "error: PackageExists: " in again.output
    assert (dest / "note.txt").is_file()  # untouched
    forced = _clip(session_copy, "--event", event, "--out", str(dest), "--force")
    assert forced.exit_code == 0, forced.output
    assert not (dest / "note.txt").exists() and (dest / "package.json").is_file()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize(("before", "after"), [("-5", "-5"), ("0", "0"), ("nan", "1"), ("1", "-0.5")])
def test_a_clip_window_that_holds_no_time_is_refused(session_copy, tmp_path, before, after):
    dest = tmp_path / "dispute"
    result = CliRunner().invoke(
        cli, ["clip", str(session_copy), "--event", "3", "--before", before, "--after", after, "--out", str(dest)]
    )
    assert result.exit_code == 2 and "error: BadWindow: " in result.output
    assert not dest.exists()


def test_a_package_that_fails_half_way_leaves_nothing(session_copy, tmp_path, monkeypatch):
    from tablereferee.recording import clip

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(clip, "_render_clip", broken)
    with pytest.raises(OSError):
        clip.make_dispute(session_copy, _reveal(session_copy), 1, 1, tmp_path / "dispute", draw_landmarks=False)
    assert list(tmp_path.iterdir()) == [session_copy]


KILL_WHILE_WRITING = """
import os, signal, sys
from tablereferee.recording import clip
render = clip._render_clip
def render_then_die(*args, **kwargs):
    render(*args, **kwargs)  # clip.mp4 and excerpt.jsonl written, package.json not yet
    os.kill(os.getpid(), signal.SIGKILL)
clip._render_clip = render_then_die
clip.make_dispute(sys.argv[1], int(sys.argv[2]), 1, 1, sys.argv[3], draw_landmarks=False)
"""


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_a_package_writer_killed_half_way_leaves_no_half_package(session_copy, tmp_path):
    dest = tmp_path / "disputes" / "entry-14"
    event = _reveal(session_copy)
    proc = subprocess.run(
        [sys.executable, "-c", KILL_WHILE_WRITING, str(session_copy), str(event), str(dest)], cwd=ROOT, timeout=120
    )
    assert proc.returncode == -signal.SIGKILL
    assert not dest.exists()  # before: a folder with clip.mp4 and no package.json
    [partial] = list(dest.parent.iterdir())
    assert partial.name.startswith(".entry-14.partial-") and (partial / "clip.mp4").is_file()
    assert _clip(session_copy, "--event", str(event), "--out", str(dest)).exit_code == 0
    assert sorted(p.name for p in dest.parent.iterdir()) == ["entry-14"]  # the leftover is cleared
    assert sorted(p.name for p in dest.iterdir()) == [
        "clip.mp4",
        "excerpt.jsonl",
        "package.json",
        "reasoning.md",
        "report.html",
    ]


def test_a_replay_names_the_gaps_in_the_video(session_copy, tmp_path):
    (session_copy / "cameras" / "cards" / "seg_000010000.mp4").unlink()
    result = CliRunner().invoke(cli, ["replay", str(session_copy), "--out", str(tmp_path / "r"), "--threads", "1"])
    assert "gap: camera cards: no video from 9.9 s to 14.0 s (the video ends)" in result.output
    assert "gap: camera people: no video from 7.8 s to 14.0 s (the video ends)" in result.output


def test_the_run_keeps_what_perception_saw_and_a_clip_draws_it_without_any_model(demo_session, tmp_path, monkeypatch):
    from tablereferee.recording import clip, tracks

    out, _ = demo_session
    cards = tracks.read_cards(out, "cards")
    people = tracks.read_landmarks(out, "people")
    assert (
        cards is not None and cards.problem is None and len(cards.frames) >= 60
    )  # the card stage reads 5 frames a second
    assert people is not None and people.problem is None and people.frames
    assert any(c["card"] == "chicken:orloff" for f in cards.frames for c in f["cards"])
    assert any(f.person("Bruno") is not None for f in people.frames)

    def no_model(*args, **kwargs):
        raise AssertionError("a clip of a session with stored tracks runs no model")

    monkeypatch.setattr(clip, "CardStage", no_model)
    monkeypatch.setattr("vision.landmarks.extract.LandmarkExtractor", no_model)
    package = clip.make_dispute(out, _reveal(out), 1, 1, tmp_path / "dispute")
    assert package["clip_frames"] >= 15
    assert package["drawn_from"] == {"the cards": "as the run read them", "the landmarks": "as the run found them"}
    assert "Drawn on it: the cards as the run read them" in (tmp_path / "dispute" / "reasoning.md").read_text()


def test_a_track_cut_by_a_killed_run_keeps_the_frames_before_the_cut(demo_session, tmp_path):
    from tablereferee.recording import tracks

    out, _ = demo_session
    whole = tracks.read_landmarks(out, "people")
    copy = tmp_path / "cut"
    (copy / "tracks" / "people").mkdir(parents=True)
    (copy / "tracks" / "cards").mkdir(parents=True)
    data = (out / "tracks" / "people" / tracks.LANDMARKS_FILE).read_bytes()
    (copy / "tracks" / "people" / tracks.LANDMARKS_FILE).write_bytes(data[: len(data) // 2])
    lines = (out / "tracks" / "cards" / tracks.CARDS_FILE).read_bytes()
    (copy / "tracks" / "cards" / tracks.CARDS_FILE).write_bytes(lines[: len(lines) // 2])
    cut = tracks.read_landmarks(copy, "people")
    assert cut is not None and 0 < len(cut.frames) < len(whole.frames)
    assert cut.problem and "frames kept" in cut.problem
    assert [f.t for f in cut.frames] == [f.t for f in whole.frames[: len(cut.frames)]]
    cards = tracks.read_cards(copy, "cards")
    assert cards is not None and cards.problem and "line" in cards.problem and cards.frames


def _ask(folder: Path, *args: str):
    return CliRunner().invoke(cli, ["ask", str(folder), "--player", "Bruno", *args])


def test_asked_whether_bruno_raised_his_right_hand_the_answer_points_at_the_raise(demo_session, tmp_path):
    out, _ = demo_session
    result = _ask(out, "--signal", "raise_hand_right", "--from", "0", "--to", "4", "--out", str(tmp_path / "q"))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] in ("yes", "unsure")  # the raised fist of the clip, at about 1.5-2.2 s
    answer = json.loads((tmp_path / "q" / "answer.json").read_text())
    assert answer["events"] and all(1.3 <= e["start"] and e["end"] <= 2.5 for e in answer["events"])
    assert 1.5 <= answer["closest"]["t"] <= 2.3
    assert "as the run found them" in result.output
    import cv2

    picture = cv2.imread(str(tmp_path / "q" / "closest.png"))
    assert picture is not None and picture.shape[1] >= 1280
    assert cv2.imread(str(tmp_path / "q" / "measure.png")) is not None


@pytest.mark.parametrize("signal", ["touch_nose_left", "touch_nose_right"])
def test_asked_whether_bruno_touched_his_nose_the_answer_is_no(demo_session, tmp_path, signal):
    out, _ = demo_session
    result = _ask(out, "--signal", signal, "--from", "0", "--to", "8", "--out", str(tmp_path / "q"))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "no"
    assert "nose, in contact radii: nearest the cue" in result.output


def test_a_question_about_an_unknown_signal_or_an_empty_window_is_refused_by_name(demo_session):
    out, _ = demo_session
    result = _ask(out, "--signal", "raise_hand_rigth", "--from", "0", "--to", "4")
    assert result.exit_code == 2
    assert "UnknownSignal" in result.output and "did you mean raise_hand_right?" in result.output
    result = _ask(out, "--signal", "wink_left", "--from", "5", "--to", "4")
    assert result.exit_code == 2 and "holds no time" in result.output
    result = _ask(out, "--signal", "wink_left", "--from", "50", "--to", "54")
    assert result.exit_code == 3 and "NothingSeen" in result.output


def test_a_session_whose_run_kept_no_landmarks_has_them_found_again(session_copy, tmp_path):
    shutil.rmtree(session_copy / "tracks")
    result = _ask(
        session_copy, "--signal", "raise_hand_right", "--from", "0", "--to", "4", "--out", str(tmp_path / "q")
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] in ("yes", "unsure")  # progress goes to stderr
    assert "found again from the video" in result.stdout
    done = re.findall(r"from the video: (\d+) of (\d+) frames", result.stderr)
    assert done and done[-1][0] == done[-1][1]  # progress shown, to the last frame


def test_the_events_of_a_session_are_listed_with_their_times_and_a_clip_cut_by_time(session_copy, tmp_path):
    listed = CliRunner().invoke(cli, ["clip", str(session_copy), "--list"])
    assert listed.exit_code == 0, listed.output
    rows = [line for line in listed.stdout.splitlines() if line.startswith("#")]
    reveal = _reveal(session_copy)
    row = next(r for r in rows if r.startswith(f"#{reveal} "))
    seconds = float(row.split()[1])
    assert 4.5 <= seconds <= 5.5 and "Carla shows three Orloff" in row
    assert not any("cards in" in r for r in rows)  # the zones' card reads are not events
    result = CliRunner().invoke(
        cli,
        [
            "clip",
            str(session_copy),
            "--time",
            str(seconds + 0.1),
            "--before",
            "1",
            "--after",
            "1",
            "--no-landmarks",
            "--out",
            str(tmp_path / "t"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert f"the event nearest {seconds + 0.1:g} s is entry {reveal}" in result.stdout
    assert json.loads((tmp_path / "t" / "package.json").read_text())["entry"]["seq"] == reveal


def test_a_clip_needs_one_moment(session_copy):
    for args in ([], ["--event", "3", "--time", "4"]):
        result = CliRunner().invoke(cli, ["clip", str(session_copy), *args])
        assert result.exit_code == 2 and "--event N or --time T" in result.output


def test_a_dispute_package_has_a_report_that_stands_alone(demo_session, tmp_path):
    out, _ = demo_session
    reveal = _reveal(out)
    result = _clip(out, "--event", str(reveal), "--out", str(tmp_path / "d"))
    assert result.exit_code == 0, result.output
    page = (tmp_path / "d" / "report.html").read_text()
    assert "Carla shows three Orloff and one Brahma." in page  # the verdict in words
    assert "the Dollars win an egg" in page
    assert page.count("data:image/jpeg;base64,") >= 3  # key frames and each crop beside its template
    assert "left: the crop, right: its template" in page
    assert 'src="http' not in page and "<script" not in page  # nothing fetched, nothing run
    segments = sorted((out / "cameras" / "cards").glob("seg_*.mp4"))
    from tablereferee.recording.folder import sha256_of

    assert sha256_of(segments[0]) in page


def test_a_signal_dispute_shows_the_accused_players_camera_large_at_its_own_rate(demo_session, tmp_path):
    out, _ = demo_session
    signal = next(
        e.seq
        for e in read_log(out / "log.db").entries
        if e.kind == "observation" and e.payload.get("signal") == "raise_hand_right"
    )
    result = CliRunner().invoke(
        cli, ["clip", str(out), "--event", str(signal), "--before", "1", "--after", "1", "--out", str(tmp_path / "s")]
    )
    assert result.exit_code == 0, result.output
    package = json.loads((tmp_path / "s" / "package.json").read_text())
    assert package["clip_camera"] == "people" and package["card_camera"] == "cards"
    frames = list(read_segments_of(tmp_path / "s" / "clip.mp4"))
    assert frames[0].width >= 1280
    step = (frames[-1].time - frames[0].time) / (len(frames) - 1)
    assert abs(step - 0.08) < 0.01  # the people camera's 12.5 frames a second, not the card camera's 10
    page = (tmp_path / "s" / "report.html").read_text()
    assert "data:image/png;base64," in page  # the measure's plot
