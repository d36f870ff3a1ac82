"""Configuration from the environment (and a `.env` file when present)."""

from __future__ import annotations

from pathlib import Path

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

CHECKOUT = Path(__file__).resolve().parent.parent
# How long a client may take to send a body before its request is answered 408 (plus time for a
# large declared upload: gateway/http/body.py).
BODY_READ_TIMEOUT_SECONDS = 30.0


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SKILLMEM_", env_file=".env", extra="ignore")

    database_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("DATABASE_URL", "SKILLMEM_DATABASE_URL"),
        description="PostgreSQL to use; unset starts the embedded server.",
    )
    database_app_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("DATABASE_APP_URL", "SKILLMEM_DATABASE_APP_URL"),
        description="The login role requests run as (skillmem_api or another member of "
        "skillmem_app); unset: skillmem_api on the embedded server, DATABASE_URL otherwise.",
    )
    data_dir: Path = Field(
        default=CHECKOUT / ".data" / "postgres",
        description="Where the embedded server keeps its data.",
    )
    host: str = "127.0.0.1"
    port: int = 8000
    introspection: bool = Field(default=True, description="Introspection and GraphiQL.")
    pool_min_size: int = 2
    pool_max_size: int = 10
    max_depth: int = 10
    max_tokens: int = 2_000
    max_aliases: int = 15
    document_cache_size: int = 1_024
    log_level: str = "info"
    body_read_timeout: float = Field(
        default=BODY_READ_TIMEOUT_SECONDS,
        description="Seconds a client may take to send a whole request body.",
    )

    # --- the Dreamer's worker (issue 10, item 4): `skillmem worker`, and one in `serve` ------
    worker: bool = Field(
        default=True,
        description="Run one Dreamer worker in the serving process (`skillmem serve`).",
    )
    worker_concurrency: int = Field(
        default=1, ge=1, description="Passes one worker runs at once (`--concurrency`)."
    )
    worker_poll_seconds: float = Field(
        default=15.0,
        gt=0,
        description="How often a worker reads the schedule (and looks for a dead worker's "
        "job) when no NOTIFY skillmem_dreamer woke it.",
    )
    worker_heartbeat_seconds: float = Field(
        default=30.0,
        gt=0,
        description="A job whose worker sent no heartbeat for this long (it beats every half "
        "of it) is run again by another worker.",
    )
