"""Run the `referee` console script with the toy game registered (for subprocess tests)."""

from referee.core import ENGINE_MODULES

ENGINE_MODULES["toy"] = "sessionlog.toy_engine"

from tablereferee.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
