"""The versioned DDL files in schemas/ddl, and their ClickHouse-cluster variant."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources

_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_CREATE = re.compile(
    r"^CREATE (TABLE|MATERIALIZED VIEW) IF NOT EXISTS (\w+)", re.MULTILINE
)

# Tables with rows that age out; TTL is applied to them from settings.
TTL_COLUMNS = {
    "otel_traces": "toDateTime(Timestamp)",
    "agent_spans": "toDateTime(StartTime)",
    "agent_trace_index": "toDateTime(Start)",
}


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    statements: tuple[str, ...]

    @property
    def checksum(self) -> str:
        return hashlib.sha256("\n;\n".join(self.statements).encode()).hexdigest()[:16]


def migrations() -> list[Migration]:
    """Every DDL file under schemas/ddl, in version order."""
    found = []
    for entry in resources.files("schemas").joinpath("ddl").iterdir():
        match = _FILE.match(entry.name)
        if match:
            found.append(
                Migration(int(match[1]), match[2], tuple(split_statements(entry.read_text())))
            )
    found.sort(key=lambda m: m.version)
    return found


def split_statements(sql: str) -> list[str]:
    """Split a file on `;` at line ends, dropping comment-only chunks."""
    out = []
    for chunk in re.split(r";\s*$", sql, flags=re.MULTILINE):
        body = "\n".join(
            line for line in chunk.splitlines() if not line.lstrip().startswith("--")
        ).strip()
        if body:
            out.append(body)
    return out


def cluster_ddl(cluster: str, database: str = "agentwatch") -> str:
    """The whole schema for a ClickHouse cluster.

    Local tables become Replicated*MergeTree `<name>_local` created ON CLUSTER,
    each fronted by a Distributed table under the original name, sharded by
    trace id so a trace's spans sit on one shard. Materialized views read the
    local tables, so each shard normalizes its own rows.
    """
    lines = [
        f"-- agentwatch schema for cluster {cluster!r}; apply with clickhouse-client --multiquery",
        f"CREATE DATABASE IF NOT EXISTS {database} ON CLUSTER '{cluster}';",
    ]
    for migration in migrations():
        lines.append(f"-- {migration.version:04d}_{migration.name}")
        for statement in migration.statements:
            lines.extend(_cluster_statement(statement, cluster, database))
    return "\n".join(lines) + "\n"


_SHARD_KEYS = {
    "otel_traces": "cityHash64(TraceId)",
    "agent_spans": "cityHash64(TraceId)",
    "agent_trace_index": "cityHash64(TraceId)",
    "ingest_receipts": "cityHash64(Digest)",
    "otel_traces_ingest": "cityHash64(TraceId)",
    "scores": "cityHash64(TraceId)",
    "evaluator_watermarks": "Shard",
}


def _cluster_statement(statement: str, cluster: str, database: str) -> list[str]:
    match = _CREATE.match(statement)
    if not match:
        # ALTER TABLE x ... runs on every shard's local table
        altered = re.sub(r"^ALTER TABLE (\w+)", rf"ALTER TABLE {database}.\1_local ON CLUSTER '{cluster}'",
                         statement)
        return [altered + ";"]
    kind, name = match[1], match[2]
    on_cluster = f"CREATE {kind} IF NOT EXISTS {database}.{name}_local ON CLUSTER '{cluster}'"
    body = statement[match.end():]
    if kind == "MATERIALIZED VIEW":
        body = re.sub(r"\bTO (\w+)", rf"TO {database}.\1_local", body)
        body = re.sub(r"\bFROM (\w+)", rf"FROM {database}.\1_local", body)
        return [on_cluster.replace(f"{name}_local", name) + body + ";"]
    body = re.sub(
        r"ENGINE = (\w*)MergeTree(\([^)]*\))?",
        lambda m: f"ENGINE = Replicated{m[1]}MergeTree("
        f"'/clickhouse/tables/{{shard}}/{database}/{name}', '{{replica}}'"
        + (", " + m[2][1:-1] if m[2] and m[2] != "()" else "")
        + ")",
        body,
    )
    body = body.replace(", non_replicated_deduplication_window = 10000", "")
    shard_key = _SHARD_KEYS.get(name, "rand()")
    distributed = (
        f"CREATE TABLE IF NOT EXISTS {database}.{name} ON CLUSTER '{cluster}' "
        f"AS {database}.{name}_local\n"
        f"ENGINE = Distributed('{cluster}', '{database}', '{name}_local', {shard_key});"
    )
    return [on_cluster + body + ";", distributed]
