"""API keys map callers to tenants; every read is scoped; keys are stored hashed."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx
import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import SpanExportResult

from agentwatch.app import build_keyring
from agentwatch.settings import ServerSettings
from schemas.errors import UsageError
from tenancy import KeysFile

from .conftest import Service, make_settings, start_service
from .otlp import protobuf_body, record_spans, trace_ids


@pytest.fixture
def two_tenants(settings):  # type: ignore[no-untyped-def]
    keys = KeysFile(str(settings.keys_path))
    _, key_a = keys.create("tenant-a")
    _, key_b = keys.create("tenant-b")
    svc = start_service(settings)
    yield svc, key_a, key_b
    svc.server.stop()


def _send(svc: Service, key: str | None, traces: int = 1) -> list[str]:
    spans = record_spans(traces=traces)
    headers = {"content-type": "application/x-protobuf"}
    if key:
        headers["authorization"] = f"Bearer {key}"
    response = httpx.post(f"{svc.url}/v1/traces", content=protobuf_body(spans), headers=headers)
    assert response.status_code == 200, response.text
    return trace_ids(spans)


def test_tenant_cannot_see_another_tenants_trace(two_tenants) -> None:  # type: ignore[no-untyped-def]
    svc, key_a, key_b = two_tenants
    [trace_a] = _send(svc, key_a)
    _send(svc, key_b, traces=2)
    auth_a = {"authorization": f"Bearer {key_a}"}
    auth_b = {"authorization": f"Bearer {key_b}"}
    assert svc.trace(trace_a, auth_a).status_code == 200
    other = svc.trace(trace_a, auth_b)
    assert other.status_code == 404 and "not found" in other.json()["detail"]
    list_a = httpx.get(f"{svc.url}/api/traces", headers=auth_a).json()["items"]
    list_b = httpx.get(f"{svc.url}/api/traces", headers=auth_b).json()["items"]
    assert [t["trace_id"] for t in list_a] == [trace_a]
    assert len(list_b) == 2 and trace_a not in {t["trace_id"] for t in list_b}
    assert {s["tenant"] for s in svc.trace(trace_a, auth_a).json()["spans"]} == {"tenant-a"}


def test_missing_or_bad_key_is_401_and_nothing_accepted_is_lost(two_tenants) -> None:  # type: ignore[no-untyped-def]
    svc, key_a, _ = two_tenants
    _send(svc, key_a)
    body = protobuf_body(record_spans())
    for headers in ({}, {"authorization": "Bearer aw_000000000000_notarealsecretnotarealsecret"},
                    {"authorization": "Basic dXNlcjpwYXNz"}):
        response = httpx.post(f"{svc.url}/v1/traces", content=body,
                              headers={"content-type": "application/x-protobuf", **headers})
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == "Bearer"
    assert httpx.get(f"{svc.url}/api/traces").status_code == 401
    assert svc.count() == 4


def test_client_cannot_claim_another_tenant(two_tenants) -> None:  # type: ignore[no-untyped-def]
    svc, key_a, _ = two_tenants
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"agentwatch.tenant": "tenant-b"}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(
        endpoint=f"{svc.url}/v1/traces", headers={"authorization": f"Bearer {key_a}"})))
    with provider.get_tracer("t").start_as_current_span("x"):
        pass
    provider.shutdown()
    assert svc.count(where="ResourceAttributes['agentwatch.tenant'] = 'tenant-b'") == 0
    assert svc.count(where="ResourceAttributes['agentwatch.tenant'] = 'tenant-a'") == 1


def test_otel_exporter_headers_env_style(two_tenants) -> None:  # type: ignore[no-untyped-def]
    svc, key_a, _ = two_tenants
    exporter = OTLPSpanExporter(endpoint=f"{svc.url}/v1/traces",
                                headers={"Authorization": f"Bearer {key_a}"})
    assert exporter.export(record_spans()) == SpanExportResult.SUCCESS


def test_revoked_key_stops_working(two_tenants) -> None:  # type: ignore[no-untyped-def]
    svc, key_a, _ = two_tenants
    _send(svc, key_a)
    key_id = key_a.split("_")[1]
    KeysFile(str(svc.settings.keys_path)).revoke(key_id)
    import time

    time.sleep(1.1)  # the key ring re-reads the file at most once a second
    response = httpx.get(f"{svc.url}/api/traces", headers={"authorization": f"Bearer {key_a}"})
    assert response.status_code == 401


def test_keys_are_stored_hashed(settings) -> None:  # type: ignore[no-untyped-def]
    key, token = KeysFile(str(settings.keys_path)).create("acme", name="ci")
    stored = settings.keys_path.read_text()
    secret = token.split("_", 2)[2]
    assert secret not in stored and key.secret_sha256 in stored
    assert oct(settings.keys_path.stat().st_mode)[-3:] == "600"


def test_loopback_without_keys_uses_default_tenant(service: Service) -> None:
    [trace_id] = _send(service, None)
    assert {s["tenant"] for s in service.trace(trace_id).json()["spans"]} == {"default"}


def test_refuses_non_loopback_without_keys(tmp_path, engine_path) -> None:  # type: ignore[no-untyped-def]
    settings = make_settings(tmp_path / "d", engine_path, server=ServerSettings(host="0.0.0.0"))
    with pytest.raises(UsageError, match="without API keys"):
        build_keyring(settings)
    KeysFile(str(settings.keys_path)).create("acme")
    assert build_keyring(settings).required


def test_cli_refuses_non_loopback_without_keys(tmp_path) -> None:  # type: ignore[no-untyped-def]
    done = subprocess.run(
        [sys.executable, "-m", "agentwatch", "serve", "--host", "0.0.0.0", "--http-port", "0",
         "--data-dir", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "without API keys" in done.stderr and "Traceback" not in done.stderr


def test_keys_cli_create_list_revoke(tmp_path) -> None:  # type: ignore[no-untyped-def]
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "agentwatch", "keys", *args,
                               "--data-dir", str(tmp_path)], capture_output=True, text=True,
                              timeout=60)

    created = cli("create", "--tenant", "acme", "--name", "ci")
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip()
    assert token.startswith("aw_")
    listed = cli("list")
    key_id = token.split("_")[1]
    assert key_id in listed.stdout and "acme" in listed.stdout and token not in listed.stdout
    assert cli("revoke", key_id).returncode == 0
    assert "revoked" in cli("list").stdout
    bad = cli("create", "--tenant", "Not A Tenant!")
    assert bad.returncode == 2 and "invalid tenant" in bad.stderr
    missing = cli("revoke", "nope")
    assert missing.returncode == 2 and "no key" in missing.stderr
    stored = json.loads((tmp_path / "keys.json").read_text())
    assert stored["keys"][0]["tenant"] == "acme"
