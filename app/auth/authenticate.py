"""Who a request's caller is, from its X-API-Key header or `Authorization: Bearer` value, by AUTH_MODE:

- none: everyone is `OPEN` (a server admin);
- key: the holder of the one API_KEY is `SHARED_KEY` (a server admin), anyone else is refused;
- principals: a `gw_` key of the principal store, or a JWT of the OIDC issuer, resolves to a `Principal` with its
  groups and roles; anything else is refused.

A refusal is counted (`graphwire_auth_failures_total{reason}`) and logged with its reason and the key id or token
subject when known, never the key or the token. `ApiKeyMiddleware` (app/middleware.py) calls `authenticate` before a
body is read and leaves the principal in the request scope (`PRINCIPAL_SCOPE_KEY`) for the routes and the MCP tools.
"""

from __future__ import annotations

import logging
import secrets
from datetime import timedelta
from typing import Any

from graphwire.core import metrics
from graphwire.core.auth.keys import looks_like_key, parse_key, secret_matches
from graphwire.core.auth.models import OPEN, SHARED_KEY, Principal, PrincipalRecord
from graphwire.core.auth.store import PrincipalStore, SqlitePrincipalStore, now
from graphwire.core.auth.tokens import TokenRefused, TokenVerifier, looks_like_jwt
from graphwire.core.settings import AuthMode, Settings

log = logging.getLogger("graphwire.auth")

PRINCIPAL_SCOPE_KEY = "graphwire.principal"  # where the middleware leaves the caller in the ASGI scope
LAST_USED_EVERY_S = 60.0  # a key's last_used_at is written at most this often
# what a refused caller is told, by reason: nothing that tells a guessed key id from a real one
_PUBLIC_REASONS = {
    "expired": "the key has expired", "revoked": "the key was revoked", "disabled": "the principal is disabled",
    "token_expired": "the token has expired", "malformed": "malformed credentials",
}  # fmt: skip


class AuthFailure(Exception):
    def __init__(self, reason: str, key_id: str | None = None, subject: str | None = None, note: str = "") -> None:
        super().__init__(reason)
        self.reason, self.key_id, self.subject, self.note = reason, key_id, subject, note

    @property
    def public(self) -> str | None:
        """What the 401 may say beyond "missing or invalid"."""
        return _PUBLIC_REASONS.get(self.reason)


class Authenticator:
    """Built once per app (`create_app`) from the settings; the store and the token check only in principals mode."""

    def __init__(self, settings: Settings, store: PrincipalStore, verifier: TokenVerifier | None) -> None:
        self.mode = settings.effective_auth_mode
        self.workspace = settings.workspace  # the workspace this server serves: every role is checked in it
        self.store = store
        self.verifier = verifier
        self._shared = settings.api_key.get_secret_value().encode() if settings.api_key is not None else None

    @classmethod
    def build(cls, settings: Settings) -> Authenticator:
        """The store is opened on first use: a server that never uses it writes no file."""
        verifier = None
        if settings.oidc_configured:
            verifier = TokenVerifier(
                settings.oidc_issuer or "", settings.oidc_audience or "", settings.oidc_jwks_url or "",
                settings.oidc_subject_claim, settings.oidc_groups_claim,
            )  # fmt: skip
        return cls(settings, SqlitePrincipalStore(settings.auth_store_path), verifier)

    @property
    def guards(self) -> bool:
        return self.mode is not AuthMode.NONE

    @property
    def blocking(self) -> bool:
        """Whether `authenticate` reads the store or the issuer (run it in a thread from async code)."""
        return self.mode is AuthMode.PRINCIPALS

    def authenticate(self, api_key: str | None, bearer: str | None, path: str = "") -> Principal:
        """The caller, acting in the served workspace, or `AuthFailure` (counted and logged)."""
        try:
            return self.identify(api_key, bearer).acting_in(self.workspace)
        except AuthFailure as failure:
            metrics.AUTH_FAILURES.labels(failure.reason).inc()
            extra: dict[str, Any] = {"reason": failure.reason, "path": path}
            extra.update({k: v for k, v in (("key_id", failure.key_id), ("subject", failure.subject)) if v})
            if failure.note:
                extra["detail"] = failure.note
            log.warning("authentication refused", extra=extra)
            raise

    def identify(self, api_key: str | None, bearer: str | None) -> Principal:
        """As `authenticate`, neither counted nor logged (GET /health asks it whether to show details)."""
        given = api_key if api_key is not None else bearer
        if self.mode is AuthMode.NONE:
            return OPEN
        if not given:
            raise AuthFailure("missing")
        if self.mode is AuthMode.KEY:
            if self._shared is not None and secrets.compare_digest(given.encode(), self._shared):
                return SHARED_KEY
            raise AuthFailure("wrong_key")
        if looks_like_key(given):
            return self._by_key(given)
        if self.verifier is not None and looks_like_jwt(given):
            return self._by_token(given)
        raise AuthFailure("malformed")

    def _by_key(self, text: str) -> Principal:
        key = parse_key(text)
        if key is None:
            raise AuthFailure("malformed")
        found = self.store.key_for_check(key.key_id)
        if found is None:
            raise AuthFailure("unknown_key", key.key_id)
        record, stored_hash = found
        if not secret_matches(key.secret, stored_hash):
            raise AuthFailure("wrong_secret", key.key_id)
        moment = now()
        if record.revoked_at is not None:
            raise AuthFailure("revoked", key.key_id)
        if record.expires_at is not None and record.expires_at <= moment:
            raise AuthFailure("expired", key.key_id)
        principal = self.store.principal(record.principal_id)
        if principal is None or principal.disabled:
            raise AuthFailure("disabled", key.key_id)
        if record.last_used_at is None or moment - record.last_used_at >= timedelta(seconds=LAST_USED_EVERY_S):
            self.store.touch_key(key.key_id, moment, LAST_USED_EVERY_S)
        return self._principal(principal, tuple(principal.groups), "key")

    def _by_token(self, token: str) -> Principal:
        assert self.verifier is not None
        try:
            identity = self.verifier.verify(token)
        except TokenRefused as refused:
            raise AuthFailure(refused.reason, subject=refused.subject, note=str(refused)) from refused
        stored = self.store.principal_by_subject(identity.subject)
        if stored is None:  # no principal of its own: its groups' grants alone
            groups = tuple(sorted(set(identity.groups)))
            roles = self.store.roles_for(None, groups)
            return Principal(id=f"oidc:{identity.subject}", name=identity.subject, groups=groups, roles=roles,
                             via="token")  # fmt: skip
        if stored.disabled:
            raise AuthFailure("disabled", subject=identity.subject)
        return self._principal(stored, tuple(sorted({*stored.groups, *identity.groups})), "token")

    def _principal(self, record: PrincipalRecord, groups: tuple[str, ...], via: str) -> Principal:
        return Principal(
            id=record.id, name=record.name, groups=groups, roles=self.store.roles_for(record.id, groups),
            server_admin=record.server_admin, via=via,
        )  # fmt: skip
