"""`Graphwire`: the Python API over the same pipeline functions the CLI and the HTTP API call.

One object per process: it opens Neo4j and the vector store on first use, builds each retrieval mode once (the same
`RetrievalContext` the API serves from) and writes under the store's writer lock, like `graphwire ingest`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from graphwire.core.access import EVERYONE, Reader
from graphwire.core.settings import Settings, get_settings

if TYPE_CHECKING:
    from graphwire.core.clients.graph import Graph
    from graphwire.core.stores.workspace_registry import DeleteResult, WorkspaceInfo
    from graphwire.ingest.curation.models import Candidate, EditRecord, EditResult, EditSpec, Rejection
    from graphwire.ingest.curation.service import Curation
    from graphwire.ingest.exchange.models import ImportReport
    from graphwire.ingest.exchange.service import GraphExchange
    from graphwire.ingest.report import IngestReport
    from graphwire.retrieval.models import Answer, RetrievalResult
    from graphwire.retrieval.registry import RetrievalContext


class Graphwire:
    """Ingest documents, retrieve passages and facts, answer questions.

    `settings` default to the environment and `.env` (every setting in `.env.example`); `workspace`, when given, is
    the one it reads and writes instead of the settings' (WORKSPACE, else `default`); `extractor` and `answerer` are
    `auto` (the LLM when LLM_BASE_URL and LLM_MODEL are set, else the offline extractor and extractive answerer).
    """

    def __init__(self, settings: Settings | None = None, *, workspace: str | None = None) -> None:
        settings = settings or get_settings()
        self.settings = settings if workspace is None else settings.for_workspace(workspace)
        self._graph: Graph | None = None
        self._context: RetrievalContext | None = None

    # stores ---------------------------------------------------------------------------------------------
    @property
    def graph(self) -> Graph:
        if self._graph is None:
            from graphwire.core.clients.graph import Graph
            from graphwire.core.stores.bootstrap import apply_schema

            self._graph = Graph.from_settings(self.settings)
            apply_schema(self._graph)
        return self._graph

    def _retrieval(self) -> RetrievalContext:
        if self._context is None:
            from graphwire.core.clients.chroma import open_client
            from graphwire.retrieval.registry import RetrievalContext

            self._context = RetrievalContext(
                self.settings, graph=lambda: self.graph, chroma=lambda: open_client(self.settings)
            )
        return self._context

    # ingest ---------------------------------------------------------------------------------------------
    def ingest(
        self,
        documents: str | Path | Iterable[Mapping[str, Any]],
        *,
        extractor: str = "auto",
        vectors: bool = True,
        force: bool = False,
    ) -> IngestReport:
        """Ingest a file, a folder or an http(s) URL (the formats `graphwire ingest` reads: JSON, JSON Lines, text,
        Markdown, PDF, DOCX, HTML) or records (`title`, `body`, optional `source`, `published_at`, `url`, ...).
        Unchanged documents are skipped unless `force`. Records that cannot be used are listed in the report's
        `load_errors`; the others are ingested."""
        from graphwire.core.stores.write_session import WriteSession
        from graphwire.ingest.formats.base import LoadOptions
        from graphwire.ingest.formats.fetch import is_url
        from graphwire.ingest.loaders import load_articles, load_records
        from graphwire.ingest.service import ExtractorChoice, ingest_loaded, ingest_options

        if isinstance(documents, str | Path):
            source = documents if isinstance(documents, str) and is_url(documents) else Path(documents)
            loaded = load_articles(source, LoadOptions.from_settings(self.settings))
        else:
            loaded = load_records(list(documents))
        refresh = self._context.refresh if self._context is not None else None  # this process's caches, at once
        with WriteSession(self.settings, lambda: self.graph, "graphwire Python API: Graphwire.ingest", refresh):
            report = ingest_loaded(
                loaded.articles,
                self.graph,
                self.settings,
                options=ingest_options(self.settings, progress=False, force=force),
                chunk_store=self._chunk_store() if vectors else None,
                extractor=ExtractorChoice(extractor),
            )
        report.load_errors = loaded.errors
        return report

    def _chunk_store(self) -> Any:
        from graphwire.core.clients.chunk_store import ChunkStore

        return ChunkStore.from_settings(self.settings)

    # edits ----------------------------------------------------------------------------------------------
    def _curation(self) -> Curation:
        from graphwire.core.schema import configured_schema
        from graphwire.ingest.curation.service import Curation

        refresh = self._context.refresh if self._context is not None else None  # this process's caches, at once
        return Curation(self.settings, lambda: self.graph, configured_schema(self.settings), on_change=refresh)

    def edit(
        self, edit: EditSpec, *, by: str, reason: str = "", dry_run: bool = False, wait_s: float = 0.0
    ) -> EditResult:
        """Apply one graph edit (`graphwire.ingest.curation.models`: Merge, Split, Rename, Relabel, Alias,
        DeleteEntity, DeleteFact, AddFact) with its audit record and curation rules, or only say what it would change
        (`dry_run`). Refusals raise `EditError` with the reason; another writer holding the store raises
        `StoreBusyError` naming it."""
        from graphwire.ingest.curation.models import EditRequest

        request = EditRequest(edit=edit, by=by, reason=reason)
        curation = self._curation()
        return curation.preview(request) if dry_run else curation.apply(request, wait_s=wait_s)

    def undo_edit(
        self, edit_id: str, *, by: str, reason: str = "", dry_run: bool = False, wait_s: float = 0.0
    ) -> EditResult:
        """Write back the state before an edit (refused when a later edit or ingest touched its entities)."""
        return self._curation().undo(edit_id, by, reason, dry_run=dry_run, wait_s=wait_s)

    def edits(self, *, entity: str | None = None, limit: int = 50) -> list[EditRecord]:
        """The audit log, newest first: all edits, or those that touched the entity key `entity`."""
        return self._curation().log(entity, limit)

    def merge_candidates(self, *, entity: str | None = None, limit: int = 20) -> list[Candidate]:
        """The review queue: pairs of entities that may be one, with evidence and score, best first; accept one with
        `edit(Merge(...))`, or `reject_pair` it."""
        return self._curation().candidates(limit, entity)

    def reject_pair(self, a: str, b: str, *, by: str, reason: str = "", undo: bool = False) -> Rejection | None:
        """Reject a candidate pair (never proposed again), or take the rejection back (`undo`)."""
        from graphwire.ingest.curation.models import PairRequest

        request = PairRequest(a=a, b=b, by=by, reason=reason)
        if undo:
            self._curation().unreject(request)
            return None
        return self._curation().reject(request)

    # export and import ----------------------------------------------------------------------------------
    def _exchange(self) -> GraphExchange:
        from graphwire.core.schema import configured_schema
        from graphwire.ingest.exchange.service import GraphExchange

        refresh = self._context.refresh if self._context is not None else None  # this process's caches, at once
        return GraphExchange(self.settings, lambda: self.graph, configured_schema(self.settings), on_change=refresh)

    def export_graph(
        self, out: str | Path, *, entity: str | None = None, hops: int = 1, format: str = "jsonl"
    ) -> list[str] | int:
        """Write the graph, or the neighbourhood of the entity key `entity` within `hops` hops, to `out`: a JSON
        Lines file (`format="jsonl"`, returns its number of lines) or a folder of the CSV files neo4j-admin imports
        (`format="neo4j-csv"`, returns the `neo4j-admin database import full` command). docs/export.md."""
        if format == "neo4j-csv":
            return self._exchange().export_csv(Path(out), entity, hops)
        if format != "jsonl":
            raise ValueError(f"format is jsonl or neo4j-csv, not {format!r}")
        return self._exchange().export_file(Path(out), entity, hops)

    def import_graph(self, file: str | Path, *, wait_s: float = 0.0) -> ImportReport:
        """Import a JSON Lines graph file: every line is checked against the schema first (`ExchangeError` with the
        problems by line, nothing written), then nodes and relationships merge into the store under the writer lock.
        """
        return self._exchange().import_file(Path(file), wait_s=wait_s)

    # query ----------------------------------------------------------------------------------------------
    def retrieve(
        self, question: str, *, mode: str = "joint", top_k: int = 10, reader: Reader | None = None
    ) -> RetrievalResult:
        """Ranked chunks, matched entities and facts for `question` in one retrieval mode (`modes()` lists them);
        with `reader` (`Reader.of(["finance", "alice"])`), only what documents it may read support."""
        from graphwire.retrieval.access import retrieve_as

        context = self._retrieval()
        return retrieve_as(context, mode, question, top_k, reader or EVERYONE)

    def ask(
        self,
        question: str,
        *,
        mode: str = "joint",
        answerer: str = "auto",
        top_k: int = 10,
        reader: Reader | None = None,
    ) -> Answer:
        """Retrieve, then answer with citations (an abstention when the retrieved evidence does not answer it; one
        with `status` `llm_failed` and the reason in `llm_error` when the LLM failed). `check` says which sentences
        the evidence supports (unless ANSWER_CHECK is off; see docs/query.md, "Answer checking")."""
        result = self.retrieve(question, mode=mode, top_k=top_k, reader=reader)
        return self._retrieval().answerer(answerer).answer(question, result)

    @staticmethod
    def modes() -> list[str]:
        from graphwire.retrieval.registry import mode_names

        return mode_names()

    # workspaces -----------------------------------------------------------------------------------------
    def workspaces(self) -> list[WorkspaceInfo]:
        """Every workspace of the store with its counts (`graphwire workspace list`)."""
        from graphwire.core.stores import workspace_registry

        return workspace_registry.entries(self.graph)

    def describe_workspace(self) -> WorkspaceInfo | None:
        """This object's workspace with its counts, or None while it does not exist."""
        from graphwire.core.stores import workspace_registry

        return workspace_registry.describe(self.graph)

    def create_workspace(self) -> bool:
        """Create this object's workspace, empty (its first ingest creates it too); False when it existed."""
        from graphwire.core.stores import workspace_registry

        return workspace_registry.create(self.graph, by="graphwire Python API")

    def delete_workspace(self) -> DeleteResult:
        """Delete this object's workspace and everything in it, as `graphwire workspace delete` does; run again, it
        finishes a delete that was cut short."""
        from graphwire.core.clients.chroma import open_client
        from graphwire.core.stores import workspace_registry

        chroma = partial(open_client, self.settings)
        by = "graphwire Python API: Graphwire.delete_workspace"
        done = workspace_registry.delete(self.settings, self.graph, chroma, by=by)
        self._context = None  # its caches described what is gone
        return done

    # lifecycle ------------------------------------------------------------------------------------------
    def close(self) -> None:
        if self._graph is not None:
            self._graph.close()
            self._graph = None
        self._context = None

    def __enter__(self) -> Graphwire:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
