"""The catalogue's settings: from the environment, checked at startup."""

from __future__ import annotations

import pytest

from gateway.settings import Settings
from resolvers.catalog.settings import CatalogSettings


def test_the_process_settings_fill_the_catalogue_settings(monkeypatch):
    monkeypatch.setenv("SKILLMEM_CATALOG_DIRECTORY_BASE_URL", "http://directory.test")
    monkeypatch.setenv("SKILLMEM_CATALOG_SOURCE_TOKEN", "t0ken")
    monkeypatch.setenv("SKILLMEM_CATALOG_MAX_RETRIES", "0")
    catalog = Settings(_env_file=None).catalog()
    assert catalog.directory_base_url == "http://directory.test"
    assert catalog.source_base_url == "https://api.github.com"
    assert (catalog.source_token, catalog.max_retries) == ("t0ken", 0)
    assert "t0ken" not in repr(catalog)


def test_backoff_doubles_up_to_its_ceiling():
    settings = CatalogSettings(backoff=0.5)
    assert [settings.delay(n) for n in (1, 2, 3, 6)] == [0.5, 1.0, 2.0, 8.0]


@pytest.mark.parametrize(
    "changes",
    [{"directory_base_url": "ftp://x"}, {"timeout": 0}, {"max_retries": -1}],
)
def test_bad_settings_are_refused(changes):
    with pytest.raises(ValueError):
        CatalogSettings(**changes)
