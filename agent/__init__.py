"""agentwatch's own agent: an OpenAI-compatible model client, a ReAct engine and sandboxed tools."""

from ._engine import Agent, AgentResult, Step, ToolCall
from ._model import Completion, ModelClient, RetryPolicy
from ._spec import AGENT_SPEC, AgentSpec, AnyAgentSpec, ExternalAgentSpec, ModelConfig

__all__ = [
           "AGENT_SPEC",
           "Agent",
           "AgentResult",
           "AgentSpec",
           "AnyAgentSpec",
           "Completion",
           "ExternalAgentSpec",
           "ModelClient",
           "ModelConfig",
           "RetryPolicy",
           "Step",
           "ToolCall",
]
