"""OTLP/gRPC receiver: the SDK's gRPC exporter, partial success, auth and bad data."""

from __future__ import annotations

import grpc
import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.sdk.trace.export import SpanExportResult

from tenancy import KeysFile

from .conftest import Service, start_service
from .otlp import record_spans, request_of, trace_ids

METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def _call(service: Service, body: bytes, metadata: tuple = ()) -> ExportTraceServiceResponse:
    with grpc.insecure_channel(service.grpc_target) as channel:
        stub = channel.unary_unary(METHOD, request_serializer=None,
                                   response_deserializer=ExportTraceServiceResponse.FromString)
        return stub(body, metadata=metadata, timeout=30)


def test_sdk_grpc_exporter(service: Service) -> None:
    spans = record_spans(traces=2)
    exporter = OTLPSpanExporter(endpoint=service.grpc_target, insecure=True)
    assert exporter.export(spans) == SpanExportResult.SUCCESS
    exporter.shutdown()
    assert service.count() == len(spans)
    detail = service.trace(trace_ids(spans)[0]).json()
    assert {s["kind"] for s in detail["spans"]} == {"agent", "llm", "tool"}


def test_grpc_partial_success_and_dedup_shared_with_http(service: Service) -> None:
    request = request_of(record_spans(traces=1))
    request.resource_spans[0].scope_spans[0].spans[0].trace_id = b"\x01"
    body = request.SerializeToString()
    answer = _call(service, body)
    assert answer.partial_success.rejected_spans == 1
    assert "invalid trace_id" in answer.partial_success.error_message
    assert service.count() == 3
    _call(service, body)  # a retry over gRPC
    import httpx

    httpx.post(f"{service.url}/v1/traces", content=body,
               headers={"content-type": "application/x-protobuf"})  # and over HTTP
    assert service.count() == 3


def test_grpc_undecodable_is_invalid_argument(service: Service) -> None:
    with pytest.raises(grpc.RpcError) as info:
        _call(service, b"\xff\xff\xff\xff")
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not an OTLP" in info.value.details()


def test_grpc_requires_key_when_keys_exist(settings) -> None:  # type: ignore[no-untyped-def]
    _, token = KeysFile(str(settings.keys_path)).create("acme")
    svc = start_service(settings)
    try:
        body = request_of(record_spans()).SerializeToString()
        with pytest.raises(grpc.RpcError) as info:
            _call(svc, body)
        assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
        _call(svc, body, (("authorization", f"Bearer {token}"),))
        assert svc.count(where="ResourceAttributes['agentwatch.tenant'] = 'acme'") == 4
        exporter = OTLPSpanExporter(endpoint=svc.grpc_target, insecure=True,
                                    headers={"authorization": f"Bearer {token}"})
        assert exporter.export(record_spans()) == SpanExportResult.SUCCESS
        exporter.shutdown()
    finally:
        svc.server.stop()


def test_empty_request_is_fine(service: Service) -> None:
    answer = _call(service, ExportTraceServiceRequest().SerializeToString())
    assert not answer.HasField("partial_success")
