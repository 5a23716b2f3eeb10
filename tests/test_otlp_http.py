"""OTLP/HTTP receiver: encodings, responses, and every bad input the issue lists."""

from __future__ import annotations

import gzip
import json
import os
import threading

import httpx
import pytest
from google.rpc import status_pb2
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.sdk.trace.export import SpanExportResult

from agentwatch.settings import IngestSettings, ServerSettings, WriterSettings

from .conftest import Service, make_settings, start_service
from .otlp import json_body, protobuf_body, record_spans, request_of, trace_ids

PB = {"content-type": "application/x-protobuf"}
JS = {"content-type": "application/json"}


def post(service: Service, body: bytes, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(f"{service.url}/v1/traces", content=body, headers=headers, timeout=30)


def test_sdk_exporter_protobuf_round_trip(service: Service) -> None:
    spans = record_spans(traces=3)
    exporter = OTLPSpanExporter(endpoint=f"{service.url}/v1/traces")
    assert exporter.export(spans) == SpanExportResult.SUCCESS
    assert service.count() == len(spans) == 12
    assert service.count("agent_spans") == 12
    detail = service.trace(trace_ids(spans)[0]).json()
    assert {s["kind"] for s in detail["spans"]} == {"agent", "llm", "tool"}
    assert len(detail["tree"]) == 1 and len(detail["tree"][0]["children"]) == 3


def test_json_request_is_answered_in_json(service: Service) -> None:
    spans = record_spans(traces=2)
    response = post(service, json_body(request_of(spans)), JS)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {}
    assert service.count() == len(spans)
    agent = next(s for s in service.trace(trace_ids(spans)[0]).json()["spans"] if s["kind"] == "agent")
    assert agent["agent_name"] == "helper"


def test_json_accepts_int64_as_numbers_and_unknown_fields(service: Service) -> None:
    document = json.loads(json_body(request_of(record_spans())))
    span = document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    span["startTimeUnixNano"] = int(span["startTimeUnixNano"])
    span["someFutureField"] = {"x": 1}
    response = post(service, json.dumps(document).encode(), JS)
    assert response.status_code == 200, response.text


def test_gzip_request(service: Service) -> None:
    spans = record_spans()
    response = post(service, gzip.compress(protobuf_body(spans)), {**PB, "content-encoding": "gzip"})
    assert response.status_code == 200
    assert service.count() == len(spans)


def _tampered() -> tuple[bytes, int]:
    request = request_of(record_spans(traces=1, tools=3))
    spans = request.resource_spans[0].scope_spans[0].spans
    spans[1].trace_id = b"\x01\x02\x03"  # wrong length
    spans[2].end_time_unix_nano = spans[2].start_time_unix_nano - 1  # ends before it starts
    spans[3].span_id = b"\x00" * 8  # all-zero id
    return request.SerializeToString(), len(spans) - 3


def test_partial_success_protobuf_keeps_valid_spans(service: Service) -> None:
    body, valid = _tampered()
    response = post(service, body, PB)
    assert response.status_code == 200
    answer = ExportTraceServiceResponse.FromString(response.content)
    assert answer.partial_success.rejected_spans == 3
    message = answer.partial_success.error_message
    assert "invalid trace_id" in message and "end time before start time" in message
    assert "invalid span_id" in message
    assert service.count() == valid


def test_partial_success_json(service: Service) -> None:
    body, valid = _tampered()
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    response = post(service, json_body(ExportTraceServiceRequest.FromString(body)), JS)
    assert response.status_code == 200
    partial = response.json()["partialSuccess"]
    assert partial["rejectedSpans"] == "3" and "rejected 3 span(s)" in partial["errorMessage"]
    assert service.count() == valid


def _status(response: httpx.Response) -> str:
    if response.headers["content-type"].startswith("application/json"):
        return str(response.json()["message"])
    return status_pb2.Status.FromString(response.content).message


@pytest.mark.parametrize(("body", "headers", "code", "words"), [
    (os.urandom(64) + b"\xff\xff", PB, 400, "not an OTLP"),
    (b"{not json", JS, 400, "not valid JSON"),
    (b'{"resourceSpans": 5}', JS, 400, "must be an array"),
    (b"[1, 2]", JS, 400, "JSON object"),
    (b"hello", {"content-type": "text/plain"}, 415, "unsupported content type"),
    (b"hello", {**PB, "content-encoding": "br"}, 415, "unsupported content encoding"),
    (b"not gzip at all", {**PB, "content-encoding": "gzip"}, 400, "not valid gzip"),
])
def test_bad_input_is_refused_and_nothing_accepted_is_lost(
    service: Service, body: bytes, headers: dict[str, str], code: int, words: str
) -> None:
    good = record_spans()
    assert post(service, protobuf_body(good), PB).status_code == 200
    response = post(service, body, headers)
    assert response.status_code == code
    assert words in _status(response)
    assert service.count() == len(good)


@pytest.fixture
def small_service(tmp_path, engine_path):  # type: ignore[no-untyped-def]
    settings = make_settings(
        tmp_path / "data", engine_path,
        server=ServerSettings(grpc_port=0, max_body_bytes=20_000),
        ingest=IngestSettings(max_attribute_chars=100),
    )
    svc = start_service(settings)
    yield svc
    svc.server.stop()


def test_body_over_limit_is_413(small_service: Service) -> None:
    big = protobuf_body(record_spans(traces=20, payload_chars=90))
    assert len(big) > 20_000
    response = post(small_service, big, PB)
    assert response.status_code == 413 and "limit" in _status(response)


def test_gzip_bomb_is_413(small_service: Service) -> None:
    bomb = gzip.compress(b"\x00" * 5_000_000)
    assert len(bomb) < 20_000
    response = post(small_service, bomb, {**PB, "content-encoding": "gzip"})
    assert response.status_code == 413 and "decompressed" in _status(response)


def test_oversized_attribute_is_truncated_with_marker(small_service: Service) -> None:
    spans = record_spans(payload_chars=500)
    assert post(small_service, protobuf_body(spans), PB).status_code == 200
    tool = next(s for s in small_service.trace(trace_ids(spans)[0]).json()["spans"]
                if s["kind"] == "tool")
    assert tool["tool_arguments"].startswith('{"q": "xxx')
    assert tool["tool_arguments"].endswith("…[truncated 409 chars]")


def test_same_payload_twice_is_stored_once(service: Service) -> None:
    body = protobuf_body(record_spans(traces=2))
    for _ in range(2):
        assert post(service, body, PB).status_code == 200
    assert service.count() == 8
    assert service.count("agent_spans") == 8


def test_concurrent_retries_are_stored_once(service: Service) -> None:
    body = protobuf_body(record_spans(traces=2))
    codes: list[int] = []
    threads = [threading.Thread(target=lambda: codes.append(post(service, body, PB).status_code))
               for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert codes == [200] * 6
    assert service.count() == 8


def test_full_queue_answers_429_with_retry_after(tmp_path, engine_path) -> None:  # type: ignore[no-untyped-def]
    settings = make_settings(
        tmp_path / "data", engine_path,
        writer=WriterSettings(max_queue_rows=10, max_batch_rows=1000, flush_interval_ms=1500),
    )
    svc = start_service(settings)
    try:
        first = protobuf_body(record_spans(traces=2))  # 8 spans wait for the 1.5 s flush
        results: list[httpx.Response] = []
        waiting = threading.Thread(target=lambda: results.append(post(svc, first, PB)))
        waiting.start()
        import time

        deadline = time.monotonic() + 5
        while svc.parts.writer.queued_rows == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        refused = post(svc, protobuf_body(record_spans(traces=1)), PB)
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "1"
        assert "queue full" in _status(refused)
        waiting.join()
        assert results[0].status_code == 200
        assert svc.count() == 8
    finally:
        svc.server.stop()
