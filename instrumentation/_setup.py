"""One call to send an agent's spans to an agentwatch collector."""

from __future__ import annotations

from typing import Literal

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter

from ._redact import Redactor, redact_secrets
from ._spans import ContentPolicy, Telemetry

Cohort = Literal["baseline", "canary", "shadow"]


def configure(
    service_name: str,
    *,
    endpoint: str = "http://127.0.0.1:4318",
    api_key: str | None = None,
    service_version: str = "",
    cohort: Cohort = "baseline",
    environment: str = "",
    protocol: Literal["http/protobuf", "grpc"] = "http/protobuf",
    capture_content: bool = False,
    redact: Redactor = redact_secrets,
    resource_attributes: dict[str, str] | None = None,
    set_global: bool = False,
    exporter: SpanExporter | None = None,
) -> Telemetry:
    """Build a TracerProvider that batches spans to the collector at `endpoint`.

    `endpoint` is the collector's base URL (HTTP) or host:port (gRPC). Content
    capture is off by default, as the GenAI conventions require; when on,
    every captured text passes through `redact` first.
    """
    attributes = {"service.name": service_name, "agentwatch.cohort": cohort}
    if service_version:
        attributes["service.version"] = service_version
    if environment:
        attributes["deployment.environment.name"] = environment
    attributes.update(resource_attributes or {})
    provider = TracerProvider(resource=Resource.create(attributes))
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    if exporter is None:
        if protocol == "grpc":
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

            target = endpoint.split("://", 1)[-1]
            exporter = OTLPSpanExporter(endpoint=target, insecure=not endpoint.startswith("https"),
                                        headers=tuple(headers.items()))
        else:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
                OTLPSpanExporter as HttpExporter,
            )

            exporter = HttpExporter(endpoint=f"{endpoint.rstrip('/')}/v1/traces", headers=headers)
    provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=500))
    if set_global:
        trace.set_tracer_provider(provider)
    return Telemetry(provider, ContentPolicy(capture=capture_content, redact=redact))
