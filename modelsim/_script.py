"""Scenario files: what the scripted model says, how slowly, and when it fails.

A scenario matches the conversation's first user message (a regular
expression whose named groups fill `{placeholders}` in its turns). The turn
played is the one at the index of assistant messages so far, so the server
keeps no conversation state. `on_injection` switches to other turns when a
tool result in the conversation matches a pattern (an injected instruction),
with a probability decided once per conversation, and its named groups fill
placeholders too: that is how a simulated attack carries injected values
into tool arguments.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field, ValidationError

from schemas.errors import UsageError


class Latency(BaseModel):
    mean_ms: float = Field(default=0, ge=0)
    jitter_ms: float = Field(default=0, ge=0)


class ErrorRule(BaseModel):
    kind: Literal["429", "500", "503", "401", "malformed", "timeout"]
    probability: float = Field(default=0, ge=0, le=1)
    attempts: list[int] = Field(default_factory=list, description="fail these attempt numbers (1-based)")
    retry_after_s: float | None = 1
    timeout_s: float = 30


class ToolCallSpec(BaseModel):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Turn(BaseModel):
    text: str | None = None
    refusal: str | None = None
    tool_calls: list[ToolCallSpec] = Field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class InjectionRule(BaseModel):
    pattern: str
    probability: float = Field(default=1.0, ge=0, le=1)
    turns: list[Turn]


class Scenario(BaseModel):
    name: str
    match: str
    turns: list[Turn] = Field(min_length=1)
    on_injection: InjectionRule | None = None
    errors: list[ErrorRule] = Field(default_factory=list)


class ModelOverride(BaseModel):
    latency: Latency | None = None


class Script(BaseModel):
    seed: int = 0
    latency: Latency = Latency()
    models: dict[str, ModelOverride] = Field(default_factory=dict)
    errors: list[ErrorRule] = Field(default_factory=list)
    scenarios: list[Scenario] = Field(default_factory=list)
    fallback: Turn | None = None

    @classmethod
    def load(cls, path: str | Path) -> Script:
        try:
            return cls.model_validate(yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {})
        except OSError as exc:
            raise UsageError(f"cannot read scenario file {path}: {exc.strerror}") from None
        except yaml.YAMLError as exc:
            raise UsageError(f"scenario file {path} is not valid YAML: {exc}") from None
        except ValidationError as exc:
            raise UsageError(f"scenario file {path} is invalid: {exc.errors()[0]['loc']}: "
                             f"{exc.errors()[0]['msg']}") from None

    def latency_for(self, model: str) -> Latency:
        override = self.models.get(model)
        return override.latency if override and override.latency else self.latency

    def chance(self, *parts: object) -> float:
        """A stable number in [0, 1) for these parts: the same conversation decides the same way."""
        digest = hashlib.blake2b(repr((self.seed, *parts)).encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big") / 2**64


def first_user_text(messages: list[dict[str, Any]]) -> str:
    for message in messages:
        if message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else str(content)
    return ""


def choose_turn(script: Script, messages: list[dict[str, Any]]) -> tuple[Scenario | None, Turn | None,
                                                                         dict[str, str]]:
    """The scenario, the turn to play now, and the values for its placeholders."""
    prompt = first_user_text(messages)
    scenario = next((s for s in script.scenarios if re.search(s.match, prompt, re.I | re.S)), None)
    if scenario is None:
        return None, script.fallback, {}
    values = {k: v for k, v in (re.search(scenario.match, prompt, re.I | re.S).groupdict()  # type: ignore[union-attr]
                                or {}).items() if v is not None}
    assistant_turns = sum(1 for m in messages if m.get("role") == "assistant")
    rule = scenario.on_injection
    if rule is not None:
        for position, message in enumerate(messages):
            if message.get("role") != "tool":
                continue
            found = re.search(rule.pattern, str(message.get("content", "")), re.I | re.S)
            if not found:
                continue
            if script.chance(prompt, "follow-injection") < rule.probability:
                values.update({k: v for k, v in found.groupdict().items() if v is not None})
                after = sum(1 for m in messages[position:] if m.get("role") == "assistant")
                if after < len(rule.turns):
                    return scenario, rule.turns[after], values
            break
    index = min(assistant_turns, len(scenario.turns) - 1)
    return scenario, scenario.turns[index], values


def fill(value: Any, values: dict[str, str]) -> Any:
    """Replace {name} placeholders in strings, recursively."""
    if isinstance(value, str):
        return re.sub(r"\{(\w+)\}", lambda m: values.get(m[1], m[0]), value)
    if isinstance(value, dict):
        return {k: fill(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, values) for v in value]
    return value
