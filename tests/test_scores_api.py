"""GET /api/scores: filters, pagination, validation and tenant scoping."""

from __future__ import annotations

import asyncio
import time

import httpx

from evaluators import RunnerSettings, StreamingRunner
from tenancy import KeysFile

from .conftest import start_service
from .otlp import protobuf_body, record_spans, trace_ids


def test_scores_are_scoped_filtered_and_paginated(settings) -> None:  # type: ignore[no-untyped-def]
    keys = KeysFile(str(settings.keys_path))
    _, key_a = keys.create("tenant-a")
    _, key_b = keys.create("tenant-b")
    svc = start_service(settings)
    try:
        a, b = {"authorization": f"Bearer {key_a}"}, {"authorization": f"Bearer {key_b}"}
        spans_a, spans_b = record_spans(traces=2), record_spans(traces=1)
        for spans, auth in ((spans_a, a), (spans_b, b)):
            httpx.post(f"{svc.url}/v1/traces", content=protobuf_body(spans),
                       headers={"content-type": "application/x-protobuf", **auth})
        time.sleep(0.8)
        asyncio.run(StreamingRunner(svc.store, RunnerSettings(grace_s=0.5)).run_once())

        def get(auth: dict[str, str], **params: object) -> httpx.Response:
            return httpx.get(f"{svc.url}/api/scores", params=params, headers=auth)

        mine = get(a, name="efficiency.tool_calls").json()["items"]
        assert {s["trace_id"] for s in mine} == set(trace_ids(spans_a))
        assert all(s["tenant"] == "tenant-a" and s["source"] == "online" and s["value"] == 2 for s in mine)
        assert get(a, trace_id=trace_ids(spans_b)[0]).json()["items"] == []  # B's trace, A's key
        assert len(get(b, name="efficiency.tool_calls").json()["items"]) == 1
        page = get(a, evaluator="efficiency", limit=5).json()
        assert len(page["items"]) == 5 and page["next_offset"] == 5
        assert {s["evaluator"] for s in get(a, severity="info").json()["items"]} >= {"efficiency"}
        assert get(a, severity="fatal").status_code == 422
        assert get(a, limit=0).status_code == 422
        assert get({}).status_code == 401
        detail = httpx.get(f"{svc.url}/api/traces/{trace_ids(spans_a)[0]}", headers=a).json()
        assert {s["evaluator"] for s in detail["scores"]} == {"injection", "refusal", "efficiency",
                                                             "tool_safety"}
    finally:
        svc.server.stop()
