"""Documents posted as files (PDF, DOCX, HTML, text, RSS/Atom feeds) or as URLs to fetch, turned into the records a
document job ingests by the CLI's own loader (`ingest.loaders.load_articles`): the same readers, limits and address
guard. Blocking (file reading, fetching): call from a thread."""

from __future__ import annotations

import tempfile
from pathlib import Path, PurePath
from typing import Any

from graphwire.app.jobs.models import JobFailure
from graphwire.app.uploads import Upload
from graphwire.ingest.formats.base import LoadOptions
from graphwire.ingest.loaders import LoadResult, load_articles


def file_upload(filename: str, content: bytes, options: LoadOptions) -> Upload:
    """One posted document file as one record (a feed: one per entry), or failures at position 0 with the loader's
    reasons."""
    name = PurePath(filename.replace("\\", "/")).name or "document"
    with tempfile.TemporaryDirectory(prefix="graphwire-upload-") as folder:
        path = Path(folder) / name
        path.write_bytes(content)
        try:
            loaded = load_articles(path, options)
        except ValueError as exc:  # a file no reader takes
            return Upload(records=[], positions=[], failures=[JobFailure(position=0, title=None, reason=str(exc))])
    return _upload([loaded])


def urls_upload(urls: list[Any], options: LoadOptions) -> Upload:
    """Each url fetched and read (a feed's entries all at its position); a url that is not text, or that cannot be
    fetched or read, fails at its position."""
    results: list[LoadResult] = []
    for url in urls:
        if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
            results.append(LoadResult(articles=[], errors=[]))
            continue
        results.append(load_articles(url, options))
    return _upload(results, urls)


def _upload(results: list[LoadResult], urls: list[Any] | None = None) -> Upload:
    records: list[Any] = []
    positions: list[int] = []
    failures: list[JobFailure] = []
    for position, loaded in enumerate(results):  # a feed is many documents (its entries) at one position
        for article in loaded.articles:
            records.append(article.model_dump(mode="json"))
            positions.append(position)
        for error in loaded.errors:
            _, entry, number = error.location.rpartition(" entry ")
            where = f"entry {number}: " if entry else ""  # which entry of a feed
            failures.append(JobFailure(position=position, title=error.title, reason=f"{where}{error.reason}"))
        if not loaded.articles and not loaded.errors:
            what = f"{urls[position]!r}"[:200] if urls is not None else "the file"
            failures.append(JobFailure(position=position, title=None, reason=f"{what} is not an http(s) URL"))
    return Upload(records=records, positions=positions, failures=failures)
