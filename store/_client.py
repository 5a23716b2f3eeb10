"""Opening clickhouse-connect clients from a DSN, and translating its errors."""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import clickhouse_connect
from clickhouse_connect.driver.client import Client
from clickhouse_connect.driver.exceptions import (
    ClickHouseError,
    DatabaseError,
    OperationalError,
)

from schemas.errors import StoreError, StoreLocked, StoreUnavailable, UsageError


@dataclass(frozen=True)
class Dsn:
    """Where ClickHouse lives: the embedded engine on a path, or a server over HTTP(S)."""

    scheme: str
    path: str = ""
    url: str = ""
    database: str = ""

    @property
    def embedded(self) -> bool:
        return self.scheme == "chdb"

    @classmethod
    def parse(cls, dsn: str) -> Dsn:
        parts = urlsplit(dsn)
        if parts.scheme == "chdb":
            path = dsn[len("chdb://") :]
            if not path:
                raise UsageError(f"invalid DSN {dsn!r}: chdb:// needs a path, e.g. chdb:///var/lib/agentwatch")
            return cls(scheme="chdb", path=os.path.abspath(os.path.expanduser(path)))
        if parts.scheme in ("http", "https", "clickhouse", "clickhouses"):
            if not parts.hostname:
                raise UsageError(f"invalid DSN {redact(dsn)!r}: no host")
            try:
                _ = parts.port
            except ValueError as exc:
                raise UsageError(f"invalid DSN {redact(dsn)!r}: {exc}") from None
            scheme = "https" if parts.scheme in ("https", "clickhouses") else "http"
            database = parts.path.strip("/")
            url = urlunsplit((scheme, parts.netloc, "", parts.query, ""))
            return cls(scheme=scheme, url=url, database=database)
        raise UsageError(
            f"invalid DSN {redact(dsn)!r}: use chdb:///path/to/data (embedded) "
            "or http(s)://user:password@host:8123/database (server)"
        )


def redact(dsn: str) -> str:
    """The DSN with its password masked, for logs and error messages."""
    parts = urlsplit(dsn)
    if parts.password is None:
        return dsn
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


@contextlib.contextmanager
def translate_errors() -> Iterator[None]:
    """Turn clickhouse-connect and chDB exceptions into agentwatch's store errors."""
    try:
        yield
    except (StoreError, UsageError):
        raise
    except OperationalError as exc:
        raise StoreUnavailable(f"ClickHouse unreachable: {_first_line(exc)}") from exc
    except (ClickHouseError, DatabaseError) as exc:
        text = str(exc)
        if "Cannot lock file" in text or "already running" in text:
            raise StoreLocked(
                "the embedded data directory is in use by another process "
                "(is `agentwatch serve` already running on it?)"
            ) from exc
        if "different path" in text or "one engine path" in text.lower():
            raise StoreLocked(f"chDB allows one data path per process: {_first_line(exc)}") from exc
        raise StoreError(_first_line(exc)) from exc
    except (ConnectionError, TimeoutError) as exc:
        raise StoreUnavailable(f"ClickHouse unreachable: {exc}") from exc


def _held_by_another_process(path: str) -> bool:
    """ClickHouse flocks `<path>/status` while an engine runs on the path."""
    try:
        fd = os.open(os.path.join(path, "status"), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:500] if text else type(exc).__name__


class ClientFactory:
    """Opens one client per thread: clickhouse-connect clients are not shared across threads."""

    def __init__(self, dsn: Dsn, database: str, settings: dict[str, Any] | None = None) -> None:
        self.dsn = dsn
        self.database = database
        self._settings = settings or {}
        self._local = threading.local()
        self._all: list[Client] = []
        self._lock = threading.Lock()

    def open(self, database: str | None = "__default__") -> Client:
        db = self.database if database == "__default__" else database
        with translate_errors():
            if self.dsn.embedded:
                client = self._open_embedded(db)
            else:
                client = clickhouse_connect.get_client(
                    dsn=self.dsn.url,
                    database=db or "",
                    settings=self._settings,
                    autogenerate_session_id=False,
                    connect_timeout=5,
                    send_receive_timeout=60,
                )
        with self._lock:
            self._all.append(client)
        return client

    def _open_embedded(self, database: str | None) -> Client:
        try:
            os.makedirs(self.dsn.path, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create {self.dsn.path}: {exc.strerror}") from None
        try:
            return clickhouse_connect.get_client(
                dsn=f"chdb://{self.dsn.path}", database=database, settings=self._settings
            )
        except Exception:
            if _held_by_another_process(self.dsn.path):
                raise StoreLocked(
                    f"the embedded data directory {self.dsn.path} is in use by another process "
                    "(is `agentwatch serve` running on it? use its API, or stop it first)"
                ) from None
            raise

    def current(self) -> Client:
        client = getattr(self._local, "client", None)
        if client is None:
            client = self.open()
            self._local.client = client
        return client

    def close(self) -> None:
        with self._lock:
            clients, self._all = self._all, []
        for client in clients:
            with contextlib.suppress(Exception):
                client.close()
        self._local = threading.local()
