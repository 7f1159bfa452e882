"""URLs to ingest, fetched with httpx: timeouts, a size limit read as the body streams, a bounded number of
redirects followed one at a time, the content type checked, and an address guard on every hop. A conditional GET
(the ETag and Last-Modified of an earlier answer, for feeds polled on a schedule) may be answered 304: not modified.

The guard (SSRF): a host's every resolved address must be public; loopback, private, link-local, multicast,
reserved and unspecified addresses are refused. FETCH_ALLOWED_HOSTS, when set, is the only hosts fetched, and they
may resolve anywhere (an intranet wiki). The check resolves the name just before the request; a DNS answer that
changes in between (rebinding) is not caught: run ingestion where internal services need credentials.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

from graphwire.ingest.formats.base import DocumentError, LoadOptions

ACCEPTED_TYPES = ("text/html", "application/xhtml+xml", "application/pdf", "text/plain", "text/markdown",
                  "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/rss+xml",
                  "application/atom+xml", "application/rdf+xml", "application/xml", "text/xml")  # fmt: skip
_REDIRECTS = (301, 302, 303, 307, 308)


@dataclass(frozen=True)
class Fetched:
    url: str  # the final url, after redirects
    data: bytes
    content_type: str  # the media type, lowercase, without parameters
    charset: str | None
    etag: str | None = None  # the answer's validators, for the next conditional GET
    last_modified: str | None = None
    not_modified: bool = False  # 304 to a conditional GET: `data` is empty, the copy the caller has is current


@dataclass(frozen=True)
class Validators:
    """What a conditional GET sends: the ETag and Last-Modified of the answer the caller last read."""

    etag: str | None = None
    last_modified: str | None = None

    def headers(self) -> dict[str, str]:
        found = {"If-None-Match": self.etag, "If-Modified-Since": self.last_modified}
        return {name: value for name, value in found.items() if value}


def is_url(text: str) -> bool:
    return text.lower().startswith(("http://", "https://"))


def fetch(url: str, options: LoadOptions, validators: Validators | None = None) -> Fetched:
    """The document at `url`; DocumentError naming what went wrong (refused address, timeout, size, type, status).
    With `validators`, a conditional GET: a 304 answer is a Fetched with `not_modified` set."""
    timeout = httpx.Timeout(options.fetch_timeout_s)
    headers = {"Accept": ", ".join(ACCEPTED_TYPES), **(validators.headers() if validators else {})}
    with httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False) as client:
        for _hop in range(options.fetch_max_redirects + 1):
            check_address(url, options.fetch_allowed_hosts)
            try:
                with client.stream("GET", url, headers=headers) as response:
                    if response.status_code in _REDIRECTS and "location" in response.headers:
                        url = urljoin(url, response.headers["location"])
                        continue
                    if response.status_code == 304 and validators is not None:
                        return Fetched(url=url, data=b"", content_type="", charset=None, etag=validators.etag,
                                       last_modified=validators.last_modified, not_modified=True)  # fmt: skip
                    return _read(url, response, options.document_max_bytes)
            except httpx.TimeoutException as exc:
                raise DocumentError(f"timed out after {options.fetch_timeout_s:g} s (FETCH_TIMEOUT_S)") from exc
            except httpx.HTTPError as exc:
                raise DocumentError(f"cannot fetch: {' '.join(str(exc).split())[:200] or type(exc).__name__}") from exc
    raise DocumentError(f"more than {options.fetch_max_redirects} redirects (FETCH_MAX_REDIRECTS)")


def _read(url: str, response: httpx.Response, max_bytes: int) -> Fetched:
    if response.status_code != 200:
        raise DocumentError(f"HTTP {response.status_code} from {urlsplit(url).netloc}")
    media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type not in ACCEPTED_TYPES:
        raise DocumentError(
            f"content type {media_type or '(none)'!r} is not a document (HTML, PDF, DOCX, text or an RSS/Atom feed)"
        )
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise DocumentError(f"{declared} bytes, over the limit of {max_bytes} (DOCUMENT_MAX_BYTES)")
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise DocumentError(f"larger than the limit of {max_bytes} bytes (DOCUMENT_MAX_BYTES)")
        chunks.append(chunk)
    return Fetched(url=url, data=b"".join(chunks), content_type=media_type, charset=response.charset_encoding,
                   etag=response.headers.get("etag"), last_modified=response.headers.get("last-modified"))  # fmt: skip


def check_address(url: str, allowed_hosts: frozenset[str]) -> None:
    """Refuse a url whose host is not allowed, or resolves to an address that is not public (unless allowed)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DocumentError(f"not an http(s) url: {url[:200]}")
    host = parts.hostname.lower()
    if allowed_hosts:
        if host not in allowed_hosts:
            raise DocumentError(f"host {host} is not in FETCH_ALLOWED_HOSTS")
        return
    try:
        infos = socket.getaddrinfo(
            host, parts.port or (443 if parts.scheme == "https" else 80), type=socket.SOCK_STREAM
        )
    except (socket.gaierror, UnicodeError) as exc:
        raise DocumentError(f"cannot resolve {host}: {exc}") from exc
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if not _public(address):
            raise DocumentError(
                f"refused: {host} resolves to {address}, a loopback, private or link-local address "
                "(FETCH_ALLOWED_HOSTS lets named hosts through)"
            )


def _public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return not (address.is_private or address.is_loopback or address.is_link_local or address.is_multicast
                or address.is_reserved or address.is_unspecified)  # fmt: skip
