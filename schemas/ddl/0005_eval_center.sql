-- The eval center: agents, datasets, cases, runs and case results, per tenant.
-- Rows change by being written again with a newer UpdatedAt; a delete writes
-- Deleted = 1 (ReplacingMergeTree with is_deleted), and readers use FINAL.
CREATE TABLE IF NOT EXISTS eval_agents
(
    Tenant LowCardinality(String),
    Id String,
    Name String,
    Spec String CODEC(ZSTD(3)),
    CreatedAt DateTime64(3),
    UpdatedAt DateTime64(3),
    Deleted UInt8
)
ENGINE = ReplacingMergeTree(UpdatedAt, Deleted)
ORDER BY (Tenant, Id);

CREATE TABLE IF NOT EXISTS eval_datasets
(
    Tenant LowCardinality(String),
    Id String,
    Name String,
    Description String,
    CreatedAt DateTime64(3),
    UpdatedAt DateTime64(3),
    Deleted UInt8
)
ENGINE = ReplacingMergeTree(UpdatedAt, Deleted)
ORDER BY (Tenant, Id);

CREATE TABLE IF NOT EXISTS eval_cases
(
    Tenant LowCardinality(String),
    DatasetId String,
    Id String,
    Prompt String CODEC(ZSTD(3)),
    ExpectedBehavior String CODEC(ZSTD(3)),
    Assertions Array(String),
    Tags Array(String),
    CreatedAt DateTime64(3),
    UpdatedAt DateTime64(3),
    Deleted UInt8
)
ENGINE = ReplacingMergeTree(UpdatedAt, Deleted)
ORDER BY (Tenant, DatasetId, Id);

CREATE TABLE IF NOT EXISTS eval_runs
(
    Tenant LowCardinality(String),
    Id String,
    Document String CODEC(ZSTD(3)),
    Status LowCardinality(String),
    CreatedAt DateTime64(3),
    UpdatedAt DateTime64(3),
    Deleted UInt8
)
ENGINE = ReplacingMergeTree(UpdatedAt, Deleted)
ORDER BY (Tenant, Id);

CREATE TABLE IF NOT EXISTS eval_results
(
    Tenant LowCardinality(String),
    RunId String,
    CaseId String,
    Repeat UInt16,
    Document String CODEC(ZSTD(3)),
    Verdict LowCardinality(String),
    TraceId String,
    UpdatedAt DateTime64(3),
    Deleted UInt8
)
ENGINE = ReplacingMergeTree(UpdatedAt, Deleted)
ORDER BY (Tenant, RunId, CaseId, Repeat);
