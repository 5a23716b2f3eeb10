"""The trace list and trace detail API: filters, pagination and validation."""

from __future__ import annotations

import httpx
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

from .conftest import Service
from .otlp import record_spans, trace_ids


def _send(svc: Service, **kwargs: object) -> list[str]:
    spans = record_spans(**kwargs)  # type: ignore[arg-type]
    OTLPSpanExporter(endpoint=f"{svc.url}/v1/traces").export(spans)
    return trace_ids(spans)


def _list(service: Service, **params: object) -> httpx.Response:
    return httpx.get(f"{service.url}/api/traces", params=params, timeout=30)


def test_filters(service: Service) -> None:
    base = _send(service, traces=3, cohort="baseline", service="agent-a")
    canary = _send(service, traces=2, cohort="canary", service="agent-b")
    assert {t["trace_id"] for t in _list(service, cohort="canary").json()["items"]} == set(canary)
    assert {t["trace_id"] for t in _list(service, cohort="baseline").json()["items"]} == set(base)
    assert len(_list(service, agent="helper").json()["items"]) == 5
    assert _list(service, agent="nobody").json()["items"] == []
    assert len(_list(service, version="1.0.0").json()["items"]) == 5
    assert _list(service, has_error=True).json()["items"] == []
    assert len(_list(service, status="ok").json()["items"]) == 5
    summary = _list(service, cohort="canary").json()["items"][0]
    assert summary["span_count"] == 4 and summary["llm_calls"] == 1 and summary["tool_calls"] == 2
    assert summary["agent_name"] == "helper" and summary["root_name"] == "invoke_agent helper"


def test_cursor_pagination_visits_every_trace_once(service: Service) -> None:
    sent = set(_send(service, traces=7))
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, object] = {"limit": 3}
        if cursor:
            params["cursor"] = cursor
        page = _list(service, **params).json()
        seen.extend(t["trace_id"] for t in page["items"])
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert len(seen) == 7 and set(seen) == sent


def test_time_window(service: Service) -> None:
    _send(service, traces=2)
    assert _list(service, since="2001-01-01T00:00:00Z", until="2001-01-02T00:00:00Z").json()[
        "items"] == []


def test_validation_errors_are_422(service: Service) -> None:
    assert _list(service, limit=0).status_code == 422
    assert _list(service, cohort="purple").status_code == 422
    assert _list(service, cursor="!!!").status_code == 422
    bad_window = _list(service, since="2030-01-02T00:00:00Z", until="2030-01-01T00:00:00Z")
    assert bad_window.status_code == 422 and "before" in bad_window.json()["detail"]
    assert service.trace("not-a-trace-id").status_code == 422
    assert service.trace("0" * 32).status_code == 404


def test_openapi_lists_the_routes(service: Service) -> None:
    paths = httpx.get(f"{service.url}/openapi.json").json()["paths"]
    for path in ("/v1/traces", "/api/traces", "/api/traces/{trace_id}", "/healthz", "/readyz",
                 "/metrics"):
        assert path in paths


def test_store_outage_is_a_clear_503_on_read_routes(tmp_path, engine_path) -> None:  # type: ignore[no-untyped-def]
    import socket

    from agentwatch.settings import StoreSettings

    from .conftest import make_settings, start_service

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    svc = start_service(make_settings(tmp_path / "d", engine_path,
                                      store=StoreSettings(dsn=f"http://127.0.0.1:{port}/none")))
    try:
        for path in ("/api/traces", "/api/scores", "/api/eval/datasets"):
            response = httpx.get(f"{svc.url}{path}", timeout=30)
            assert response.status_code == 503, (path, response.text)
            assert "store is unavailable" in response.json()["detail"]
            assert response.headers["retry-after"] == "5"
    finally:
        svc.server.stop()
