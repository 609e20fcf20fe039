"""Schemathesis over the application's own OpenAPI schema, in process (ASGI): whatever a
request holds, the answer is never a 5xx, and every refusal is a named error.

A bounded number of examples per operation keeps it a fast test (< 30 s); run it with more
by setting WEB_FUZZ_EXAMPLES.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings

from referee.scorekeeper import Scorekeeper
from tablereferee.web import TableHub, create_app
from tablereferee.web.auth import Tokens
from tests.web.conftest import CODE, EGGS, PINS, SETUP

EXAMPLES = int(os.environ.get("WEB_FUZZ_EXAMPLES", "12"))
_folder = Path(tempfile.mkdtemp(prefix="web-fuzz-"))
_keeper = Scorekeeper.start("beccato", SETUP, _folder / "fuzz.db", time=1.0)
for _line in EGGS:
    _keeper.submit(_line, time=1.0)
HUB = TableHub(_keeper, tokens=Tokens(code=CODE, pins=PINS))
APP = create_app(HUB, sessions_dir=_folder)
TOKENS = {"public": None, "player": HUB.join(CODE, "Anna").token, "scorer": HUB.tokens.scorer_token}

# The New-table page's camera routes open webcams and files, the review page's question and the
# practice page's drills, Free Signal and calibration run the landmark models: they have tests
# (and fuzzing: tests/web/test_practice_schema.py) of their own.
schema = schemathesis.openapi.from_asgi("/openapi.json", APP).exclude(
    path_regex="^/api/(setup/cameras|review/|practice/)"
)


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_no_request_gets_a_server_error(case):
    for role, token in TOKENS.items():
        headers = dict(case.headers or {})
        headers.pop("Authorization", None)
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        response = case.call(headers=headers)
        where = f"{role}: {case.method} {case.formatted_path}"
        assert response.status_code < 500, f"{where}: {response.status_code} {response.text}"
        if response.status_code >= 400:
            error = response.json()["error"]
            assert error["name"] and error["message"], f"{where}: {response.text}"
