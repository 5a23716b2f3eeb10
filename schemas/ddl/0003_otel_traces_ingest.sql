-- The collector's entry point: the otel_traces layout with plain String and
-- Map(String, String) types, stored nowhere (Null engine). Its view converts
-- into otel_traces in C++; the collector's Python side is spared the
-- LowCardinality encoding, which was a third of its insert time.
CREATE TABLE IF NOT EXISTS otel_traces_ingest
(
    Timestamp DateTime64(9),
    TraceId String,
    SpanId String,
    ParentSpanId String,
    TraceState String,
    SpanName String,
    SpanKind String,
    ServiceName String,
    ResourceAttributes Map(String, String),
    ScopeName String,
    ScopeVersion String,
    SpanAttributes Map(String, String),
    Duration UInt64,
    StatusCode String,
    StatusMessage String,
    `Events.Timestamp` Array(DateTime64(9)),
    `Events.Name` Array(String),
    `Events.Attributes` Array(Map(String, String)),
    `Links.TraceId` Array(String),
    `Links.SpanId` Array(String),
    `Links.TraceState` Array(String),
    `Links.Attributes` Array(Map(String, String))
)
ENGINE = Null;

CREATE MATERIALIZED VIEW IF NOT EXISTS otel_traces_ingest_mv TO otel_traces AS
SELECT * FROM otel_traces_ingest;
