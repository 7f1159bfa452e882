"""Vendor the web UI's JavaScript libraries from the npm registry into app/ui/vendor/, as the manifest pins them.

    python tools/vendor_ui.py          # fetch each pinned package with `npm pack`, check it, copy its files
    python tools/vendor_ui.py --check  # offline: every vendored file is present with the sha256 the manifest records

The manifest (app/ui/vendor/vendor.json) is the record: package, version, license, the registry's sha512 integrity of
the tarball, and for each vendored file its path in the tarball and its sha256. Files are copied byte for byte, each
package's LICENSE beside them, except for the text replacements a file's `patches` lists (each with its reason).
Nothing is fetched at run time: the API serves these files at /ui/vendor/.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT / "app" / "ui" / "vendor"
MANIFEST = VENDOR / "vendor.json"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _pack(spec: str, into: Path) -> tuple[Path, str]:
    """`npm pack` one package version into `into`: the tarball and the registry's integrity string."""
    out = subprocess.run(
        ["npm", "pack", spec, "--json", "--pack-destination", str(into)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    [info] = json.loads(out.stdout)
    return into / info["filename"], info["integrity"]


def _integrity(tarball: Path) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()


def _patched(content: bytes, patches: list[dict[str, str]], name: str) -> bytes:
    """Apply the manifest's text replacements (each must match exactly once): what keeps a page offline."""
    for patch in patches:
        find, replace = patch["find"].encode(), patch["replace"].encode()
        if content.count(find) != 1:
            raise SystemExit(f"{name}: patch {patch['find']!r} matches {content.count(find)} times, not once")
        content = content.replace(find, replace)
    return content


def _vendor_package(entry: dict[str, Any], scratch: Path) -> None:
    spec = f"{entry['package']}@{entry['version']}"
    tarball, registry_integrity = _pack(spec, scratch)
    actual = _integrity(tarball)
    if registry_integrity != actual or entry.get("integrity", actual) != actual:
        raise SystemExit(f"{spec}: tarball integrity {actual} does not match {entry.get('integrity')}")
    entry["integrity"] = actual
    target = VENDOR / entry["package"]
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    with tarfile.open(tarball) as archive:
        for file in entry["files"]:
            member = archive.extractfile(f"package/{file['from']}")
            if member is None:
                raise SystemExit(f"{spec}: no file {file['from']} in the tarball")
            dest = target / file["to"]
            dest.write_bytes(_patched(member.read(), file.get("patches", []), f"{spec} {file['from']}"))
            file["sha256"] = _sha256(dest)
    print(f"vendored {spec} ({len(entry['files'])} files)")


def load_manifest() -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return manifest


def fetch() -> None:
    manifest = load_manifest()
    with tempfile.TemporaryDirectory() as scratch:
        for entry in manifest["packages"]:
            _vendor_package(entry, Path(scratch))
    MANIFEST.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def problems() -> list[str]:
    """What differs between the vendored files and the manifest (empty when they agree)."""
    manifest = load_manifest()
    found: list[str] = []
    for entry in manifest["packages"]:
        for file in entry["files"]:
            path = VENDOR / entry["package"] / file["to"]
            if not path.is_file():
                found.append(f"{_shown(path)} is missing")
            elif _sha256(path) != file.get("sha256"):
                found.append(f"{_shown(path)} differs from the manifest's sha256")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify the vendored files offline")
    if parser.parse_args().check:
        found = problems()
        for line in found:
            print(line, file=sys.stderr)
        sys.exit(1 if found else 0)
    fetch()


if __name__ == "__main__":
    main()
