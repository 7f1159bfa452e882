"""Who holds a store's writer lock or lease, and the error a second writer gets (core/stores/store_lock.py,
core/stores/store_lease.py)."""

from __future__ import annotations

from pydantic import BaseModel


class LockHolder(BaseModel):
    """Who holds the lock, as its holder wrote it; `host` and `expires_in_s` for the graph's writer lease."""

    pid: int
    purpose: str
    since: str  # ISO timestamp, UTC
    host: str | None = None
    expires_in_s: int | None = None  # the lease's time left, unless its holder renews it


class StoreBusyError(RuntimeError):
    """Another process is writing the store."""

    def __init__(self, store: str, holder: LockHolder | None) -> None:
        self.store = store
        self.holder = holder
        super().__init__(
            f"the store {store} is being written by {_who(holder)}; one writer at a time: wait for it to finish "
            "(or stop it and re-run with --resume)"
        )


def _who(holder: LockHolder | None) -> str:
    if holder is None:
        return "another process"
    where = f"pid {holder.pid}" + (f" on {holder.host}" if holder.host else "")
    expiry = f"; its lease ends in {holder.expires_in_s} s unless renewed" if holder.expires_in_s is not None else ""
    return f"{holder.purpose!r} ({where}, since {holder.since}{expiry})"
