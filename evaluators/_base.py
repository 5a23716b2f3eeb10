"""An evaluator: a name, a version and a function from a Trace to Scores.

Deterministic evaluators are plain functions. A failing evaluator yields an
error score rather than an exception, so one bad evaluator never stops the
others or the runner.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from schemas import Score, Severity, Trace

EvaluateFn = Callable[[Trace], list[Score]] | Callable[[Trace], Awaitable[list[Score]]]


@dataclass(frozen=True)
class Evaluator:
    name: str
    version: str
    fn: EvaluateFn
    description: str = ""

    @property
    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.fn)

    async def evaluate(self, trace: Trace) -> list[Score]:
        """Scores for the trace, stamped with this evaluator; an error score if it fails."""
        try:
            result: Any = self.fn(trace)
            if inspect.isawaitable(result):
                result = await result
            return self._stamp(list(result))
        except Exception as exc:
            return self._stamp([self._error(exc)])

    def evaluate_now(self, trace: Trace) -> list[Score]:
        """The same for a synchronous evaluator, without an event-loop round trip."""
        try:
            return self._stamp(list(self.fn(trace)))  # type: ignore[arg-type]
        except Exception as exc:
            return self._stamp([self._error(exc)])

    def _error(self, exc: Exception) -> Score:
        return Score(name=f"{self.name}.error", value=1.0, label="error", severity=Severity.warning,
                     explanation=f"{type(exc).__name__}: {str(exc)[:500]}")

    def _stamp(self, scores: list[Score]) -> list[Score]:
        for score in scores:
            score.evaluator, score.evaluator_version = self.name, self.version
        return scores


def evaluator(name: str, version: str = "1") -> Callable[[EvaluateFn], Evaluator]:
    """Decorator: turn `fn(trace) -> list[Score]` into a named, versioned Evaluator."""
    def wrap(fn: EvaluateFn) -> Evaluator:
        return Evaluator(name, version, fn, (fn.__doc__ or "").strip().split("\n")[0])
    return wrap
