"""The files under deploy/ are parsed and checked against what the code expects."""

from __future__ import annotations

from pathlib import Path

import yaml

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


def test_otel_collector_config_writes_our_table_with_a_tenant() -> None:
    config = yaml.safe_load((DEPLOY / "otel-collector.yaml").read_text())
    pipeline = config["service"]["pipelines"]["traces"]
    for kind in ("receivers", "processors", "exporters"):
        for name in pipeline[kind]:
            assert name in config[kind], f"{kind} {name} is used but not defined"
    exporter = config["exporters"]["clickhouse"]
    assert exporter["traces_table_name"] == "otel_traces"
    assert exporter["create_schema"] is False
    tenant = config["processors"]["resource/tenant"]["attributes"][0]
    assert tenant["key"] == "agentwatch.tenant" and tenant["action"] == "upsert"
    assert pipeline["processors"].index("resource/tenant") < pipeline["processors"].index("batch")
