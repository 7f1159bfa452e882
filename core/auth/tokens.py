"""Bearer tokens (JWT) from an OIDC issuer: the signature checked with a key of the issuer's JWKS (OIDC_JWKS_URL,
fetched and cached by PyJWT's client), then the expiry, the issuer and the audience. What is read of a valid token:
its subject (OIDC_SUBJECT_CLAIM) and its groups (OIDC_GROUPS_CLAIM)."""

from __future__ import annotations

from dataclasses import dataclass

import jwt

# asymmetric algorithms only: a token signed with a shared secret (HS256) or unsigned ("none") is refused
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
JWKS_CACHE_S = 300  # how long fetched signing keys are reused; an unknown key id fetches the set again
JWKS_TIMEOUT_S = 5


class TokenRefused(Exception):
    """A token that does not authenticate; `reason` is the failure's label (never the token)."""

    def __init__(self, reason: str, message: str, subject: str | None = None) -> None:
        super().__init__(message)
        self.reason, self.subject = reason, subject


@dataclass(frozen=True)
class TokenIdentity:
    subject: str
    groups: tuple[str, ...]


def looks_like_jwt(text: str) -> bool:
    return text.count(".") == 2


class TokenVerifier:
    def __init__(self, issuer: str, audience: str, jwks_url: str, subject_claim: str, groups_claim: str) -> None:
        self.issuer, self.audience = issuer, audience
        self.subject_claim, self.groups_claim = subject_claim, groups_claim
        self._jwks = jwt.PyJWKClient(jwks_url, cache_keys=True, lifespan=JWKS_CACHE_S, timeout=JWKS_TIMEOUT_S)

    def verify(self, token: str) -> TokenIdentity:
        try:
            signing_key = self._jwks.get_signing_key_from_jwt(token)
        except jwt.PyJWKClientConnectionError as exc:
            raise TokenRefused("jwks_unavailable", "the issuer's signing keys could not be fetched") from exc
        except (jwt.PyJWKClientError, jwt.DecodeError) as exc:
            raise TokenRefused(
                "bad_token", "a malformed token, or one signed by a key the issuer does not list"
            ) from exc
        try:
            claims = jwt.decode(
                token, signing_key.key, algorithms=ALGORITHMS, audience=self.audience, issuer=self.issuer,
                options={"require": ["exp", "iss", "aud"]},
            )  # fmt: skip
        except jwt.ExpiredSignatureError as exc:
            raise TokenRefused("token_expired", "the token has expired") from exc
        except jwt.InvalidTokenError as exc:
            raise TokenRefused("bad_token", f"the token is not valid here: {exc}") from exc
        return self._identity(claims)

    def _identity(self, claims: dict[str, object]) -> TokenIdentity:
        subject = claims.get(self.subject_claim)
        if not isinstance(subject, str) or not subject:
            raise TokenRefused("bad_token", f"the token has no {self.subject_claim!r} claim")
        groups = claims.get(self.groups_claim, [])
        if isinstance(groups, str):
            groups = [groups]
        if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
            raise TokenRefused("bad_token", f"the token's {self.groups_claim!r} claim is not a list of names", subject)
        return TokenIdentity(subject, tuple(groups))
