"""The eval center's records: datasets of cases, agents, runs and case results."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, field_validator

MAX_PROMPT_CHARS = 32_000


class DatasetIn(BaseModel):
    name: str = Field(..., min_length=1, max_length=200)
    description: str = Field(default="", max_length=5_000)


class Dataset(DatasetIn):
    id: str
    case_count: int = 0
    created_at: datetime
    updated_at: datetime


class CaseIn(BaseModel):
    prompt: str = Field(..., min_length=1, max_length=MAX_PROMPT_CHARS)
    expected_behavior: str = Field(..., min_length=1, max_length=MAX_PROMPT_CHARS)
    assertions: list[str] = Field(default_factory=list, max_length=50)
    tags: list[str] = Field(default_factory=list, max_length=20)

    @field_validator("prompt", "expected_behavior")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("assertions")
    @classmethod
    def _assertions(cls, values: list[str]) -> list[str]:
        if any(not v.strip() or len(v) > 2_000 for v in values):
            raise ValueError("each assertion must be non-blank and at most 2000 characters")
        return values


class Case(CaseIn):
    id: str
    dataset_id: str
    created_at: datetime
    updated_at: datetime


class Verdict(StrEnum):
    passed = "pass"
    failed = "fail"
    error = "error"


class RunStatus(StrEnum):
    pending = "pending"
    running = "running"
    completed = "completed"
    failed = "failed"
    cancelled = "cancelled"


class RunIn(BaseModel):
    agent_id: str = Field(..., min_length=1)
    dataset_id: str = Field(..., min_length=1)
    repeat: int = Field(default=1, ge=1, le=20)


class Run(BaseModel):
    id: str
    agent_id: str
    agent_name: str
    dataset_id: str
    dataset_name: str
    status: RunStatus
    repeat: int = 1
    total: int = 0
    completed: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    pass_rate: float | None = None
    avg_latency_ms: float | None = None
    total_tokens: int = 0
    agent_snapshot: dict[str, Any] = Field(default_factory=dict)
    error: str = ""
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None


class CaseResult(BaseModel):
    run_id: str
    case_id: str
    repeat: int = 0
    prompt: str
    expected_behavior: str
    assertions: list[str] = Field(default_factory=list)
    verdict: Verdict
    answer: str = ""
    reasoning: str = ""
    latency_ms: float = 0.0
    grader_latency_ms: float = 0.0
    tokens: int = 0
    trace_id: str = ""
    error: str = ""
    scores: dict[str, float] = Field(default_factory=dict)


class RunDetail(Run):
    results: list[CaseResult] = Field(default_factory=list)
