"""Stage 2: a separate, fast grader model judges the answer through a forced function call."""

from __future__ import annotations

from agent import ModelClient
from schemas.errors import ModelError

SYSTEM_PROMPT = (
    "You are an impartial AI evaluator. Your job is to judge whether an AI agent's answer meets "
    "the expected behavior for a given prompt.\n\n"
    "Be strict but fair. A \"pass\" requires the answer to genuinely address the prompt according "
    "to the expected behavior. A \"fail\" means the answer is wrong, incomplete, off-topic, or "
    "misses key requirements."
)
VERDICT_SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["pass", "fail"]},
        "reasoning": {"type": "string", "description": "Explanation of why the answer passes or fails"},
    },
    "required": ["verdict", "reasoning"],
}


def grading_message(prompt: str, expected: str, assertions: list[str], answer: str) -> str:
    listed = "\n".join(f"- {a}" for a in assertions) if assertions else "None specified"
    return (f"Original prompt:\n{prompt}\n\nExpected behavior:\n{expected}\n\n"
            f"Assertions:\n{listed}\n\nActual answer from the agent:\n{answer}")


class GraderError(Exception):
    """The grader could not give a verdict: the case is marked `error`, never pass or fail."""


async def grade(client: ModelClient, model: str, prompt: str, expected: str, assertions: list[str],
                answer: str, attempts: int = 3) -> tuple[str, str]:
    """(verdict, reasoning); retries malformed verdicts, then raises GraderError."""
    messages = [{"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": grading_message(prompt, expected, assertions, answer)}]
    problem = ""
    for _ in range(attempts):
        try:
            arguments = await client.call_function(model, messages, "submit_verdict", VERDICT_SCHEMA,
                                                   "Record the verdict for this answer")
        except ModelError as exc:
            problem = str(exc)
            continue
        verdict, reasoning = arguments.get("verdict"), arguments.get("reasoning")
        if verdict in ("pass", "fail") and isinstance(reasoning, str):
            return verdict, reasoning
        problem = f"malformed verdict: {str(arguments)[:200]}"
    raise GraderError(f"the grader failed: {problem}")
