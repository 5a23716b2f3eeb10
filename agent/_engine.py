"""The ReAct loop: model -> tool calls -> observations, until an answer or the step limit.

Each run is a fresh instance with no history. The run is an `invoke_agent`
span; each model call is a `chat` span and each tool call an `execute_tool`
span under it. Tool calls from one model turn run concurrently.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from instrumentation import Telemetry
from schemas.errors import ModelError, ToolError

from ._model import ModelClient
from ._spec import AgentSpec
from .tools import Tool


@dataclass
class ToolCall:
    call_id: str
    name: str
    arguments: str
    effect: str = "unknown"
    result: str = ""
    error: str = ""
    latency_ms: float = 0.0


@dataclass
class Step:
    """One model turn and the tool calls it asked for."""

    index: int
    text: str
    tool_calls: list[ToolCall]
    latency_ms: float
    input_tokens: int
    output_tokens: int


@dataclass
class AgentResult:
    answer: str
    status: Literal["completed", "step_limit", "error"]
    steps: list[Step] = field(default_factory=list)
    latency_ms: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    trace_id: str = ""
    error: str = ""

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class Agent:
    """Runs one spec; `run` builds a fresh conversation every time."""

    def __init__(self, spec: AgentSpec, client: ModelClient, tools: dict[str, Tool],
                 telemetry: Telemetry | None = None) -> None:
        missing = [t for t in spec.tools if t not in tools]
        if missing:
            raise ValueError(f"tools not provided: {missing}")
        self.spec = spec
        self.client = client
        self.tools = {name: tools[name] for name in spec.tools}
        self.telemetry = telemetry or client.telemetry

    async def run(self, prompt: str, *, conversation_id: str | None = None,
                  attributes: dict[str, Any] | None = None) -> AgentResult:
        started = time.perf_counter()
        result = AgentResult(answer="", status="completed")
        with self.telemetry.invoke_agent(
            self.spec.name, agent_id=self.spec.name, version=self.spec.version,
            conversation_id=conversation_id or uuid.uuid4().hex, provider=self.spec.model.provider,
            attributes=attributes,
        ) as span:
            result.trace_id = span.trace_id
            span.set_content("gen_ai.input.messages", json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": prompt}]}]))
            try:
                await self._loop(prompt, result)
            except (ModelError, TimeoutError) as exc:
                result.status = "error"
                result.error = str(exc) or "step timed out"
                span.fail(type(exc).__name__, result.error)
            if result.status == "step_limit":
                span.set("agentwatch.agent.stop_reason", "step_limit")
            span.set_answer(result.answer)
        result.latency_ms = (time.perf_counter() - started) * 1000
        return result

    async def _loop(self, prompt: str, result: AgentResult) -> None:
        spec = self.spec
        messages: list[dict[str, Any]] = [{"role": "system", "content": spec.instructions},
                                          {"role": "user", "content": prompt}]
        schemas = [tool.schema() for tool in self.tools.values()] or None
        for index in range(spec.max_steps):
            turn_started = time.perf_counter()
            completion = await asyncio.wait_for(
                self.client.complete(spec.model.model, messages, tools=schemas,
                                     temperature=spec.model.temperature),
                spec.step_timeout_s)
            result.input_tokens += completion.input_tokens
            result.output_tokens += completion.output_tokens
            messages.append(completion.message)
            calls = [ToolCall(c.get("id") or f"call_{uuid.uuid4().hex[:8]}",
                              c.get("function", {}).get("name", ""),
                              c.get("function", {}).get("arguments") or "{}")
                     for c in completion.tool_calls]
            if calls:
                await asyncio.gather(*(self._call_tool(call) for call in calls))
                for call in calls:
                    messages.append({"role": "tool", "tool_call_id": call.call_id,
                                     "content": call.result if not call.error
                                     else f"ERROR: {call.error}"})
            result.steps.append(Step(index, completion.text, calls,
                                     (time.perf_counter() - turn_started) * 1000,
                                     completion.input_tokens, completion.output_tokens))
            if not calls:
                result.answer = completion.text
                return
        result.status = "step_limit"
        result.answer = completion.text

    async def _call_tool(self, call: ToolCall) -> None:
        started = time.perf_counter()
        tool = self.tools.get(call.name)
        effect = "unknown"
        args: Any = None
        if tool is not None:
            try:
                args = tool.parse(call.arguments)
                effect = tool.effect_of(args)
            except ToolError:
                effect = tool.effect
        call.effect = effect
        with self.telemetry.execute_tool(call.name, call_id=call.call_id, effect=effect,  # type: ignore[arg-type]
                                         arguments=call.arguments,
                                         description=tool.description if tool else "") as span:
            try:
                if tool is None:
                    raise ToolError(f"no tool named {call.name!r}; available: "
                                    f"{', '.join(self.tools) or 'none'}")
                if args is None:
                    args = tool.parse(call.arguments)
                call.result = await asyncio.wait_for(tool.run(args), self.spec.step_timeout_s)
                span.set_result(call.result)
            except ToolError as exc:
                call.error = str(exc)
                span.fail("ToolError", call.error[:500])
                span.set_result(f"ERROR: {call.error}")
            except TimeoutError:
                call.error = f"the tool did not finish within {self.spec.step_timeout_s:g} s"
                span.fail("TimeoutError", call.error)
        call.latency_ms = (time.perf_counter() - started) * 1000
