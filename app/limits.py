"""Request limits that come from settings, declared once on the field they bound, enforced and published from there.

    question: str = Field(min_length=1, json_schema_extra=setting_limit("maxLength", "max_question_chars"))

`enforce(body, settings)` checks a parsed body against them (422 naming the limit) and `install_openapi` writes the
same numbers into the OpenAPI schema, beside the body size limit of each operation (`x-max-body-bytes`, enforced by
`BodyLimitMiddleware`), so the contract and the server cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal, cast

from fastapi import FastAPI
from pydantic import BaseModel

from graphwire.app.errors import ApiError, ErrorResponse
from graphwire.core.settings import Settings

MARKER = "x-graphwire-setting-limit"  # replaced by the setting's value in the published schema
Keyword = Literal["maxLength", "maximum"]


def setting_limit(keyword: Keyword, setting: str) -> dict[str, Any]:
    """`json_schema_extra` of a field bounded by a setting: maxLength (strings) or maximum (numbers)."""
    if setting not in Settings.model_fields:
        raise ValueError(f"no setting {setting!r}")
    return {MARKER: {keyword: setting}}


def field_limits(model: type[BaseModel]) -> Iterator[tuple[str, Keyword, str]]:
    """(field, keyword, setting) for every setting-bound field of `model`."""
    for name, info in model.model_fields.items():
        extra = info.json_schema_extra
        marker = extra.get(MARKER) if isinstance(extra, dict) else None
        if isinstance(marker, dict):
            for keyword, setting in marker.items():
                yield name, cast(Keyword, keyword), str(setting)


def enforce(body: BaseModel, settings: Settings) -> None:
    """422 when a field is over the limit its setting gives."""
    for name, keyword, setting in field_limits(type(body)):
        limit, value = getattr(settings, setting), getattr(body, name)
        if keyword == "maxLength" and len(value) > limit:
            message = f"{name} is {len(value)} characters; the limit is {limit} ({setting.upper()})"
            raise ApiError(422, "validation_error", message)
        if keyword == "maximum" and value > limit:
            raise ApiError(422, "validation_error", f"{name} is {value}; the limit is {limit} ({setting.upper()})")


def publish(schema: dict[str, Any], settings: Settings, body_limit: Callable[[str], int]) -> dict[str, Any]:
    """Put the settings' values where the models carry the marker, and each body limit on its operation."""
    for component in schema.get("components", {}).get("schemas", {}).values():
        for prop in component.get("properties", {}).values():
            for keyword, setting in (prop.pop(MARKER, None) or {}).items():
                prop[keyword] = getattr(settings, setting)
    too_large = {"description": "The body is over `x-max-body-bytes`.", "content": _error_content(schema)}
    for path, operations in schema.get("paths", {}).items():
        for operation in operations.values():
            if isinstance(operation, dict) and "requestBody" in operation:
                operation["x-max-body-bytes"] = body_limit(path)
                operation.setdefault("responses", {}).setdefault("413", too_large)
    return schema


def _error_content(schema: dict[str, Any]) -> dict[str, Any]:
    name = ErrorResponse.__name__
    if name in schema.get("components", {}).get("schemas", {}):
        return {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}}
    return {}


def install_openapi(app: FastAPI, settings: Settings, body_limit: Callable[[str], int]) -> None:
    """The app's /openapi.json carries the limits this server enforces (generated once, on first request)."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = publish(generate(), settings, body_limit)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
