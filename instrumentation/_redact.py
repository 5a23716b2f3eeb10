"""Masking secrets before anything leaves the process.

The default redactor knows the shapes that leak most: provider API keys,
bearer tokens, passwords in key=value or JSON form, cloud access keys and
payment card numbers (Luhn-checked, so order ids survive). Pass your own
callable to `configure(redact=...)` to add more.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Redactor = Callable[[str], str]
MASK = "[REDACTED]"

_PATTERNS = [
    re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}"),  # OpenAI-style keys
    re.compile(r"\baw_[0-9a-f]{12}_[A-Za-z0-9_-]{20,}"),  # agentwatch keys
    re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),  # AWS access key ids
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"),  # GitHub tokens
    re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),  # Slack tokens
    re.compile(r"(?i)(?<=bearer )[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),  # JWTs
]
_SECRET_FIELD = re.compile(
    r"""(?ix)
    (?P<key>["']?(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|token|client[_-]?secret)["']?
       \s*[:=]\s*)
    (?P<quote>["']?)(?P<value>[^"',\s}&]{3,})"""
)
_CARD = re.compile(r"\b(?:\d[ -]?){12,18}\d\b")
# a cheap first look: every shape above contains one of these
_HINTS = ("sk-", "pk-", "rk-", "aw_", "akia", "asia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "xox",
          "bearer", "eyj", "passw", "pwd", "secret", "api", "token")
_DIGIT_RUN = re.compile(r"\d{4}[ -]?\d{4}[ -]?\d{4}")


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _mask_card(match: re.Match[str]) -> str:
    digits = re.sub(r"\D", "", match.group(0))
    return MASK if 13 <= len(digits) <= 19 and _luhn_ok(digits) else match.group(0)


def contains_secret(text: str) -> bool:
    """Whether redaction would change the text (one pass for the common, clean case)."""
    if not text:
        return False
    low = text.lower()
    if not any(h in low for h in _HINTS) and not _DIGIT_RUN.search(text):
        return False
    return redact_secrets(text) != text


def redact_secrets(text: str) -> str:
    """The default redaction hook."""
    if not text:
        return text
    for pattern in _PATTERNS:
        text = pattern.sub(MASK, text)
    text = _SECRET_FIELD.sub(lambda m: f"{m['key']}{m['quote']}{MASK}", text)
    return _CARD.sub(_mask_card, text)
