"""A chunk store open in this process while another process writes the same local Chroma folder: it reads the new
chunks (vector query, full read with vectors, get by id) without `InternalError: Error finding id`.

Before `ChunkStore` reopened its client on a foreign revision, the full read failed and the vector query never saw
the other process's chunks."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.documents import Chunk
from graphwire.core.settings import Settings

WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from graphwire.core.clients.chunk_store import ChunkStore
    from graphwire.core.documents import Chunk
    from graphwire.core.settings import Settings

    store = ChunkStore.from_settings(Settings(chroma_path=Path(sys.argv[1]), chroma_collection="other_writer"))
    store.upsert([Chunk(id=f"late:{i}", document_id="late", index=i, title="late story",
                        text=f"The harbour crane number {i} was sold to a Rotterdam buyer.") for i in range(3)])
    """
)


def test_chunks_written_by_another_process_are_read_without_errors(tmp_path: Path) -> None:
    settings = Settings(chroma_path=tmp_path / "chroma", chroma_collection="other_writer")
    store = ChunkStore.from_settings(settings)
    store.upsert([Chunk(id="early:0", document_id="early", index=0, title="early", text="Rates rose again today.")])
    assert [c.id for c in store.get_all_with_vectors()[0]] == ["early:0"]

    subprocess.run([sys.executable, "-c", WRITER, str(settings.chroma_path)], check=True, timeout=120)

    store.revision()  # what the flat index does at most every second
    chunks, vectors = store.get_all_with_vectors()
    assert sorted(c.id for c in chunks) == ["early:0", "late:0", "late:1", "late:2"] and vectors.shape[0] == 4
    hits = store.query("Who bought the harbour crane?", k=4)
    assert {chunk_id for chunk_id, _ in hits} == {"early:0", "late:0", "late:1", "late:2"}
    assert [c.id for c in store.get(["late:2", "early:0"])] == ["late:2", "early:0"]
    assert store.missing(["late:1", "never"]) == ["never"]
    assert store.reopens == 1
