"""The Anthropic SDK's client fixtures, for the reserved names on its /v1/skills."""

from tests.anthropic.conftest import sdk, sent  # noqa: F401
