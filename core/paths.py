"""Where graphwire's own files are, in a checkout and in an installed wheel alike.

Package data (the demo corpus, the Neo4j launcher's pom and Java source, the embedding model's pom) sits under the
`graphwire` package: in a checkout `graphwire/data` and `graphwire/tools` link to the repository's top-level folders,
in a wheel they are real folders in site-packages. Maven builds into a `target/` beside the pom, which a read-only
site-packages cannot hold: outside a checkout the poms are copied to a user cache folder and built there.
"""

from __future__ import annotations

import filecmp
import os
import shutil
from functools import cache
from pathlib import Path

PACKAGE_ROOT = Path(__file__).parent.parent  # not resolved: in a checkout graphwire/core is a link to core/
DEMO_DIR = PACKAGE_ROOT / "data" / "demo"
TOOLS_DIR = PACKAGE_ROOT / "tools"


@cache
def checkout_root() -> Path | None:
    """The repository folder when running from a source checkout (editable install or tests), else None."""
    root = PACKAGE_ROOT.resolve().parent
    return root if (root / "pyproject.toml").is_file() and (root / "graphwire").is_dir() else None


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "graphwire"


@cache
def maven_project(name: str) -> Path:
    """The folder of the Maven project `tools/<name>` to build in: the checkout's own, or a cached copy of it
    (copied once per process: every embedder and `bge_small_present` call asks for it)."""
    source = TOOLS_DIR / name
    if checkout_root() is not None:
        return source.resolve()
    work = cache_root() / name
    for path in source.rglob("*"):
        if path.is_file() and "target" not in path.relative_to(source).parts:
            copy = work / path.relative_to(source)
            if not (copy.exists() and filecmp.cmp(path, copy, shallow=False)):
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, copy)  # keeps the mtime: an unchanged pom does not trigger a rebuild
    return work


def shared_data_dir() -> Path:
    """The shared benchmark data (MultiHop-RAG, HotpotQA) beside a checkout; `./shared/data` elsewhere."""
    root = checkout_root()
    return root.parent / "shared" / "data" if root else Path("shared") / "data"
