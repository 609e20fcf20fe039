"""Schemathesis over the practice router's own OpenAPI schema, in process (ASGI): whatever a
request holds, the answer is never a 5xx, and every refusal is a named error. The routes that
run the landmark models on uploaded frames or open a camera have tests of their own
(tests/web/test_practice_api.py)."""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, settings

from tablereferee.web.practice import router
from tests.web.router_app import EXAMPLES, router_app

APP = router_app(router, "practice")
schema = schemathesis.openapi.from_asgi("/openapi.json", APP).exclude(
    path_regex="^/api/practice/(drill/.*/camera|free-signal|calibration)"
)


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_practice_request_gets_a_server_error(case):
    response = case.call()
    where = f"{case.method} {case.formatted_path}"
    assert response.status_code < 500, f"{where}: {response.status_code} {response.text}"
    if response.status_code >= 400:
        assert "error" in response.json(), f"{where}: {response.status_code} {response.text}"
        error = response.json()["error"]
        assert error["name"] and error["message"], f"{where}: {response.text}"
