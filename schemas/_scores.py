"""Scores: what an evaluator says about a trace."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field


class Severity(StrEnum):
    info = "info"
    warning = "warning"
    critical = "critical"


class Score(BaseModel):
    """One judgement about one trace; `evaluator`/`evaluator_version` are filled by the runner."""

    name: str
    value: float
    label: str = ""
    severity: Severity = Severity.info
    explanation: str = ""
    evidence_span_ids: list[str] = Field(default_factory=list)
    evaluator: str = ""
    evaluator_version: str = ""


class StoredScore(Score):
    """A score as read back: with its trace, tenant, source and context."""

    tenant: str
    trace_id: str
    source: str  # online | offline
    agent_name: str = ""
    agent_version: str = ""
    cohort: str = ""
    environment: str = ""
    eval_run_id: str = ""
    eval_case_id: str = ""
    trace_start: datetime
    scored_at: datetime
