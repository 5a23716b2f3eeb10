-- Scores: one row per (trace, evaluator, evaluator version, score name). Scoring
-- the same trace again with the same evaluator version replaces the row
-- (ReplacingMergeTree on ScoredAt; readers use FINAL), a new version adds rows.
CREATE TABLE IF NOT EXISTS scores
(
    Tenant LowCardinality(String),
    TraceId String,
    Name LowCardinality(String),
    Evaluator LowCardinality(String),
    EvaluatorVersion LowCardinality(String),
    Value Float64,
    Label LowCardinality(String),
    Severity LowCardinality(String),
    Explanation String CODEC(ZSTD(3)),
    EvidenceSpanIds Array(String),
    Source LowCardinality(String),
    AgentName LowCardinality(String),
    AgentVersion LowCardinality(String),
    Cohort LowCardinality(String),
    Environment LowCardinality(String),
    EvalRunId String,
    EvalCaseId String,
    TraceStart DateTime64(9),
    ScoredAt DateTime64(3),
    INDEX idx_trace TraceId TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_run EvalRunId TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = ReplacingMergeTree(ScoredAt)
PARTITION BY toYYYYMM(TraceStart)
ORDER BY (Tenant, TraceId, Evaluator, EvaluatorVersion, Name);

-- How far each streaming-runner shard has scored, so a restart resumes there.
CREATE TABLE IF NOT EXISTS evaluator_watermarks
(
    Shard UInt32,
    Shards UInt32,
    Watermark DateTime64(3),
    UpdatedAt DateTime64(3)
)
ENGINE = ReplacingMergeTree(UpdatedAt)
ORDER BY (Shards, Shard);

ALTER TABLE agent_spans ADD INDEX IF NOT EXISTS idx_ingested IngestedAt TYPE minmax GRANULARITY 1;
