"""The one settings model: environment (AGENTWATCH_*, nested with __), a TOML file, flags.

Precedence, highest first: explicit overrides (CLI flags), environment, the
TOML file, defaults. Only this module reads the environment.
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from evaluators import DEFAULT_EVALUATORS, EvaluatorConfig, RunnerSettings
from schemas.errors import UsageError


class StoreSettings(BaseModel):
    dsn: str = Field(default="", description="chdb:///path (embedded) or http(s)://user:pass@host:8123/db; "
                     "empty means the embedded engine under data_dir")
    database: str = "agentwatch"
    ttl_days: int = Field(default=30, ge=0, description="days spans are kept; 0 keeps them forever")


class ServerSettings(BaseModel):
    host: str = "127.0.0.1"
    http_port: int = Field(default=4318, ge=0, le=65535)
    grpc_port: int = Field(default=4317, ge=0, le=65535)
    grpc_enabled: bool = True
    max_body_bytes: int = Field(default=64 * 1024 * 1024, gt=0)


class WriterSettings(BaseModel):
    max_batch_rows: int = Field(default=20_000, gt=0)
    flush_interval_ms: int = Field(default=100, gt=0)
    max_queue_rows: int = Field(default=400_000, gt=0)
    retry_interval_ms: int = Field(default=2_000, gt=0)


class IngestSettings(BaseModel):
    max_attribute_chars: int = Field(
        default=32_768, gt=0, description="longer values are truncated with a marker"
    )
    dedup_window_s: int = Field(default=86_400, ge=0, description="how long a request digest is remembered")


class AuthSettings(BaseModel):
    keys_file: str = Field(default="", description="empty means data_dir/keys.json")
    required: bool | None = Field(default=None, description="None: required when keys exist or "
                                  "the service listens beyond loopback")


class EvaluationSettings(BaseModel):
    enabled: bool = Field(default=True, description="run the streaming evaluators inside serve")
    grace_s: float = Field(default=3.0, ge=0, description="quiet time after the last span")
    incomplete_after_s: float = Field(default=60.0, ge=0, description="score rootless traces after")
    poll_interval_ms: int = Field(default=1000, gt=0)
    shard: int = Field(default=0, ge=0)
    shards: int = Field(default=1, ge=1)
    batch_traces: int = Field(default=500, gt=0)
    evaluators: list[EvaluatorConfig] = Field(
        default_factory=lambda: [EvaluatorConfig(name=n) for n in DEFAULT_EVALUATORS])

    def runner_settings(self) -> RunnerSettings:
        return RunnerSettings(grace_s=self.grace_s, incomplete_after_s=self.incomplete_after_s,
                              poll_interval_s=self.poll_interval_ms / 1000, shard=self.shard,
                              shards=self.shards, batch_traces=self.batch_traces,
                              evaluators=self.evaluators)


class EvalCenterSettings(BaseModel):
    grader_base_url: str = Field(default="", description="OpenAI-compatible URL of the grader "
                                 "('fast') model; empty: the agent's own endpoint")
    grader_model: str = Field(default="", description="empty: the agent's own model")
    grader_api_key_env: str = Field(default="", description="environment variable holding its key")
    concurrency: int = Field(default=5, ge=1, le=64)
    collector_url: str = Field(default="", description="where eval agents send spans; empty: this service")
    allow_private_fetch: bool = Field(default=False, description="let web_fetch reach private addresses")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="AGENTWATCH_", env_nested_delimiter="__", extra="forbid"
    )

    data_dir: Path = Path(".agentwatch")
    log_level: str = "info"
    store: StoreSettings = Field(default_factory=StoreSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    writer: WriterSettings = Field(default_factory=WriterSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    auth: AuthSettings = Field(default_factory=AuthSettings)
    evaluation: EvaluationSettings = Field(default_factory=EvaluationSettings)
    eval: EvalCenterSettings = Field(default_factory=EvalCenterSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = os.environ.get("AGENTWATCH_CONFIG", "")
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        if toml:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=toml))
        return tuple(sources)

    # -- derived ---------------------------------------------------------
    @property
    def dsn(self) -> str:
        return self.store.dsn or f"chdb://{(self.data_dir / 'chdb').resolve()}"

    @property
    def keys_path(self) -> Path:
        return Path(self.auth.keys_file) if self.auth.keys_file else self.data_dir / "keys.json"

    @property
    def spool_dir(self) -> Path:
        return self.data_dir / "spool"

    @property
    def loopback_only(self) -> bool:
        host = self.server.host
        if host == "localhost":
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False


def load_settings(config_file: str | None = None, **overrides: Any) -> Settings:
    """Settings from a TOML file (if given), the environment and explicit overrides."""
    if config_file:
        if not Path(config_file).is_file():
            raise UsageError(f"config file {config_file} does not exist")
        os.environ["AGENTWATCH_CONFIG"] = config_file
    try:
        return Settings(**_nest(overrides))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']} (got {e.get('input')!r})"
            for e in exc.errors()
        )
        raise UsageError(f"invalid settings: {problems}") from None
    except (OSError, ValueError) as exc:  # an unreadable or malformed TOML file
        raise UsageError(f"cannot read settings: {exc}") from None


def _nest(flat: dict[str, Any]) -> dict[str, Any]:
    """{'server__host': x} -> {'server': {'host': x}}; None values are dropped."""
    out: dict[str, Any] = {}
    for key, value in flat.items():
        if value is None:
            continue
        node = out
        *parents, leaf = key.split("__")
        for parent in parents:
            node = node.setdefault(parent, {})
        node[leaf] = value
    return out
