"""An agent is a spec: what model, what instructions, which tools, what limits."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Discriminator, Field, Tag, TypeAdapter


class ModelConfig(BaseModel):
    base_url: str = Field(..., description="OpenAI-compatible base URL, e.g. https://api.openai.com/v1")
    model: str
    api_key_env: str = Field(default="", description="environment variable holding the key (never the key)")
    provider: str = "openai"
    temperature: float | None = None
    timeout_s: float = Field(default=60.0, gt=0)


class AgentSpec(BaseModel):
    """agentwatch's own ReAct agent."""

    kind: Literal["builtin"] = "builtin"
    name: str = Field(..., min_length=1, max_length=100)
    version: str = "0.0.0"
    model: ModelConfig
    instructions: str = Field(default="You are a helpful assistant.", max_length=50_000)
    tools: list[str] = Field(default_factory=list)
    max_steps: int = Field(default=8, ge=1, le=100)
    step_timeout_s: float = Field(default=120.0, gt=0)


class ExternalAgentSpec(BaseModel):
    """An agent reached over HTTP: a JSON endpoint ({"prompt"} -> {"answer"}) or an
    OpenAI-compatible chat endpoint. W3C trace context goes with every call."""

    kind: Literal["http"] = "http"
    name: str = Field(..., min_length=1, max_length=100)
    version: str = "0.0.0"
    url: str = Field(..., pattern=r"^https?://", description="the JSON endpoint, or the OpenAI base URL")
    protocol: Literal["json", "openai"] = "json"
    model: str = Field(default="", description="for the openai protocol")
    api_key_env: str = Field(default="", description="environment variable holding a bearer key")
    timeout_s: float = Field(default=120.0, gt=0)


def _kind(value: Any) -> str:
    """Specs without a `kind` are agentwatch's own agent."""
    raw = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
    return str(raw or "builtin")


AnyAgentSpec = Annotated[Annotated[AgentSpec, Tag("builtin")] | Annotated[ExternalAgentSpec, Tag("http")],
                         Discriminator(_kind)]
AGENT_SPEC = TypeAdapter(AnyAgentSpec)
