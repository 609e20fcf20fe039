"""What `referee play` says: the referee's words (`referee.voice`) for every accepted line, a
refusal by its rule with what was probably meant, and a prompt that names the command."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from referee.sessionlog import EXIT_OK
from tablereferee.cli import cli

GAMES = Path(__file__).resolve().parents[2] / "datasets" / "games"
SIX = "Nicola,Simona,Claudia,Federico,Cecilia,Mariano"
TEAMS = "Reds=Nicola,Claudia,Cecilia;Blues=Simona,Federico,Mariano"
DUMP = re.compile(r"\w\((\w+=)|\{|\w=\w")  # kind(key=...), {...}, key=value


def play(*args: str, input: str | None = None) -> str:
    result = CliRunner().invoke(cli, ["play", *args], input=input, catch_exceptions=False)
    assert result.exit_code in (EXIT_OK, 1), result.output
    return result.output


def test_a_beccato_game_reads_as_sentences(tmp_path: Path) -> None:
    out = play("beccato", "--script", str(GAMES / "example.beccato"), "--log", str(tmp_path / "g.db"))
    assert "  Nicola calls Coccodé: Claudia and Cecilia show their hands." in out
    assert "  Claudia shows three Orloff." in out
    assert "  Nicola's Coccodé is right (three Orloff): Reds win an egg." in out
    assert "  Reds take egg star-3 from the Orloff henhouse." in out
    assert "  Simona passes a card to Claudia (face down)." in out
    assert "call_resolved" not in out and not DUMP.search(out), DUMP.search(out)


def test_the_trick_games_read_as_sentences(tmp_path: Path) -> None:
    out = play("bestia", "--script", str(GAMES / "example.bestia"), "--log", str(tmp_path / "b.db"))
    assert "  Deal 1 is settled: Anna wins 6 chips, Ben 3; Carla is in bestia; Carla pays 9 chips" in out
    assert "next: " in out and "to play a card to trick" in out and "`play " in out  # the prompt's command
    assert "won {" not in out and not DUMP.search(out), DUMP.search(out)
    out = play("beccaccino", "--script", str(GAMES / "example.beccaccino"), "--log", str(tmp_path / "c.db"))
    assert "  Dan shows the Marafona (3 di spade, 2 di spade and Asso di spade): +3 for Ben & Dan." in out
    assert "  Foul by Anna: the battezzante's partner looked before the declaration." in out
    assert not DUMP.search(out), DUMP.search(out)


def test_a_misspelt_line_gets_did_you_mean_and_the_prompt_names_the_command(tmp_path: Path) -> None:
    lines = [
        "egg star3",
        "egg star-3",
        "egg dollar-1",
        "egg moon-2",
        "egg sun-5",
        "egg dollar-6",
        "cocode Nicola",
        "coccode Nicla",
        "caught Simona Cecilia",
        "reveal Cecilia padovana padovana padovan",
        "take Blus deck",
        "take Blues dek",
        "pass Nicola orlof",
    ]
    out = play("beccato", "--players", SIX, "--teams", TEAMS, "--log", str(tmp_path / "g.db"), input="\n".join(lines))
    assert "rejected: EggNotInDeck: No egg 'star3'; did you mean star-3? The eggs are dollar-1 to dollar-7" in out
    assert "rejected: MalformedAction: Unknown command 'cocode'; did you mean coccode?\n" in out
    assert "  Type 'help' for the commands." in out
    assert "rejected: CallerNotInGame: 'Nicla' is not playing; did you mean Nicola?" in out
    assert "rejected: TeamNotInGame: No team 'Blus'; did you mean Blues?" in out
    assert "rejected: EggSourceNotAllowed: 'dek' is not offered; did you mean deck?" in out
    # the choice is prompted with the command that makes it, not "choose an egg" alone
    assert "waiting for: Blues to choose an egg from a henhouse (Orloff, Padovana, " in out
    assert "`take Blues SOURCE`, SOURCE one of orloff, padovana, brahma, cocincina, livornese or deck" in out
    assert "rejected: CallInProgress: A pass waits until Simona's Caught! is resolved" in out
