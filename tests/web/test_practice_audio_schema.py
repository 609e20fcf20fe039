"""Schemathesis over the audible drills' own OpenAPI schema, in process (ASGI): whatever a
request holds (a card, a rate, a chunk's bytes), the answer is never a 5xx, and every refusal
is a named error. The drills that hear real sound have tests of their own
(tests/web/test_practice_audio_api.py)."""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, settings

from tablereferee.web.practice_audio import router
from tests.web.router_app import EXAMPLES, router_app

APP = router_app(router, "practice-audio")
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


def test_every_audible_route_is_in_the_schema():
    paths = set(APP.openapi()["paths"])
    assert {
        "/api/practice/audio-cards",
        "/api/practice/audio-drill",
        "/api/practice/audio-drill/{drill_id}/audio",
        "/api/practice/audio-drill/{drill_id}/finish",
        "/api/practice/audio-drill/table-talk.wav",
        "/api/practice/audio-history/{player}",
    } <= paths


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_audible_drill_request_gets_a_server_error(case):
    response = case.call()
    where = f"{case.method} {case.formatted_path}"
    assert response.status_code < 500, f"{where}: {response.status_code} {response.text}"
    if response.status_code >= 400:
        assert "error" in response.json(), f"{where}: {response.status_code} {response.text}"
        error = response.json()["error"]
        assert error["name"] and error["message"], f"{where}: {response.text}"
