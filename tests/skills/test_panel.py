"""The skills panel: its fields, its order, `promoted` at its threshold, and the catalog's
visibility (seed 003, "Viewing skills")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from resolvers.skills.form import form_check
from resolvers.skills.panel import PROMOTED_MIN_USES
from tests.factories import gql
from tests.skills.test_service import create

PANEL = "{ skillsPanel { name trigger uses promoted dormant path } }"
CATALOG = "{ skillCatalog { name } }"
USE = "mutation($name: String!) { recordSkillUse(name: $name) { useCount } }"

# Passes every L1 form check.
MATURE_BODY = """## Purpose

Chase an unpaid invoice politely.

## When to use

- When an invoice is 30 days late
- Don't use when: the customer disputes the invoice

## Steps

1. Find the invoice.
2. Write to the customer.

## Check

The customer answered within a week.
"""


async def panel(client, token):
    response = await gql(client, token, PANEL)
    assert "errors" not in response.json(), response.text
    return response.json()["data"]["skillsPanel"]


async def use(client, token, name, times):
    for _ in range(times):
        response = await gql(client, token, USE, {"name": name})
        assert "errors" not in response.json(), response.text


def test_the_mature_body_passes_every_form_check():
    assert all(check.passed for check in form_check("mature-skill", MATURE_BODY))


async def test_fields_and_order_most_used_first_ties_by_name(client, ws):
    token = ws.tokens["member"]
    for name in ("bravo-skill", "alpha-skill", "charlie-skill"):
        await create(client, token, name=name, content=MATURE_BODY)
    await use(client, token, "charlie-skill", 2)
    await use(client, token, "bravo-skill", 1)
    await use(client, token, "alpha-skill", 1)
    trigger = "When an invoice is 30 days late; Don't use when: the customer disputes the invoice"
    assert await panel(client, token) == [
        {
            "name": "charlie-skill",
            "trigger": trigger,
            "uses": 2,
            "promoted": False,
            "dormant": False,
            "path": "$HOME/.standards/skills/charlie-skill/",
        },
        {
            "name": "alpha-skill",
            "trigger": trigger,
            "uses": 1,
            "promoted": False,
            "dormant": False,
            "path": "$HOME/.standards/skills/alpha-skill/",
        },
        {
            "name": "bravo-skill",
            "trigger": trigger,
            "uses": 1,
            "promoted": False,
            "dormant": False,
            "path": "$HOME/.standards/skills/bravo-skill/",
        },
    ]


async def test_the_path_is_the_harness_activation_directory(client, ws):
    token = ws.tokens["member"]
    await create(client, token, name="alpha-skill")
    activation = await gql(
        client, token, '{ skillActivation(name: "alpha-skill", target: HARNESS) { directory } }'
    )
    directory = activation.json()["data"]["skillActivation"]["directory"]
    assert [e["path"] for e in await panel(client, token)] == [directory]


async def test_promoted_at_its_threshold_not_one_below(client, ws):
    token = ws.tokens["member"]
    await create(client, token, name="mature-skill", content=MATURE_BODY)
    await use(client, token, "mature-skill", PROMOTED_MIN_USES - 1)
    [below] = await panel(client, token)
    assert (below["uses"], below["promoted"]) == (PROMOTED_MIN_USES - 1, False)
    await use(client, token, "mature-skill", 1)
    [at] = await panel(client, token)
    assert (at["uses"], at["promoted"]) == (PROMOTED_MIN_USES, True)


async def test_a_failing_form_check_is_never_promoted(client, ws):
    token = ws.tokens["member"]
    # The template lacks a Check section: the form check fails.
    await create(client, token, name="template-skill")
    await use(client, token, "template-skill", PROMOTED_MIN_USES + 3)
    [entry] = await panel(client, token)
    assert entry["uses"] == PROMOTED_MIN_USES + 3 and entry["promoted"] is False


async def test_dormant_skills_keep_their_trigger_in_the_panel(client, ws, stand):
    token = ws.tokens["member"]
    await create(client, token, name="mature-skill", content=MATURE_BODY)
    stand(datetime.now(UTC) + timedelta(days=21, minutes=1))
    [entry] = await panel(client, token)
    assert entry["dormant"] is True and entry["trigger"].startswith("When an invoice")


async def test_a_body_without_a_trigger_section_has_a_null_trigger(client, ws):
    token = ws.tokens["member"]
    await create(client, token, name="bare-skill", content="## Steps\n\n1. a\n2. b\n")
    [entry] = await panel(client, token)
    assert entry["trigger"] is None


async def test_the_panel_shows_what_the_catalog_shows(client, ws, ws2):
    mine = ws.tokens["member"]
    await create(client, mine, name="shared-skill")
    await create(client, mine, name="private-skill", visibility="PRIVATE")
    await create(
        client, mine, name="hidden-skill", extraFrontmatter={"disable-model-invocation": True}
    )
    await create(client, ws2.tokens["member"], name="rival-skill")
    for token, expected in (
        (mine, ["private-skill", "shared-skill"]),
        (ws.tokens["other"], ["shared-skill"]),
        (ws.tokens["agent"], ["private-skill", "shared-skill"]),
        (ws2.tokens["member"], ["rival-skill"]),
    ):
        catalog = (await gql(client, token, CATALOG)).json()["data"]["skillCatalog"]
        names = sorted(e["name"] for e in await panel(client, token))
        assert names == sorted(e["name"] for e in catalog) == expected
