"""ClickHouse storage through clickhouse-connect: embedded chDB or a server, one code path."""

from ._client import Dsn, redact
from ._ddl import cluster_ddl, migrations
from ._scores import Candidate, ScoreFilter
from ._store import Store
from ._traces import TraceFilter, decode_cursor

__all__ = ["Candidate", "Dsn", "ScoreFilter", "Store", "TraceFilter", "cluster_ddl", "decode_cursor",
           "migrations", "redact"]
