"""The `referee` console script: one click group whose subcommands live in `tablereferee.commands`."""

from __future__ import annotations

import importlib
import os
import pkgutil

# Library chatter off the user's screen, set before any command loads the libraries (each is read
# when its library loads; a value the user set wins): OpenCV's own warnings ("can't open camera by
# index") repeat what the named error says; glog and TensorFlow Lite's info lines from MediaPipe.
for _name, _value in {"OPENCV_LOG_LEVEL": "OFF", "GLOG_minloglevel": "2", "TF_CPP_MIN_LOG_LEVEL": "2"}.items():
    os.environ.setdefault(_name, _value)

import click  # noqa: E402  (after the environment above)

from tablereferee import __version__, commands  # noqa: E402


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee")
def cli() -> None:
    """A referee for physical card games: Beccato!, Beccaccino and Bestia."""


def _add_commands(group: click.Group) -> None:
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        command = getattr(module, "command", None)
        if not isinstance(command, click.Command):
            raise TypeError(f"tablereferee.commands.{info.name} must define `command`, a click.Command")
        group.add_command(command)


_add_commands(cli)


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
