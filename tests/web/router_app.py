"""One router of the web application served alone, for Schemathesis to fuzz in process (ASGI):
the framework's own refusals answered as the table's application answers them
(tablereferee/web/app.py), and the practice store in a fresh temporary folder."""

from __future__ import annotations

import os
import tempfile

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

EXAMPLES = int(os.environ.get("WEB_FUZZ_EXAMPLES", "10"))


def router_app(router: APIRouter, name: str) -> FastAPI:
    """An application of `router` alone, its practice store in a temporary folder named after `name`."""
    app = FastAPI()
    app.include_router(router)

    @app.exception_handler(StarletteHTTPException)
    async def _named(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        error = "MethodNotAllowed" if exc.status_code == 405 else "NotFound"
        return JSONResponse(
            {"error": {"name": error, "message": f"{request.method} {request.url.path}: {exc.detail}"}},
            exc.status_code,
        )

    app.state.practice_dir = tempfile.mkdtemp(prefix=f"{name}-fuzz-")
    return app
