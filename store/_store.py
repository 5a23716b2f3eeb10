"""The one way agentwatch talks to ClickHouse."""

from __future__ import annotations

import logging
import time
from typing import Any

from schemas import OTEL_TRACES_COLUMNS, Score, SpanColumns, StoredScore, Trace, TraceSummary

from . import _migrations, _scores, _traces
from ._client import ClientFactory, Dsn, redact, translate_errors
from ._eval import EvalRecords
from ._scores import Candidate, ScoreFilter
from ._traces import TraceFilter

log = logging.getLogger("agentwatch.store")

_INSERT_SETTINGS = {"deduplicate_blocks_in_dependent_materialized_views": 1}


class Store:
    """ClickHouse behind one DSN: `chdb:///path` (embedded) or `http(s)://...` (server)."""

    def __init__(self, dsn: str, database: str = "agentwatch", ttl_days: int = 0) -> None:
        self.dsn = Dsn.parse(dsn)
        self.dsn_text = redact(dsn)
        self.database = self.dsn.database or database
        self.ttl_days = ttl_days
        self._clients = ClientFactory(self.dsn, self.database)
        self.eval = EvalRecords(self._clients.current)

    # -- lifecycle ------------------------------------------------------
    def open(self, migrate: bool = True) -> list[str]:
        """Create the database if needed and apply pending migrations and TTL."""
        with translate_errors():
            bootstrap = self._clients.open(database=None)
            bootstrap.command(f"CREATE DATABASE IF NOT EXISTS `{self.database}`")
            if not migrate:
                return []
            client = self._clients.current()
            applied = _migrations.apply(client)
            _migrations.apply_ttl(client, self.ttl_days)
            return applied

    def close(self) -> None:
        self._clients.close()

    def ping(self) -> bool:
        try:
            with translate_errors():
                return bool(self._clients.current().command("SELECT 1") == 1)
        except Exception:
            return False

    def pending_migrations(self) -> list[int]:
        with translate_errors():
            return _migrations.pending(self._clients.current())

    def command(self, sql: str, parameters: dict[str, Any] | None = None) -> Any:
        with translate_errors():
            return self._clients.current().command(sql, parameters=parameters)

    def query_rows(self, sql: str, parameters: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        with translate_errors():
            return [tuple(r) for r in self._clients.current().query(sql, parameters=parameters).result_rows]

    # -- writes ---------------------------------------------------------
    def insert_spans(self, columns: SpanColumns, token: str) -> None:
        """Insert a batch; the same token again is a no-op (insert de-duplication)."""
        if not len(columns):
            return
        with translate_errors():
            self._clients.current().insert(
                "otel_traces_ingest",
                columns.columns(),
                column_names=OTEL_TRACES_COLUMNS,
                column_oriented=True,
                settings={**_INSERT_SETTINGS, "insert_deduplication_token": token},
            )

    def insert_receipts(self, receipts: list[tuple[str, str]]) -> None:
        if not receipts:
            return
        now = int(time.time())
        with translate_errors():
            self._clients.current().insert(
                "ingest_receipts",
                [[d for d, _ in receipts], [t for _, t in receipts], [now] * len(receipts)],
                column_names=["Digest", "Tenant", "AcceptedAt"],
                column_oriented=True,
            )

    def recent_receipts(self, within_s: int) -> set[str]:
        rows = self.query_rows(
            "SELECT Digest FROM ingest_receipts WHERE AcceptedAt >= now() - {s:UInt32}",
            {"s": within_s},
        )
        return {r[0] for r in rows}

    # -- reads (tenant-scoped) -------------------------------------------
    def list_traces(
        self, tenant: str, flt: TraceFilter, limit: int = 50, cursor: str | None = None
    ) -> tuple[list[TraceSummary], str | None]:
        with translate_errors():
            return _traces.list_traces(self._clients.current(), tenant, flt, limit, cursor)

    def get_trace(self, tenant: str, trace_id: str) -> Trace | None:
        with translate_errors():
            return _traces.get_trace(self._clients.current(), tenant, trace_id)

    # -- scores and the streaming runner -----------------------------------
    def insert_scores(self, scored: list[tuple[Trace, Score]], scored_at_ms: int) -> None:
        with translate_errors():
            _scores.insert_scores(self._clients.current(), scored, scored_at_ms)

    def list_scores(self, tenant: str, flt: ScoreFilter, limit: int = 100,
                    offset: int = 0) -> list[StoredScore]:
        with translate_errors():
            return _scores.list_scores(self._clients.current(), tenant, flt, limit, offset)

    def now_ms(self) -> int:
        with translate_errors():
            return _scores.now_ms(self._clients.current())

    def score_candidates(self, shard: int, shards: int, lo_ms: int, hi_ms: int) -> list[Candidate]:
        with translate_errors():
            return _scores.candidates(self._clients.current(), shard, shards, lo_ms, hi_ms)

    def traces_between(self, since_ns: int, until_ns: int, shard: int = 0,
                       shards: int = 1) -> list[tuple[str, str]]:
        with translate_errors():
            return _scores.traces_between(self._clients.current(), since_ns, until_ns, shard, shards)

    def load_traces(self, keys: list[tuple[str, str]]) -> list[Trace]:
        with translate_errors():
            return _scores.load_traces(self._clients.current(), keys)

    def get_watermark(self, shard: int, shards: int) -> int | None:
        with translate_errors():
            return _scores.get_watermark(self._clients.current(), shard, shards)

    def set_watermark(self, shard: int, shards: int, watermark_ms: int) -> None:
        with translate_errors():
            client = self._clients.current()
            _scores.set_watermark(client, shard, shards, watermark_ms, _scores.now_ms(client))
