"""agentwatch's own agent: an OpenAI-compatible model client, a ReAct engine and sandboxed tools."""

from ._engine import Agent, AgentResult, Step, ToolCall
from ._model import Completion, ModelClient, RetryPolicy
from ._spec import AgentSpec, ModelConfig

__all__ = ["Agent", "AgentResult", "AgentSpec", "Completion", "ModelClient", "ModelConfig",
           "RetryPolicy", "Step", "ToolCall"]
