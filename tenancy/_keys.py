"""API keys: created once, shown once, stored hashed in a keys file.

A key looks like `aw_<key id>_<secret>`. The file keeps the key id, the
tenant and a SHA-256 of the secret; keys are random 256-bit values, so a fast
hash is enough (there is nothing to brute-force). The service reloads the file
when it changes, so `agentwatch keys ...` works while `agentwatch serve` runs.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import tempfile
import threading
import time
from dataclasses import asdict, dataclass

from schemas.errors import AuthError, UsageError

DEFAULT_TENANT = "default"
_TENANT = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,62}$")


@dataclass
class ApiKey:
    key_id: str
    tenant: str
    secret_sha256: str
    name: str = ""
    created_at: float = 0.0
    revoked_at: float | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class KeysFile:
    """The keys file on disk; writes are atomic (temp file + rename)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def load(self) -> list[ApiKey]:
        try:
            with open(self.path, encoding="utf-8") as fh:
                document = json.load(fh)
        except FileNotFoundError:
            return []
        except (OSError, json.JSONDecodeError) as exc:
            raise UsageError(f"cannot read keys file {self.path}: {exc}") from None
        return [ApiKey(**entry) for entry in document.get("keys", [])]

    def save(self, keys: list[ApiKey]) -> None:
        directory = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".keys-")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"keys": [asdict(k) for k in keys]}, fh, indent=2)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, self.path)

    def create(self, tenant: str, name: str = "") -> tuple[ApiKey, str]:
        """Add a key; returns it and the full secret token, which is never stored."""
        if not _TENANT.match(tenant):
            raise UsageError(
                f"invalid tenant {tenant!r}: lowercase letters, digits, '.', '_' or '-', "
                "up to 63 characters"
            )
        key_id = secrets.token_hex(6)
        secret = secrets.token_urlsafe(32)
        key = ApiKey(key_id, tenant, _hash(secret), name, time.time())
        keys = self.load()
        keys.append(key)
        self.save(keys)
        return key, f"aw_{key_id}_{secret}"

    def revoke(self, key_id: str) -> ApiKey:
        keys = self.load()
        for key in keys:
            if key.key_id == key_id:
                if key.revoked_at is None:
                    key.revoked_at = time.time()
                    self.save(keys)
                return key
        raise UsageError(f"no key with id {key_id!r}")


class KeyRing:
    """Resolves an Authorization header to a tenant, reloading the keys file when it changes."""

    def __init__(self, keys_file: KeysFile | None, required: bool) -> None:
        self._file = keys_file
        self.required = required
        self._by_id: dict[str, ApiKey] = {}
        self._mtime: float | None = None
        self._checked_at = 0.0
        self._lock = threading.Lock()
        self._reload()

    @property
    def active_keys(self) -> int:
        self._maybe_reload()
        return sum(1 for k in self._by_id.values() if k.active)

    def tenant_for(self, authorization: str | None) -> str:
        """The caller's tenant; raises AuthError when a key is required and not valid."""
        if not authorization:
            if self.required:
                raise AuthError("missing API key: send 'Authorization: Bearer <key>'")
            return DEFAULT_TENANT
        token = authorization.strip()
        scheme, _, rest = token.partition(" ")
        if scheme.lower() == "bearer":
            token = rest.strip()
        self._maybe_reload()
        match = re.fullmatch(r"aw_([0-9a-f]{12})_([A-Za-z0-9_-]{20,})", token)
        key = self._by_id.get(match[1]) if match else None
        if key is None or not key.active or not hmac.compare_digest(
            key.secret_sha256, _hash(match[2] if match else "")
        ):
            if not self.required and not self._by_id:
                return DEFAULT_TENANT
            raise AuthError("invalid or revoked API key")
        return key.tenant

    def _maybe_reload(self) -> None:
        now = time.monotonic()
        if self._file is None or now - self._checked_at < 1.0:
            return
        self._checked_at = now
        self._reload()

    def _reload(self) -> None:
        if self._file is None:
            return
        try:
            mtime = os.stat(self._file.path).st_mtime
        except FileNotFoundError:
            mtime = None
        with self._lock:
            if mtime == self._mtime and self._by_id:
                return
            self._by_id = {k.key_id: k for k in self._file.load()}
            self._mtime = mtime
