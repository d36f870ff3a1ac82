"""The community directory (issue 15, item 2): a skills.sh-style search, ``GET
{directory_base_url}/api/search?q=&limit=``. What leaves is exactly ``text`` and ``limit``."""

from __future__ import annotations

from resolvers.catalog.answers import DirectoryAnswer, parse
from resolvers.catalog.errors import CatalogError, refused, unavailable
from resolvers.catalog.settings import CatalogSettings
from resolvers.catalog.transport import get
from resolvers.common.errors import Problem

MAX_QUERY_CHARS = 200
MAX_LIMIT = 100
DIRECTORY = "the community directory"


async def search_directory(
    settings: CatalogSettings, text: str, limit: int = 20
) -> DirectoryAnswer:
    """The directory's answer for ``text``; ``CatalogError``: unavailable (down, slow, 5xx
    after the retries), refused (a malformed or oversized answer, a bad text or limit)."""
    problems = []
    if not text.strip() or len(text) > MAX_QUERY_CHARS:
        problems.append(Problem(f"is 1 to {MAX_QUERY_CHARS} characters", "text"))
    if not 1 <= limit <= MAX_LIMIT:
        problems.append(Problem(f"is between 1 and {MAX_LIMIT}", "limit"))
    if problems:
        raise refused("the directory search was refused", problems)
    url = settings.directory_base_url.rstrip("/") + "/api/search"
    try:
        fetched = await get(
            settings,
            url,
            cap=settings.max_json_bytes,
            what=DIRECTORY,
            params={"q": text, "limit": str(limit)},
            headers={"Accept": "application/json"},
        )
    except CatalogError as error:
        if error.reason == "not_found":  # no search there: the base URL is wrong
            raise unavailable(f"{DIRECTORY} is unavailable: it has no search") from None
        raise
    return parse(DirectoryAnswer, fetched.body, f"{DIRECTORY}'s answer")
