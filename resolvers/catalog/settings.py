"""What the catalogue's outside sources are reached with (issue 15, item 2): base URLs, the
timeout, retries and their backoff, the size caps. Pure; the process's settings
(``gateway/settings.py``, ``SKILLMEM_CATALOG_*``) fill it."""

from __future__ import annotations

from dataclasses import dataclass, field

from resolvers.skills.archive import limits

DEFAULT_DIRECTORY_BASE_URL = "https://skills.sh"
DEFAULT_SOURCE_BASE_URL = "https://api.github.com"
DEFAULT_TIMEOUT_SECONDS = 10.0
DEFAULT_MAX_RETRIES = 2
DEFAULT_BACKOFF_SECONDS = 0.5
MAX_BACKOFF_SECONDS = 8.0
# A JSON answer (a search, a commit, an index, a SKILL.md) is small; an archive is held to the
# upload limit of every archive.
DEFAULT_MAX_JSON_BYTES = 1024 * 1024
# How long a person has to decide an agent's install or community search (issue 15, item 7).
DEFAULT_APPROVAL_SECONDS = 24 * 3600


@dataclass(frozen=True, slots=True)
class CatalogSettings:
    """How to reach the directory and the sources."""

    directory_base_url: str = DEFAULT_DIRECTORY_BASE_URL
    source_base_url: str = DEFAULT_SOURCE_BASE_URL
    source_token: str = field(default="", repr=False)  # sent as a bearer token to the source
    timeout: float = DEFAULT_TIMEOUT_SECONDS  # per attempt, the whole body included
    max_retries: int = DEFAULT_MAX_RETRIES
    backoff: float = DEFAULT_BACKOFF_SECONDS  # before retry n: backoff * 2**(n-1), at most 8 s
    max_json_bytes: int = DEFAULT_MAX_JSON_BYTES
    max_archive_bytes: int = limits.MAX_ARCHIVE_BYTES
    approval_seconds: int = DEFAULT_APPROVAL_SECONDS  # an agent's approval then expires

    def __post_init__(self) -> None:
        for name in ("directory_base_url", "source_base_url"):
            url = getattr(self, name)
            if not url.startswith(("http://", "https://")):
                raise ValueError(f"the catalogue's {name} is an http(s) URL, not {url!r}")
        if self.timeout <= 0:
            raise ValueError("the catalogue's timeout is a positive number of seconds")
        if self.max_retries < 0 or self.backoff < 0:
            raise ValueError("the catalogue's retries and backoff are never negative")
        if self.max_json_bytes <= 0 or self.max_archive_bytes <= 0:
            raise ValueError("the catalogue's size caps are positive")
        if self.approval_seconds <= 0:
            raise ValueError("the catalogue's approval delay is a positive number of seconds")

    def delay(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (1, 2, ...)."""
        return float(min(MAX_BACKOFF_SECONDS, self.backoff * 2 ** (retry - 1)))
