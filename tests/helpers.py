"""Small builders shared by tests: an in-memory Telemetry and a scripted model on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import modelsim
from agentwatch._server import BackgroundServer
from instrumentation import ContentPolicy, Telemetry


def memory_telemetry(capture: bool = True) -> tuple[Telemetry, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Telemetry(provider, ContentPolicy(capture=capture)), exporter


@contextmanager
def scripted_model(script: dict | None = None) -> Iterator[BackgroundServer]:  # type: ignore[type-arg]
    app = modelsim.create_app(modelsim.Script.model_validate(script or {}))
    server = BackgroundServer(app).start()
    server.app = app  # type: ignore[attr-defined]
    try:
        yield server
    finally:
        server.stop()
