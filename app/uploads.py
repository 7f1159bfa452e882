"""The body of POST /v1/documents, read within the size limits and turned into the records the CLI's loader reads;
`records_upload` holds the records the MCP tool `add_documents` received to the same limits.

Three forms: `application/json` `{"documents": [record, ...]}` (or a bare list, as corpus.json files are) or
`{"urls": [url, ...]}` (each fetched and read, app/document_files.py), `application/x-ndjson` (one record per line;
a line that is not JSON is a failure at its position), and `multipart/form-data` with one field `file` holding a
.json or .jsonl file, or one document (PDF, DOCX, HTML, text, Markdown), recognised by its content, and optionally a
field `access` (comma-separated group and principal names) for the records that carry no list of their own.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from graphwire.app.errors import ApiError
from graphwire.app.jobs.models import JobFailure
from graphwire.core.access import AccessError, validate_access
from graphwire.ingest.formats.base import LoadOptions
from graphwire.ingest.formats.dispatch import sniff

JSON_TYPES = ("application/json",)
JSONL_TYPES = ("application/x-ndjson", "application/jsonl", "application/x-jsonlines")
LIST_KEYS = ("documents", "articles", "data")  # the wrappers the CLI's loader accepts too


@dataclass(frozen=True)
class Upload:
    """The posted records that were JSON, each with its position, and the positions that were not."""

    records: list[Any]
    positions: list[int]
    failures: list[JobFailure]

    @property
    def count(self) -> int:
        return len(self.records) + len(self.failures)


async def read_upload(
    request: Request, max_bytes: int, max_documents: int, options: LoadOptions | None = None
) -> Upload:
    """The posted records; `options` (LoadOptions.from_settings) bounds the documents and URLs the loader reads."""
    options = options or LoadOptions()
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    body = await _read_limited(request, max_bytes)
    if media_type in JSON_TYPES:
        urls = _urls(body)
        if urls is not None:
            from graphwire.app.document_files import urls_upload

            _within_count(Upload(records=urls, positions=[], failures=[]), max_documents)  # before fetching any
            upload = await run_in_threadpool(urls_upload, urls, options)
        else:
            upload = _json(body)
    elif media_type in JSONL_TYPES:
        upload = _jsonl(body)
    elif media_type == "multipart/form-data":
        upload = await _multipart(request, body, options)
    else:
        raise ApiError(
            415, "unsupported_media_type",
            f"Content-Type {media_type or '(none)'!r} is not accepted; send application/json, "
            "application/x-ndjson or multipart/form-data with a .json/.jsonl file or a document in the field 'file'",
        )  # fmt: skip
    return _within_count(upload, max_documents)


def records_upload(records: list[Any], max_bytes: int, max_documents: int) -> Upload:
    """Records received already parsed (the MCP tool `add_documents`), held to the limits of a posted body: at most
    `max_bytes` as JSON (UPLOAD_MAX_BYTES) and `max_documents` records (UPLOAD_MAX_DOCUMENTS)."""
    size = len(json.dumps(records, ensure_ascii=False).encode("utf-8"))
    if size > max_bytes:
        raise _too_large(max_bytes)
    return _within_count(Upload(records=records, positions=list(range(len(records))), failures=[]), max_documents)


def _within_count(upload: Upload, max_documents: int) -> Upload:
    if upload.count == 0:
        raise ApiError(422, "validation_error", "the body holds no documents")
    if upload.count > max_documents:
        raise ApiError(413, "payload_too_large", f"{upload.count} documents; the limit is {max_documents} per request")
    return upload


async def _read_limited(request: Request, max_bytes: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise _too_large(max_bytes)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise _too_large(max_bytes)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(max_bytes: int) -> ApiError:
    return ApiError(413, "payload_too_large", f"the body is larger than {max_bytes} bytes (UPLOAD_MAX_BYTES)")


def _text(body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(422, "validation_error", f"the body is not UTF-8: {exc.reason} at byte {exc.start}") from exc


MAX_INTEGER_DIGITS = 40  # a record's numbers are dates or counts; Python refuses past 4,300 digits with a ValueError


def _integer(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise ValueError(f"an integer of {digits} digits (at most {MAX_INTEGER_DIGITS})")
    return int(text)


def _loads(text: str) -> Any:
    """json.loads that fails only with ValueError and a reason: bad JSON, too deep a nesting, too long a number."""
    try:
        return json.loads(text, parse_int=_integer)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from exc
    except RecursionError as exc:
        raise ValueError("invalid JSON: nested too deeply") from exc


def _json(body: bytes) -> Upload:
    try:
        data = _loads(_text(body))
    except ValueError as exc:
        raise ApiError(422, "validation_error", str(exc)) from exc
    if isinstance(data, dict):
        data = next((data[k] for k in LIST_KEYS if isinstance(data.get(k), list)), None)
    if not isinstance(data, list):
        raise ApiError(422, "validation_error", 'expected {"documents": [record, ...]} or a JSON list of records')
    return Upload(records=data, positions=list(range(len(data))), failures=[])


def _urls(body: bytes) -> list[Any] | None:
    """The list of `{"urls": [...]}`, or None when the body is not that form (then it is read as records)."""
    try:
        data = _loads(_text(body))
    except ValueError:
        return None
    if isinstance(data, dict) and "urls" in data and not any(k in data for k in LIST_KEYS):
        if not isinstance(data["urls"], list):
            raise ApiError(422, "validation_error", '"urls" must be a list of http(s) URLs')
        return list(data["urls"])
    return None


def _jsonl(body: bytes) -> Upload:
    records, positions, failures = [], [], []
    lines = [line for line in _text(body).splitlines() if line.strip()]
    for position, line in enumerate(lines):
        try:
            records.append(_loads(line))
            positions.append(position)
        except ValueError as exc:
            failures.append(JobFailure(position=position, reason=str(exc)))
    return Upload(records=records, positions=positions, failures=failures)


async def _multipart(request: Request, body: bytes, options: LoadOptions) -> Upload:
    async def once() -> AsyncGenerator[bytes, None]:
        yield body

    try:
        form = await MultiPartParser(request.headers, once(), max_files=1, max_fields=10).parse()
    except MultiPartException as exc:
        raise ApiError(422, "validation_error", f"invalid multipart body: {exc.message}") from exc
    file = form.get("file")
    if not isinstance(file, UploadFile):
        raise ApiError(422, "validation_error", "multipart/form-data needs the file in a field named 'file'")
    access = _form_access(form.get("access"))
    content = await file.read()
    kind = sniff(content, file.filename or "")
    if kind == "jsonl":
        return _with_access(_jsonl(content), access)
    if kind == "json":
        return _with_access(_json(content), access)
    if kind is not None:
        from graphwire.app.document_files import file_upload

        upload = await run_in_threadpool(file_upload, file.filename or "document", content, options)
        return _with_access(upload, access)
    raise ApiError(
        422, "validation_error",
        f"file {file.filename!r}: expected a .json or .jsonl file, or a PDF, DOCX, HTML, text or Markdown document",
    )  # fmt: skip


def _form_access(value: object) -> list[str] | None:
    """The form's `access` field (comma-separated group and principal names), checked: a bad one is a 422."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ApiError(422, "validation_error", "access: expected comma-separated names, not a file")
    try:
        return validate_access([name.strip() for name in value.split(",") if name.strip()])
    except AccessError as exc:
        raise ApiError(422, "validation_error", f"access: {exc}") from exc


def _with_access(upload: Upload, access: list[str] | None) -> Upload:
    """The form's access list on every record that does not carry its own."""
    if access is not None:
        for record in upload.records:
            if isinstance(record, dict) and "access" not in record:
                record["access"] = access
    return upload
