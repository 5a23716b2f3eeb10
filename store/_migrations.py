"""Applying the DDL files in order, once each, recorded in `schema_migrations`."""

from __future__ import annotations

import logging

from clickhouse_connect.driver.client import Client

from schemas.errors import StoreError

from ._ddl import TTL_COLUMNS, migrations

log = logging.getLogger("agentwatch.store")

_LEDGER = """
CREATE TABLE IF NOT EXISTS schema_migrations
(
    Version UInt32,
    Name String,
    Checksum String,
    AppliedAt DateTime64(3) DEFAULT now64(3)
)
ENGINE = MergeTree
ORDER BY Version
"""


def applied_versions(client: Client) -> dict[int, str]:
    client.command(_LEDGER)
    rows = client.query("SELECT Version, Checksum FROM schema_migrations").result_rows
    return {int(v): str(c) for v, c in rows}


def pending(client: Client) -> list[int]:
    done = applied_versions(client)
    return [m.version for m in migrations() if m.version not in done]


def apply(client: Client) -> list[str]:
    """Apply what is missing; return the names applied (empty on a second start)."""
    done = applied_versions(client)
    applied = []
    for migration in migrations():
        if migration.version in done:
            if done[migration.version] != migration.checksum:
                log.warning(
                    "migration %04d_%s changed after it was applied; not re-applied",
                    migration.version,
                    migration.name,
                )
            continue
        for statement in migration.statements:
            try:
                client.command(statement)
            except Exception as exc:
                raise StoreError(
                    f"migration {migration.version:04d}_{migration.name} failed: "
                    f"{str(exc).splitlines()[0][:300]}"
                ) from exc
        client.insert(
            "schema_migrations",
            [[migration.version, migration.name, migration.checksum]],
            column_names=["Version", "Name", "Checksum"],
        )
        applied.append(f"{migration.version:04d}_{migration.name}")
        log.info("applied migration %04d_%s", migration.version, migration.name)
    return applied


def apply_ttl(client: Client, ttl_days: int) -> None:
    """Set (or remove, for 0) the retention TTL on the time-series tables."""
    for table, column in TTL_COLUMNS.items():
        current = client.command(
            "SELECT create_table_query FROM system.tables "
            "WHERE database = currentDatabase() AND name = {t:String}",
            parameters={"t": table},
        )
        has_ttl = " TTL " in str(current)
        if ttl_days > 0:
            wanted = f"TTL {column} + toIntervalDay({ttl_days})"
            if wanted in str(current):
                continue
            client.command(
                f"ALTER TABLE {table} MODIFY TTL {column} + INTERVAL {int(ttl_days)} DAY",
                settings={"materialize_ttl_after_modify": 0},
            )
        elif has_ttl:
            client.command(f"ALTER TABLE {table} REMOVE TTL")
