"""One decoder for every OTLP trace transport: protobuf, JSON and gRPC.

Bytes become an `ExportTraceServiceRequest`; the request becomes columns in
the otel_traces layout. Spans that break the OTLP rules are counted and
described, not stored, while their valid neighbours are kept.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import DecodeError as ProtoDecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from schemas import SpanColumns
from schemas.errors import DecodeError

TENANT_ATTRIBUTE = "agentwatch.tenant"
TRUNCATION_MARKER = "…[truncated {n} chars]"

_SPAN_KIND = ("Unspecified", "Internal", "Server", "Client", "Producer", "Consumer")
_STATUS = ("Unset", "Ok", "Error")


@dataclass
class Decoded:
    columns: SpanColumns
    rejected: Counter[str] = field(default_factory=Counter)

    @property
    def rejected_count(self) -> int:
        return sum(self.rejected.values())

    def rejection_message(self) -> str:
        if not self.rejected:
            return ""
        parts = ", ".join(f"{n} {reason}" for reason, n in self.rejected.most_common())
        return f"rejected {self.rejected_count} span(s): {parts}"


def parse_protobuf(body: bytes) -> ExportTraceServiceRequest:
    try:
        return ExportTraceServiceRequest.FromString(body)
    except (ProtoDecodeError, RuntimeError, ValueError) as exc:
        raise DecodeError(f"body is not an OTLP ExportTraceServiceRequest: {exc}") from None


def parse_json(body: bytes) -> ExportTraceServiceRequest:
    """OTLP/JSON: ids are hex (protobuf JSON would say base64), the rest is proto3 JSON."""
    try:
        document = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DecodeError(f"body is not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise DecodeError("body must be a JSON object with a resourceSpans array")
    try:
        _hex_ids_to_base64(document)
        return json_format.ParseDict(
            document, ExportTraceServiceRequest(), ignore_unknown_fields=True
        )
    except (json_format.ParseError, TypeError, AttributeError) as exc:
        raise DecodeError(f"body is not OTLP/JSON: {exc}") from None


def _hex_ids_to_base64(document: dict[str, Any]) -> None:
    for resource_spans in _items(document, "resourceSpans", "resource_spans"):
        for scope_spans in _items(resource_spans, "scopeSpans", "scope_spans"):
            for span in _items(scope_spans, "spans"):
                _convert_ids(span)
                for link in _items(span, "links"):
                    _convert_ids(link)


def _items(node: Any, *keys: str) -> list[Any]:
    if not isinstance(node, dict):
        raise DecodeError("OTLP/JSON: expected an object")
    for key in keys:
        value = node.get(key)
        if value is not None:
            if not isinstance(value, list):
                raise DecodeError(f"OTLP/JSON: {key} must be an array")
            return value
    return []


def _convert_ids(node: dict[str, Any]) -> None:
    for key in ("traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id"):
        value = node.get(key)
        if isinstance(value, str) and value:
            try:
                raw = bytes.fromhex(value)
            except ValueError:
                raw = b"\x00"  # not hex: let span validation reject it with a reason
            node[key] = base64.b64encode(raw).decode()


def to_columns(
    request: ExportTraceServiceRequest, tenant: str, max_attribute_chars: int
) -> Decoded:
    """Flatten a request into otel_traces columns, setting the caller's tenant."""
    out = Decoded(SpanColumns())
    cols = out.columns
    limit = max_attribute_chars
    for resource_spans in request.resource_spans:
        resource = _attributes(resource_spans.resource.attributes, limit)
        resource[TENANT_ATTRIBUTE] = tenant
        service = resource.get("service.name", "")
        for scope_spans in resource_spans.scope_spans:
            scope_name = scope_spans.scope.name
            scope_version = scope_spans.scope.version
            for span in scope_spans.spans:
                reason = _invalid(span)
                if reason:
                    out.rejected[reason] += 1
                    continue
                start = span.start_time_unix_nano
                cols.timestamp.append(start)
                cols.trace_id.append(span.trace_id.hex())
                cols.span_id.append(span.span_id.hex())
                parent = span.parent_span_id
                cols.parent_span_id.append(parent.hex() if parent.strip(b"\x00") else "")
                cols.trace_state.append(span.trace_state)
                cols.span_name.append(span.name)
                cols.span_kind.append(_SPAN_KIND[span.kind] if span.kind < 6 else "Unspecified")
                cols.service_name.append(service)
                cols.resource_attributes.append(resource)
                cols.scope_name.append(scope_name)
                cols.scope_version.append(scope_version)
                cols.span_attributes.append(_attributes(span.attributes, limit))
                cols.duration.append(span.end_time_unix_nano - start)
                code = span.status.code
                cols.status_code.append(_STATUS[code] if code < 3 else "Unset")
                cols.status_message.append(span.status.message)
                events = span.events
                cols.events_timestamp.append([e.time_unix_nano for e in events])
                cols.events_name.append([e.name for e in events])
                cols.events_attributes.append([_attributes(e.attributes, limit) for e in events])
                links = span.links
                cols.links_trace_id.append([lk.trace_id.hex() for lk in links])
                cols.links_span_id.append([lk.span_id.hex() for lk in links])
                cols.links_trace_state.append([lk.trace_state for lk in links])
                cols.links_attributes.append([_attributes(lk.attributes, limit) for lk in links])
    return out


def _invalid(span: Any) -> str:
    trace_id, span_id = span.trace_id, span.span_id
    if len(trace_id) != 16 or not trace_id.strip(b"\x00"):
        return "invalid trace_id (must be 16 non-zero bytes)"
    if len(span_id) != 8 or not span_id.strip(b"\x00"):
        return "invalid span_id (must be 8 non-zero bytes)"
    if len(span.parent_span_id) not in (0, 8):
        return "invalid parent_span_id (must be empty or 8 bytes)"
    if span.start_time_unix_nano == 0:
        return "missing start time"
    if span.end_time_unix_nano < span.start_time_unix_nano:
        return "end time before start time"
    return ""


def _attributes(key_values: Any, limit: int) -> dict[str, str]:
    out = {}
    for kv in key_values:
        value = kv.value
        which = value.WhichOneof("value")
        text = value.string_value if which == "string_value" else _stringify(value, which)
        if len(text) > limit:
            text = text[:limit] + TRUNCATION_MARKER.format(n=len(text) - limit)
        out[kv.key] = text
    return out


def _stringify(value: AnyValue, which: str | None) -> str:
    if which == "int_value":
        return str(value.int_value)
    if which == "bool_value":
        return "true" if value.bool_value else "false"
    if which == "double_value":
        return _double(value.double_value)
    if which == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    if which in ("array_value", "kvlist_value"):
        return json.dumps(_plain(value), ensure_ascii=False, separators=(",", ":"))
    return ""


def _double(number: float) -> str:
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)


def _plain(value: AnyValue) -> Any:
    which = value.WhichOneof("value")
    if which == "string_value":
        return value.string_value
    if which == "int_value":
        return value.int_value
    if which == "bool_value":
        return value.bool_value
    if which == "double_value":
        return value.double_value
    if which == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    if which == "array_value":
        return [_plain(v) for v in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _plain(kv.value) for kv in value.kvlist_value.values}
    return None
