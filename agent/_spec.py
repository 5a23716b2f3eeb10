"""An agent is a spec: what model, what instructions, which tools, what limits."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ModelConfig(BaseModel):
    base_url: str = Field(..., description="OpenAI-compatible base URL, e.g. https://api.openai.com/v1")
    model: str
    api_key_env: str = Field(default="", description="environment variable holding the key (never the key)")
    provider: str = "openai"
    temperature: float | None = None
    timeout_s: float = Field(default=60.0, gt=0)


class AgentSpec(BaseModel):
    name: str = Field(..., min_length=1, max_length=100)
    version: str = "0.0.0"
    model: ModelConfig
    instructions: str = Field(default="You are a helpful assistant.", max_length=50_000)
    tools: list[str] = Field(default_factory=list)
    max_steps: int = Field(default=8, ge=1, le=100)
    step_timeout_s: float = Field(default=120.0, gt=0)
