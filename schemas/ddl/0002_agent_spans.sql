-- The normalized agent step: one row per span, whatever convention the
-- emitter followed (OTel GenAI current and deprecated names, OpenInference,
-- OpenLLMetry). Filled by the materialized view below, so rows that any
-- OTLP -> ClickHouse writer puts into otel_traces become scorable.
CREATE TABLE IF NOT EXISTS agent_spans
(
    Tenant LowCardinality(String),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    ParentSpanId String CODEC(ZSTD(1)),
    StartTime DateTime64(9) CODEC(Delta, ZSTD(1)),
    EndTime DateTime64(9) CODEC(Delta, ZSTD(1)),
    DurationNs UInt64 CODEC(ZSTD(1)),
    SpanName LowCardinality(String),
    Kind LowCardinality(String),
    Operation LowCardinality(String),
    AgentName LowCardinality(String),
    AgentId String CODEC(ZSTD(1)),
    AgentVersion LowCardinality(String),
    Cohort LowCardinality(String),
    Environment LowCardinality(String),
    ServiceName LowCardinality(String),
    ConversationId String CODEC(ZSTD(1)),
    Provider LowCardinality(String),
    RequestModel LowCardinality(String),
    ResponseModel LowCardinality(String),
    ToolName LowCardinality(String),
    ToolCallId String CODEC(ZSTD(1)),
    ToolArguments String CODEC(ZSTD(3)),
    ToolResult String CODEC(ZSTD(3)),
    ToolEffect LowCardinality(String),
    InputText String CODEC(ZSTD(3)),
    OutputText String CODEC(ZSTD(3)),
    InputTokens UInt64,
    OutputTokens UInt64,
    StatusCode LowCardinality(String),
    StatusMessage String CODEC(ZSTD(1)),
    ErrorType LowCardinality(String),
    EvalRunId String CODEC(ZSTD(1)),
    EvalCaseId String CODEC(ZSTD(1)),
    Attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    IngestedAt DateTime64(3) CODEC(Delta, ZSTD(1)),
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_eval_run EvalRunId TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = MergeTree
PARTITION BY toDate(StartTime)
ORDER BY (Tenant, toStartOfHour(StartTime), TraceId, SpanId)
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1, non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS agent_spans_mv TO agent_spans AS
WITH
    SpanAttributes AS a,
    ResourceAttributes AS r,
    lower(a['gen_ai.operation.name']) AS op_genai,
    upper(a['openinference.span.kind']) AS oi_kind,
    lower(a['traceloop.span.kind']) AS tl_kind,
    lower(a['llm.request.type']) AS tl_request,
    multiIf(
        op_genai != '', op_genai,
        oi_kind = 'LLM', 'chat',
        oi_kind = 'TOOL', 'execute_tool',
        oi_kind = 'AGENT', 'invoke_agent',
        oi_kind = 'RETRIEVER', 'retrieval',
        oi_kind = 'RERANKER', 'rerank',
        oi_kind = 'EMBEDDING', 'embeddings',
        oi_kind = 'CHAIN', 'invoke_workflow',
        oi_kind = 'GUARDRAIL', 'guardrail',
        oi_kind != '', lower(oi_kind),
        tl_kind = 'tool', 'execute_tool',
        tl_kind = 'agent', 'invoke_agent',
        tl_kind = 'workflow', 'invoke_workflow',
        tl_kind = 'task', 'execute_task',
        tl_request = 'completion', 'text_completion',
        tl_request = 'embedding', 'embeddings',
        tl_request != '', tl_request,
        a['gen_ai.request.model'] != '' OR a['gen_ai.system'] != '', 'chat',
        ''
    ) AS op,
    multiIf(
        op IN ('invoke_agent', 'create_agent'), 'agent',
        op IN ('chat', 'text_completion', 'generate_content', 'embeddings', 'rerank_model'), 'llm',
        op = 'execute_tool', 'tool',
        op IN ('retrieval', 'rerank', 'vector_db_retrieve'), 'retriever',
        op = 'guardrail', 'guardrail',
        'other'
    ) AS kind,
    arrayFirst(x -> x != '', [a['agentwatch.cohort'], r['agentwatch.cohort']]) AS cohort_raw,
    -- flattened message lists (OpenInference, legacy OpenLLMetry), joined in index order
    arrayStringConcat(arrayMap(k -> a[k], arraySort(k -> toUInt32OrZero(extract(k, '\\.(\\d+)\\.')),
        arrayFilter(k -> match(k, '^(gen_ai\\.prompt\\.\\d+\\.content|llm\\.input_messages\\.\\d+\\.message\\.content)$'), mapKeys(a)))), '\n') AS flat_input,
    arrayStringConcat(arrayMap(k -> a[k], arraySort(k -> toUInt32OrZero(extract(k, '\\.(\\d+)\\.')),
        arrayFilter(k -> match(k, '^(gen_ai\\.completion\\.\\d+\\.content|llm\\.output_messages\\.\\d+\\.message\\.content)$'), mapKeys(a)))), '\n') AS flat_output,
    multiIf(StatusCode IN ('Error', 'STATUS_CODE_ERROR', 'error'), 'error',
            StatusCode IN ('Ok', 'STATUS_CODE_OK', 'ok'), 'ok', 'unset') AS status
SELECT
    if(r['agentwatch.tenant'] != '', r['agentwatch.tenant'], 'default') AS Tenant,
    TraceId,
    SpanId,
    ParentSpanId,
    Timestamp AS StartTime,
    fromUnixTimestamp64Nano(toUnixTimestamp64Nano(Timestamp) + toInt64(Duration)) AS EndTime,
    Duration AS DurationNs,
    SpanName,
    kind AS Kind,
    op AS Operation,
    arrayFirst(x -> x != '', [a['gen_ai.agent.name'], a['agent.name'],
        if(kind = 'agent', a['traceloop.entity.name'], '')]) AS AgentName,
    arrayFirst(x -> x != '', [a['gen_ai.agent.id'], a['agent.id']]) AS AgentId,
    arrayFirst(x -> x != '', [a['gen_ai.agent.version'], a['agentwatch.agent.version'],
        r['service.version']]) AS AgentVersion,
    if(cohort_raw IN ('baseline', 'canary', 'shadow'), cohort_raw, 'baseline') AS Cohort,
    arrayFirst(x -> x != '', [r['deployment.environment.name'], r['deployment.environment'],
        a['deployment.environment.name'], a['deployment.environment']]) AS Environment,
    ServiceName,
    arrayFirst(x -> x != '', [a['gen_ai.conversation.id'], a['session.id'],
        a['traceloop.association.properties.session_id']]) AS ConversationId,
    lower(arrayFirst(x -> x != '', [a['gen_ai.provider.name'], a['gen_ai.system'], a['llm.provider'],
        a['llm.system']])) AS Provider,
    arrayFirst(x -> x != '', [a['gen_ai.request.model'], a['llm.request.model'],
        a['llm.model_name']]) AS RequestModel,
    arrayFirst(x -> x != '', [a['gen_ai.response.model'], a['llm.response.model'],
        a['llm.model_name'], a['gen_ai.request.model']]) AS ResponseModel,
    arrayFirst(x -> x != '', [a['gen_ai.tool.name'], a['tool.name'],
        if(kind = 'tool', a['traceloop.entity.name'], '')]) AS ToolName,
    arrayFirst(x -> x != '', [a['gen_ai.tool.call.id'], a['tool_call.id'], a['tool.id']]) AS ToolCallId,
    if(kind = 'tool', arrayFirst(x -> x != '', [a['gen_ai.tool.call.arguments'], a['input.value'],
        a['traceloop.entity.input'], a['tool.parameters']]), '') AS ToolArguments,
    if(kind = 'tool', arrayFirst(x -> x != '', [a['gen_ai.tool.call.result'], a['output.value'],
        a['traceloop.entity.output']]), '') AS ToolResult,
    if(kind = 'tool',
        if(a['agentwatch.tool.effect'] IN ('read', 'propose', 'mutate'), a['agentwatch.tool.effect'], 'unknown'),
        '') AS ToolEffect,
    if(kind = 'tool', '', arrayFirst(x -> x != '', [a['gen_ai.input.messages'], flat_input, a['input.value'],
        Events.Attributes[indexOf(Events.Name, 'gen_ai.content.prompt')]['gen_ai.prompt'],
        a['traceloop.entity.input']])) AS InputText,
    if(kind = 'tool', '', arrayFirst(x -> x != '', [a['gen_ai.output.messages'], flat_output, a['output.value'],
        Events.Attributes[indexOf(Events.Name, 'gen_ai.content.completion')]['gen_ai.completion'],
        a['traceloop.entity.output']])) AS OutputText,
    toUInt64OrZero(arrayFirst(x -> x != '', [a['gen_ai.usage.input_tokens'], a['gen_ai.usage.prompt_tokens'],
        a['llm.token_count.prompt'], a['llm.usage.prompt_tokens']])) AS InputTokens,
    toUInt64OrZero(arrayFirst(x -> x != '', [a['gen_ai.usage.output_tokens'], a['gen_ai.usage.completion_tokens'],
        a['llm.token_count.completion'], a['llm.usage.completion_tokens']])) AS OutputTokens,
    status AS StatusCode,
    StatusMessage,
    arrayFirst(x -> x != '', [a['error.type'],
        Events.Attributes[indexOf(Events.Name, 'exception')]['exception.type']]) AS ErrorType,
    arrayFirst(x -> x != '', [a['eval.run_id'], r['eval.run_id']]) AS EvalRunId,
    arrayFirst(x -> x != '', [a['eval.case_id'], r['eval.case_id']]) AS EvalCaseId,
    mapFilter((k, v) -> NOT (k IN ('gen_ai.input.messages', 'gen_ai.output.messages', 'input.value',
        'output.value', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result', 'traceloop.entity.input',
        'traceloop.entity.output')
        OR match(k, '^(gen_ai\\.(prompt|completion)\\.\\d+\\.content|llm\\.(input|output)_messages\\.\\d+\\.message\\.content)$')),
        a) AS Attributes,
    r AS ResourceAttributes,
    now64(3) AS IngestedAt
FROM otel_traces;

-- Where each trace lies in time, so a trace is found by id without a scan.
CREATE TABLE IF NOT EXISTS agent_trace_index
(
    Tenant LowCardinality(String),
    TraceId String,
    Start DateTime64(9),
    End DateTime64(9)
)
ENGINE = MergeTree
PARTITION BY toDate(Start)
ORDER BY (Tenant, TraceId)
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS agent_trace_index_mv TO agent_trace_index AS
SELECT Tenant, TraceId, min(StartTime) AS Start, max(EndTime) AS End
FROM agent_spans
GROUP BY Tenant, TraceId;
