"""Configuration from the environment (and a `.env` file when present)."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from gateway import supervisor
from gateway.supervisor import Policy as SupervisionPolicy
from resolvers.catalog import settings as catalog_defaults
from resolvers.catalog.settings import CatalogSettings
from resolvers.memory.dreamer.batching import FULL_BATCH, GROUP_WAIT, QUICK_WAIT
from resolvers.memory.dreamer.chat_settings import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT_SECONDS,
    ReasoningEffort,
)
from resolvers.memory.dreamer.rules import RULES_READER
from resolvers.skills.archive.limits import MAX_ARCHIVE_BYTES

CHECKOUT = Path(__file__).resolve().parent.parent
# How long a client may take to send a body before its request is answered 408 (plus time for a
# large declared upload: gateway/http/body.py).
BODY_READ_TIMEOUT_SECONDS = 30.0
# The browser apps of local development `serve --demo` (and `make run`) lets in: the usual dev
# servers' ports on localhost, and any port on 127.0.0.1.
LOCAL_CORS_ORIGINS = ("http://localhost:3000", "http://localhost:5173")
LOCAL_CORS_ORIGIN_REGEX = r"http://127\.0\.0\.1(:[0-9]{1,5})?"
# An origin no allowed list names on purpose: a pattern that lets it in lets in any origin.
_ANY_ORIGIN = "https://any-origin.invalid"


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
    planned_execution: bool = Field(
        default=True,
        description="Complete plain subtrees by the planned executor (schema/planned.py); "
        "false runs graphql-core alone (the same data and errors, slower).",
    )
    fast_path: bool = Field(
        default=True,
        description="Run a cached query of one direct root field with a plan without "
        "graphql-core's executor (schema/fast.py); false: graphql-core always (the same "
        "data and errors, slower). Only with planned_execution.",
    )
    log_level: str = "info"
    # What an operator sees (README "Metrics and tracing"; gateway/observe/).
    log_format: Literal["json", "text"] = Field(
        default="json",
        description="Log lines as one JSON object each (with the request id), or plain text.",
    )
    metrics_token: SecretStr | None = Field(
        default=None,
        description="The bearer token `/metrics` answers (a scraper's, not a workspace's).",
    )
    metrics_public: bool = Field(
        default=False, description="`/metrics` answers anyone (no token); off by default."
    )
    worker_metrics_port: int | None = Field(
        default=None,
        description="A `skillmem worker` process serves its metrics on this port (off by "
        "default; `serve` shows its worker's at `/metrics`).",
    )
    tracing: Literal["off", "otlp", "console"] = Field(
        default="off",
        description="OpenTelemetry traces of requests and SQL: off, otlp (to the "
        "OTEL_EXPORTER_OTLP_* endpoint) or console.",
    )
    tracing_service_name: str = Field(
        default="skillmem", description="The service.name the traces carry."
    )
    body_read_timeout: float = Field(
        default=BODY_READ_TIMEOUT_SECONDS,
        description="Seconds a client may take to send a whole request body.",
    )
    # The Dreamer's reader (README "Plugging in a model"; gateway/dreamer_reader.py).
    dreamer_reader: str = Field(
        default=RULES_READER,
        description="The Dreamer's reader: 'rules' (no model, free), 'openai' (an "
        "OpenAI-compatible chat model, the dreamer_model settings) or "
        "'package.module:attribute' (a reader of your own).",
    )
    dreamer_model_base_url: str | None = Field(
        default=None,
        description="The chat model's OpenAI-compatible API (https://api.openai.com/v1, or a "
        "local server's /v1).",
    )
    dreamer_model: str | None = Field(default=None, description="The chat model's name.")
    dreamer_model_api_key: SecretStr | None = Field(
        default=None, description="The chat model's API key."
    )
    dreamer_model_reasoning_effort: ReasoningEffort | None = Field(
        default=None,
        description="The reasoning effort asked of the model (the seed runs the Dreamer at "
        "'low'); unset sends none, as a model without reasoning refuses it.",
    )
    dreamer_model_timeout: float = Field(
        default=DEFAULT_TIMEOUT_SECONDS,
        gt=0,
        description="Seconds to wait for the model's answer before the pass keeps its items for "
        "a retry.",
    )
    dreamer_model_max_retries: int = Field(
        default=DEFAULT_MAX_RETRIES,
        ge=0,
        description="Times a timeout, a lost connection, a 429 or a 5xx is retried, with backoff.",
    )
    dreamer_price_input_per_mtok: Decimal = Field(
        default=Decimal(0),
        ge=0,
        description="USD per million tokens the reader reads (charged to the allowances).",
    )
    dreamer_price_output_per_mtok: Decimal = Field(
        default=Decimal(0),
        ge=0,
        description="USD per million tokens the reader writes (charged to the allowances).",
    )
    # When a page owner's pass is due (resolvers/memory/dreamer/batching.py).
    dreamer_group_wait_seconds: float = Field(
        default=GROUP_WAIT.total_seconds(),
        gt=0,
        description="A pass waits this long after its oldest item, to group items.",
    )
    dreamer_quick_wait_seconds: float = Field(
        default=QUICK_WAIT.total_seconds(),
        ge=0,
        description="... only this long after a remember-request or a proposal.",
    )
    dreamer_full_batch: int = Field(
        default=FULL_BATCH,
        ge=1,
        description="... and not at all once this many items wait.",
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

    # --- the embedded PostgreSQL's supervisor (issue 16, item 1; gateway/supervisor.py) -----
    embedded_check_seconds: float = Field(
        default=supervisor.CHECK_INTERVAL_SECONDS,
        gt=0,
        description="How often a process that started the embedded server checks its "
        "postmaster still runs.",
    )
    embedded_restart_attempts: int = Field(
        default=supervisor.RESTART_ATTEMPTS,
        ge=1,
        description="Times a dead embedded server is started again before giving up.",
    )
    embedded_restart_backoff_seconds: float = Field(
        default=supervisor.BACKOFF_SECONDS,
        ge=0,
        description="Seconds after the first failed restart, doubled after each next one.",
    )
    embedded_restart_backoff_max_seconds: float = Field(
        default=supervisor.BACKOFF_MAX_SECONDS,
        ge=0,
        description="The longest wait between two restart attempts.",
    )

    # --- the catalogue's outside sources (issue 15, item 2; resolvers/catalog/) ---------------
    catalog_directory_base_url: str = Field(
        default=catalog_defaults.DEFAULT_DIRECTORY_BASE_URL,
        pattern=r"^https?://",
        description="The community directory (skills.sh-style: GET /api/search?q=&limit=).",
    )
    catalog_source_base_url: str = Field(
        default=catalog_defaults.DEFAULT_SOURCE_BASE_URL,
        pattern=r"^https?://",
        description="The repositories' GitHub-style API (GET /repos/{owner}/{repo}/commits/{ref} "
        "and /tarball/{sha}).",
    )
    catalog_source_token: SecretStr | None = Field(
        default=None, description="A bearer token for the repositories' API (higher limits)."
    )
    catalog_timeout: float = Field(
        default=catalog_defaults.DEFAULT_TIMEOUT_SECONDS,
        gt=0,
        description="Seconds one attempt at the directory or a source may take, body included.",
    )
    catalog_max_retries: int = Field(
        default=catalog_defaults.DEFAULT_MAX_RETRIES,
        ge=0,
        description="Times a lost connection, a timeout, a 429 or a 5xx is retried (GETs only).",
    )
    catalog_backoff: float = Field(
        default=catalog_defaults.DEFAULT_BACKOFF_SECONDS,
        ge=0,
        description="Seconds before the first retry, doubled for each next one (at most 8).",
    )
    catalog_max_json_bytes: int = Field(
        default=catalog_defaults.DEFAULT_MAX_JSON_BYTES,
        gt=0,
        description="The largest answer read from the directory, a source's API or an index.",
    )
    catalog_max_archive_bytes: int = Field(
        default=MAX_ARCHIVE_BYTES,
        gt=0,
        description="The largest archive read from a source (an upload's limit by default).",
    )
    catalog_approval_seconds: int = Field(
        default=catalog_defaults.DEFAULT_APPROVAL_SECONDS,
        gt=0,
        description="Seconds a person has to decide an agent's install or community search "
        "before the approval expires.",
    )

    # --- principal cache (issue 17, item 1; db/principal_cache.py) --------------------------
    principal_cache_seconds: float = Field(
        default=5.0,
        ge=0,
        description="Seconds a resolved token's principal is kept in the process, so that its "
        "next requests send their settings with BEGIN (each still checked fresh in its "
        "transaction); 0 turns the cache off.",
    )
    principal_cache_size: int = Field(
        default=10_000, ge=0, description="Most principals kept by the cache (oldest dropped)."
    )

    # --- persisted operations (issue 17, item 3; gateway/http/persisted.py) ----------------
    persisted_queries: bool = Field(
        default=True,
        description="Apollo's automatic persisted queries on /graphql (a query sent by its "
        "SHA-256 once registered); off: such requests answer PersistedQueryNotSupported.",
    )
    persisted_queries_max_documents: int = Field(
        default=1_000, ge=0, description="Most documents registered by hash, all workspaces."
    )
    persisted_queries_max_chars: int = Field(
        default=4_000_000, ge=0, description="Most characters of all the registered documents."
    )
    trusted_documents: Path | None = Field(
        default=None,
        description="A persisted-query manifest (Apollo's format): /graphql then runs only its "
        "operations, by hash or by their exact text, and refuses any other.",
    )

    @field_validator("trusted_documents")
    @classmethod
    def _usable_manifest(cls, value: Path | None) -> Path | None:
        """Refuse, at startup, a manifest that cannot be read or holds any problem."""
        if value is not None:
            from gateway.http.manifest import read_manifest  # graphql-core, only when set

            read_manifest(value)
        return value

    # --- CORS (issue 13, item 3): which browser apps on other origins may call the API --------
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Origins (scheme://host[:port]) whose browser apps may call the API and "
        "open its WebSocket, comma-separated; none by default (`serve --demo` lets in local "
        "development's).",
    )
    cors_origin_regex: str | None = Field(
        default=None,
        description="Origins matching this regular expression (the whole origin) are let in too.",
    )
    cors_allow_credentials: bool = Field(
        default=False,
        description="Let browsers send cookies with cross-origin requests (the API needs none: "
        "its token travels in the Authorization header); never with a wildcard origin.",
    )

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @model_validator(mode="after")
    def _no_credentials_with_a_wildcard(self) -> Self:
        """Refuse, at startup, a regular expression that does not compile and credentials with
        a wildcard origin (a browser would then send cookies to any site's requests)."""
        any_origin = "*" in self.cors_origins
        if self.cors_origin_regex is not None:
            try:
                pattern = re.compile(self.cors_origin_regex)
            except re.error as error:
                message = f"SKILLMEM_CORS_ORIGIN_REGEX is not a regular expression: {error}"
                raise ValueError(message) from None
            any_origin = any_origin or pattern.fullmatch(_ANY_ORIGIN) is not None
        if self.cors_allow_credentials and any_origin:
            raise ValueError(
                "SKILLMEM_CORS_ALLOW_CREDENTIALS=true cannot be used with a wildcard origin "
                "('*' in SKILLMEM_CORS_ORIGINS, or a SKILLMEM_CORS_ORIGIN_REGEX matching any "
                "origin): name each allowed origin, or turn credentials off."
            )
        return self

    def catalog(self) -> CatalogSettings:
        """How the catalogue reaches its outside sources."""
        token = self.catalog_source_token
        return CatalogSettings(
            directory_base_url=self.catalog_directory_base_url,
            source_base_url=self.catalog_source_base_url,
            source_token=token.get_secret_value() if token is not None else "",
            timeout=self.catalog_timeout,
            max_retries=self.catalog_max_retries,
            backoff=self.catalog_backoff,
            max_json_bytes=self.catalog_max_json_bytes,
            max_archive_bytes=self.catalog_max_archive_bytes,
            approval_seconds=self.catalog_approval_seconds,
        )

    def with_local_origins(self) -> Settings:
        """These settings, letting in local development's browser apps unless CORS origins
        were set (`serve --demo`)."""
        if self.cors_origins or self.cors_origin_regex is not None:
            return self
        return self.model_copy(
            update={
                "cors_origins": list(LOCAL_CORS_ORIGINS),
                "cors_origin_regex": LOCAL_CORS_ORIGIN_REGEX,
            }
        )

    def supervision(self) -> SupervisionPolicy:
        """How the embedded server's supervisor watches and restarts it."""
        return SupervisionPolicy(
            check_interval=self.embedded_check_seconds,
            attempts=self.embedded_restart_attempts,
            backoff=self.embedded_restart_backoff_seconds,
            backoff_max=self.embedded_restart_backoff_max_seconds,
        )
