"""Authentication and principal administration of the API (docs/security.md): who the caller is
(`authenticate.py`), and the one door of principal, group, grant and key changes (`operations.py`) that /v1/auth and
`graphwire auth` both call."""
