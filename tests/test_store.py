"""Versioned DDL: applied once, in order; TTL from settings; the cluster variant parses."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from schemas.errors import UsageError
from store import Dsn, Store, cluster_ddl, migrations, redact
from store._ddl import split_statements


@pytest.fixture
def store(engine_path: Path) -> Store:
    return Store(f"chdb://{engine_path}", database=f"s_{uuid.uuid4().hex[:10]}", ttl_days=7)


def test_migrations_apply_once_in_order(store: Store) -> None:
    applied = store.open()
    assert applied == [f"{m.version:04d}_{m.name}" for m in migrations()]
    assert store.open() == []  # a second start applies nothing
    ledger = store.query_rows("SELECT Version, Name FROM schema_migrations ORDER BY Version")
    assert [v for v, _ in ledger] == sorted(m.version for m in migrations())
    assert store.pending_migrations() == []
    tables = {r[0] for r in store.query_rows("SHOW TABLES")}
    assert {"otel_traces", "agent_spans", "agent_trace_index", "ingest_receipts",
            "agent_spans_mv", "agent_trace_index_mv", "schema_migrations"} <= tables


def test_ttl_follows_settings(store: Store) -> None:
    store.open()
    ddl = store.command("SHOW CREATE TABLE agent_spans")
    assert "TTL toDateTime(StartTime) + toIntervalDay(7)" in ddl
    store.ttl_days = 30
    store.open()
    assert "toIntervalDay(30)" in store.command("SHOW CREATE TABLE otel_traces")
    store.ttl_days = 0
    store.open()
    assert " TTL " not in store.command("SHOW CREATE TABLE otel_traces")


def test_otel_traces_matches_the_exporter_layout(store: Store) -> None:
    store.open()
    columns = dict(store.query_rows(
        "SELECT name, type FROM system.columns WHERE database = currentDatabase() "
        "AND table = 'otel_traces'"))
    expected = {
        "Timestamp": "DateTime64(9)", "TraceId": "String", "SpanId": "String",
        "ParentSpanId": "String", "TraceState": "String", "SpanName": "LowCardinality(String)",
        "SpanKind": "LowCardinality(String)", "ServiceName": "LowCardinality(String)",
        "ResourceAttributes": "Map(LowCardinality(String), String)", "ScopeName": "String",
        "ScopeVersion": "String", "SpanAttributes": "Map(LowCardinality(String), String)",
        "Duration": "UInt64", "StatusCode": "LowCardinality(String)", "StatusMessage": "String",
        "Events.Timestamp": "Array(DateTime64(9))", "Events.Name": "Array(LowCardinality(String))",
        "Events.Attributes": "Array(Map(LowCardinality(String), String))",
        "Links.TraceId": "Array(String)", "Links.SpanId": "Array(String)",
        "Links.TraceState": "Array(String)",
        "Links.Attributes": "Array(Map(LowCardinality(String), String))",
    }
    assert columns == expected


def test_rows_from_another_writer_are_normalized(store: Store) -> None:
    """What the upstream clickhouseexporter writes (its own enum spellings) becomes agent_spans."""
    store.open()
    store.command("""
        INSERT INTO otel_traces (Timestamp, TraceId, SpanId, ParentSpanId, SpanName, SpanKind,
            ServiceName, ResourceAttributes, SpanAttributes, Duration, StatusCode)
        VALUES (now64(9), 'aaaabbbbccccddddaaaabbbbccccdddd', '1111222233334444', '',
            'ChatCompletion', 'SPAN_KIND_CLIENT', 'svc', map('service.version', '2.0'),
            map('openinference.span.kind', 'LLM', 'llm.model_name', 'gpt-x',
                'llm.token_count.prompt', '11', 'llm.token_count.completion', '4'),
            1500000, 'STATUS_CODE_ERROR')""")
    [row] = store.query_rows("SELECT Tenant, Kind, Operation, RequestModel, InputTokens, "
                             "OutputTokens, StatusCode, AgentVersion, Cohort FROM agent_spans")
    assert row == ("default", "llm", "chat", "gpt-x", 11, 4, "error", "2.0", "baseline")


def test_cluster_ddl_variant_parses(store: Store) -> None:
    store.open(migrate=False)
    text = cluster_ddl("prod", "agentwatch")
    assert "ON CLUSTER 'prod'" in text
    assert "ReplicatedMergeTree('/clickhouse/tables/{shard}/agentwatch/otel_traces'" in text
    assert "ENGINE = Distributed('prod', 'agentwatch', 'agent_spans_local', cityHash64(TraceId))" in text
    assert "TO agentwatch.agent_spans_local" in text and "FROM agentwatch.otel_traces_local" in text
    assert "non_replicated_deduplication_window" not in text
    for statement in split_statements(text):
        # ClickHouse's own parser checks every statement
        store.query_rows("SELECT formatQuery({q:String})", {"q": statement})


def test_dsn_parsing_and_redaction() -> None:
    assert Dsn.parse("chdb:///var/lib/aw").path == "/var/lib/aw"
    server = Dsn.parse("https://u:pw@ch.example:8443/obs")
    assert (server.scheme, server.database, server.url) == ("https", "obs", "https://u:pw@ch.example:8443")
    assert redact("http://u:pw@h:8123/db") == "http://u:***@h:8123/db"
    for bad in ("postgres://x", "chdb://", "http://", "http://h:notaport/db", "nonsense"):
        with pytest.raises(UsageError):
            Dsn.parse(bad)
