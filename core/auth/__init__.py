"""Principals, roles and API keys (docs/security.md): the models, the key format, the SQLite principal store and the
bearer-token (JWT) check. The API's authentication (app/auth/) and `graphwire auth` use them."""
