"""What a tool is: a name, a JSON schema from a pydantic model, an effect class, and a call."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ValidationError

from schemas.errors import ToolError

Effect = Literal["read", "propose", "mutate"]


class Tool(ABC):
    """Subclasses set `name`, `description`, `effect` and `Args`, and implement `run`."""

    name: ClassVar[str]
    description: ClassVar[str]
    effect: ClassVar[Effect]
    Args: ClassVar[type[BaseModel]]

    def schema(self) -> dict[str, Any]:
        """The OpenAI tool definition the model sees."""
        parameters = self.Args.model_json_schema()
        parameters.pop("title", None)
        return {"type": "function", "function": {
            "name": self.name, "description": self.description, "parameters": parameters}}

    def parse(self, arguments: str | dict[str, Any]) -> BaseModel:
        """Validate the model's arguments; a clear ToolError the model can read otherwise."""
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments or "{}")
            except json.JSONDecodeError as exc:
                raise ToolError(f"arguments are not valid JSON: {exc.msg}") from None
        if not isinstance(arguments, dict):
            raise ToolError("arguments must be a JSON object")
        try:
            return self.Args.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}"
                                 for e in exc.errors())
            raise ToolError(f"invalid arguments: {problems}") from None

    def effect_of(self, args: Any) -> Effect:
        """The effect of this particular call (a tool may read or write by operation)."""
        return self.effect

    @abstractmethod
    async def run(self, args: Any) -> str:
        """Do the work; raise ToolError for failures the model should read."""
