"""Exact arithmetic over a parsed expression: no eval, rational numbers, bounded work."""

from __future__ import annotations

import ast
import operator
from fractions import Fraction

from pydantic import BaseModel, Field

from schemas.errors import ToolError

from ._base import Tool

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_MAX_DIGITS = 1000


class _Args(BaseModel):
    expression: str = Field(..., max_length=500, description="e.g. (1.5 + 2) * 3 / 7 or 2**10")


class Calculator(Tool):
    name = "calculator"
    description = "Evaluate an arithmetic expression exactly (+ - * / // % ** and parentheses)."
    effect = "read"
    Args = _Args

    async def run(self, args: _Args) -> str:  # type: ignore[override]
        try:
            tree = ast.parse(args.expression.strip(), mode="eval")
        except SyntaxError:
            raise ToolError(f"not an arithmetic expression: {args.expression!r}") from None
        value = _eval(tree.body)
        if value.denominator == 1:
            return str(value.numerator)
        return f"{value.numerator}/{value.denominator} (≈ {float(value):.12g})"


def _eval(node: ast.AST) -> Fraction:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(
            node.value, bool):
        return Fraction(str(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        value = _eval(node.operand)
        return value if isinstance(node.op, ast.UAdd) else -value
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow):
            return _power(left, right)
        op = _BINARY.get(type(node.op))
        if op is None:
            raise ToolError(f"operator {type(node.op).__name__} is not supported")
        if right == 0 and isinstance(node.op, ast.Div | ast.FloorDiv | ast.Mod):
            raise ToolError("division by zero")
        result = Fraction(op(left, right))
        _check_size(result)
        return result
    raise ToolError(f"only numbers and arithmetic operators are allowed, not {type(node).__name__}")


def _power(base: Fraction, exponent: Fraction) -> Fraction:
    if exponent.denominator != 1:
        raise ToolError("only whole-number exponents keep the result exact")
    if abs(exponent.numerator) > 10_000:
        raise ToolError("exponent too large")
    if base == 0 and exponent < 0:
        raise ToolError("division by zero")
    bits = max(abs(base.numerator), abs(base.denominator)).bit_length()
    if bits * abs(exponent.numerator) > _MAX_DIGITS * 3.33:
        raise ToolError(f"result would have more than {_MAX_DIGITS} digits")
    return base ** exponent.numerator


def _check_size(value: Fraction) -> None:
    if max(abs(value.numerator), value.denominator).bit_length() > _MAX_DIGITS * 3.33:
        raise ToolError(f"result would have more than {_MAX_DIGITS} digits")
