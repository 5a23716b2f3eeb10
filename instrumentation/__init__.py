"""Instrument any agent: configure export to agentwatch and emit GenAI spans.

Depends only on the OpenTelemetry API and SDK (and its OTLP exporters)."""

from ._propagation import continue_trace, inject_headers, with_baggage
from ._redact import MASK, contains_secret, redact_secrets
from ._setup import configure
from ._spans import AgentStep, ChatStep, ContentPolicy, Telemetry, ToolStep, to_genai_messages

__all__ = [
    "MASK",
    "AgentStep",
    "ChatStep",
    "ContentPolicy",
    "Telemetry",
    "ToolStep",
    "configure",
    "contains_secret",
    "continue_trace",
    "inject_headers",
    "redact_secrets",
    "to_genai_messages",
    "with_baggage",
]
