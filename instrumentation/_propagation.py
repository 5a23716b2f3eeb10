"""W3C trace context and baggage across HTTP calls, so a called agent joins the caller's trace."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from opentelemetry import baggage, context
from opentelemetry.baggage.propagation import W3CBaggagePropagator
from opentelemetry.propagators.composite import CompositePropagator
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

_PROPAGATOR = CompositePropagator([TraceContextTextMapPropagator(), W3CBaggagePropagator()])


def inject_headers(headers: dict[str, str] | None = None) -> dict[str, str]:
    """`traceparent` (and `baggage`) for an outgoing request, from the current context."""
    carrier = dict(headers or {})
    _PROPAGATOR.inject(carrier)
    return carrier


@contextmanager
def continue_trace(headers: Mapping[str, str]) -> Iterator[None]:
    """Make the incoming request's trace (and baggage) current for the block."""
    token = context.attach(_PROPAGATOR.extract({k.lower(): v for k, v in headers.items()}))
    try:
        yield
    finally:
        context.detach(token)


@contextmanager
def with_baggage(items: Mapping[str, str]) -> Iterator[None]:
    """Add baggage entries (e.g. eval.run_id) that travel with outgoing requests."""
    ctx = context.get_current()
    for key, value in items.items():
        ctx = baggage.set_baggage(key, value, ctx)
    token = context.attach(ctx)
    try:
        yield
    finally:
        context.detach(token)
