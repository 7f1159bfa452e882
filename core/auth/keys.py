"""API keys: `gw_<key id>_<secret>`. The id (16 hex digits) finds the stored key; the secret (256 random bits) is
checked against its SHA-256 hash in constant time. Only the hash is stored; the plain key is shown once."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

KEY_PREFIX = "gw_"
_KEY = re.compile(r"^gw_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$")


@dataclass(frozen=True)
class PlainKey:
    key_id: str
    secret: str

    @property
    def text(self) -> str:
        return f"{KEY_PREFIX}{self.key_id}_{self.secret}"

    @property
    def prefix(self) -> str:
        """What lists show: the prefix and the id, nothing of the secret."""
        return f"{KEY_PREFIX}{self.key_id}"


def new_key() -> PlainKey:
    return PlainKey(secrets.token_hex(8), secrets.token_urlsafe(32))


def looks_like_key(text: str) -> bool:
    return text.startswith(KEY_PREFIX)


def parse_key(text: str) -> PlainKey | None:
    """The key's id and secret, or None for anything not shaped like a key."""
    match = _KEY.match(text)
    return PlainKey(match.group(1), match.group(2)) if match else None


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def secret_matches(secret: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_secret(secret), stored_hash)
