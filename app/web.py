"""What the API serves to browsers, all from files in the package (works offline): the web UI at /ui, Swagger UI at
/docs and ReDoc at /redoc, their JavaScript vendored from npm under app/ui/vendor/ (see tools/vendor_ui.py)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

UI_DIR = Path(__file__).resolve().parent / "ui"
UI_PATH = "/ui"
VENDOR_URL = f"{UI_PATH}/vendor"
FAVICON_URL = f"{UI_PATH}/favicon.svg"


class UiConfig(BaseModel):
    api_key_required: bool = Field(description="The /v1 routes want an X-API-Key header (API_KEY is set).")
    workspace: str = Field(description="The server's workspace: what the page shows until another is chosen.")


def install_web(app: FastAPI, *, api_key_required: bool, workspace: str) -> None:
    """Add /ui (the single-page UI and its config), /docs and /redoc to `app`; none of them is in the OpenAPI schema.

    Build the app with `docs_url=None, redoc_url=None` so these replace FastAPI's CDN-backed pages."""
    config = UiConfig(api_key_required=api_key_required, workspace=workspace)
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get(UI_PATH, include_in_schema=False)
    def ui_root() -> RedirectResponse:
        return RedirectResponse(f"{UI_PATH}/")

    @app.get(f"{UI_PATH}/config.json", include_in_schema=False)
    def ui_config() -> UiConfig:
        return config

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} - Swagger UI",
            oauth2_redirect_url="/docs/oauth2-redirect",
            swagger_js_url=f"{VENDOR_URL}/swagger-ui-dist/swagger-ui-bundle.js",
            swagger_css_url=f"{VENDOR_URL}/swagger-ui-dist/swagger-ui.css",
            swagger_favicon_url=FAVICON_URL,
            swagger_ui_parameters={"validatorUrl": None},  # the validator badge is an image from validator.swagger.io
        )

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=openapi_url,
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{VENDOR_URL}/redoc/redoc.standalone.js",
            redoc_favicon_url=FAVICON_URL,
            with_google_fonts=False,
        )

    app.mount(UI_PATH, StaticFiles(directory=UI_DIR, html=True), name="ui")
