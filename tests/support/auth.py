"""Principals and tokens for the auth tests: a store with a server admin, a writer and a reader (each with a key),
and an OIDC issuer of our own: an RSA key pair made here and its JWKS served on a free loopback port."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from graphwire.app.auth import operations as ops
from graphwire.core.auth.models import LOCAL, PrincipalKind, Role
from graphwire.core.auth.store import SqlitePrincipalStore

ISSUER = "https://issuer.test"
AUDIENCE = "graphwire-test"


@dataclass
class Team:
    store: SqlitePrincipalStore
    admin_key: str
    writer_key: str
    reader_key: str

    def headers(self, key: str) -> dict[str, str]:
        return {"X-API-Key": key}


def make_team(path: Path) -> Team:
    """A server admin (bootstrapped), a writer and a reader in the default workspace, each with a key."""
    store = SqlitePrincipalStore(path)
    admin = ops.bootstrap(store, LOCAL, "root", PrincipalKind.USER)
    keys = {}
    for name, role in (("wendy", Role.WRITER), ("rita", Role.READER)):
        ops.add_principal(store, LOCAL, ops.NewPrincipal(name=name))
        ops.grant(store, LOCAL, ops.GrantRequest(principal=name, role=role))
        keys[role] = ops.create_key(store, LOCAL, name, ops.NewKey()).key
    return Team(store, admin.key, keys[Role.WRITER], keys[Role.READER])


def private_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def jwk(key: rsa.RSAPrivateKey, kid: str) -> dict[str, Any]:
    public = json.loads(RSAAlgorithm.to_jwk(key.public_key()))
    return {**public, "kid": kid, "use": "sig", "alg": "RS256"}


def token(key: rsa.RSAPrivateKey, kid: str, **claims: Any) -> str:
    """A signed token: issuer, audience and a one-hour expiry unless `claims` say otherwise."""
    body = {"iss": ISSUER, "aud": AUDIENCE, "exp": int(time.time()) + 3600, **claims}
    return jwt.encode(body, key, algorithm="RS256", headers={"kid": kid})


@contextmanager
def jwks_server(keys: list[dict[str, Any]]) -> Iterator[str]:
    """Serve {"keys": keys} on 127.0.0.1 at a free port; yields the JWKS URL."""
    body = json.dumps({"keys": keys}).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the http.server name)
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/jwks.json"
    finally:
        server.shutdown()
        server.server_close()
