"""Building OTLP requests from spans the real OpenTelemetry SDK recorded."""

from __future__ import annotations

import base64
import json
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


def record_spans(traces: int = 1, tools: int = 2, service: str = "unit-agent",
                 cohort: str = "baseline", payload_chars: int = 40) -> list[ReadableSpan]:
    """Agent runs (agent -> llm -> tools) recorded by the SDK, in memory."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create(
        {"service.name": service, "service.version": "1.0.0", "agentwatch.cohort": cohort}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("tests")
    for n in range(traces):
        with tracer.start_as_current_span("invoke_agent helper", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper"}):
            with tracer.start_as_current_span("chat m", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "m", "gen_ai.usage.input_tokens": 10 + n,
                "gen_ai.usage.output_tokens": 3}):
                pass
            for t in range(tools):
                with tracer.start_as_current_span(f"execute_tool t{t}", attributes={
                    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": f"t{t}",
                    "gen_ai.tool.call.arguments": json.dumps({"q": "x" * payload_chars}),
                    "agentwatch.tool.effect": "read"}):
                    pass
    provider.shutdown()
    return list(exporter.get_finished_spans())


def request_of(spans: list[ReadableSpan]) -> ExportTraceServiceRequest:
    return encode_spans(spans)


def protobuf_body(spans: list[ReadableSpan]) -> bytes:
    return request_of(spans).SerializeToString()


def json_body(request: ExportTraceServiceRequest) -> bytes:
    """OTLP/JSON as the spec writes it: lowerCamelCase, hex ids, int64 as strings."""
    document: dict[str, Any] = MessageToDict(request)
    for rs in document.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
                if "kind" in span and isinstance(span["kind"], str):
                    span["kind"] = ["SPAN_KIND_UNSPECIFIED", "SPAN_KIND_INTERNAL", "SPAN_KIND_SERVER",
                                    "SPAN_KIND_CLIENT", "SPAN_KIND_PRODUCER",
                                    "SPAN_KIND_CONSUMER"].index(span["kind"])
    return json.dumps(document).encode()


def trace_ids(spans: list[ReadableSpan]) -> list[str]:
    return sorted({format(s.context.trace_id, "032x") for s in spans})
