"""A person's memory preferences and the workspace's monthly allowances through the API
(DESIGN §5)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import uuid4

import asyncpg
import orjson
import pytest

from db import identity
from db.pool import begin_workspace
from resolvers.common.principals import issue_token
from tests.factories import codes, gql
from tests.memory.pages_api import field, when

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PREFERENCES = """{ memoryPreferences { shareWithTeam learnFromEmail shareWithTeamOnSince
  learnFromEmailOnSince } }"""
SET_PREFERENCE = """mutation($k: MemoryPreferenceKey!, $v: Boolean!) {
  setMemoryPreference(key: $k, value: $v) { shareWithTeam learnFromEmail shareWithTeamOnSince
    learnFromEmailOnSince }
}"""
SETTINGS_FIELDS = """memoryPersonMonthlyLimitUsd memoryTenantMonthlyLimitUsd
  effectivePersonMonthlyLimitUsd effectiveTenantMonthlyLimitUsd"""
TENANT_SETTINGS = f"{{ tenantSettings {{ {SETTINGS_FIELDS} }} }}"
UPDATE_SETTINGS = f"""mutation($input: TenantSettingsInput!) {{
  updateTenantSettings(input: $input) {{ {SETTINGS_FIELDS} }}
}}"""
PERSON, TENANT = "memoryPersonMonthlyLimitUsd", "memoryTenantMonthlyLimitUsd"


# Preferences ------------------------------------------------------------------------------


async def member_since(pool: asyncpg.Pool, ws, who: str = "member") -> datetime:
    async with pool.acquire() as conn:
        found: datetime = await conn.fetchval(
            "SELECT created_at FROM members WHERE workspace_id = $1 AND id = $2",
            ws.id,
            ws.members[who],
        )
    return found


async def preferences(client, token):
    found = field(await gql(client, token, PREFERENCES), "memoryPreferences")
    for key in ("shareWithTeamOnSince", "learnFromEmailOnSince"):
        found[key] = when(found[key])
    return found


async def set_share(client, token, value: bool):
    found = field(
        await gql(client, token, SET_PREFERENCE, {"k": "SHARE_WITH_TEAM", "v": value}),
        "setMemoryPreference",
    )
    return found["shareWithTeam"], when(found["shareWithTeamOnSince"])


async def test_preferences_are_on_by_default_since_the_member_was_added(client, pool, ws):
    since = await member_since(pool, ws)
    assert await preferences(client, ws.tokens["member"]) == {
        "shareWithTeam": True,
        "learnFromEmail": True,
        "shareWithTeamOnSince": since,
        "learnFromEmailOnSince": since,
    }


async def test_turning_a_preference_back_on_records_when(client, pool, ws, stand):
    token = ws.tokens["member"]
    since = await member_since(pool, ws)
    stand(T0)
    assert (await set_share(client, token, False))[0] is False
    stand(T0 + timedelta(hours=1))
    assert await set_share(client, token, True) == (True, T0 + timedelta(hours=1))
    stand(T0 + timedelta(hours=2))
    assert await set_share(client, token, False) == (False, T0 + timedelta(hours=1))
    stand(T0 + timedelta(hours=3))
    assert await set_share(client, token, False) == (False, T0 + timedelta(hours=1))
    stand(T0 + timedelta(hours=4))
    assert await set_share(client, token, True) == (True, T0 + timedelta(hours=4))
    # Already on: turning it on again moves nothing.
    stand(T0 + timedelta(hours=5))
    assert await set_share(client, token, True) == (True, T0 + timedelta(hours=4))
    # The other preference and the other members are untouched.
    found = await preferences(client, token)
    assert found["learnFromEmail"] and found["learnFromEmailOnSince"] == since
    other = await preferences(client, ws.tokens["other"])
    assert other["shareWithTeam"] and other["shareWithTeamOnSince"] == await member_since(
        pool, ws, "other"
    )


async def test_turning_a_default_preference_off_keeps_when_it_was_last_on(client, pool, ws, stand):
    """On by default since the member was added: turning it off keeps that on-time, as
    turning off any preference does."""
    token = ws.tokens["member"]
    since = await member_since(pool, ws)
    stand(T0)
    assert await set_share(client, token, False) == (False, since)


async def put_preference(client, token, key: str, body: Any):
    return await client.put(
        f"/users/me/preferences/{key}",
        content=orjson.dumps(body),
        headers={"authorization": f"Bearer {token}", "content-type": "application/json"},
    )


async def test_put_a_preference(client, pool, ws, stand):
    token = ws.tokens["member"]
    stand(T0)
    response = await put_preference(client, token, "memory.learnFromEmail", {"value": False})
    assert response.status_code == 200
    assert response.json()["key"] == "memory.learnFromEmail"
    assert response.json()["value"] is False
    found = await preferences(client, token)
    assert found["learnFromEmail"] is False and found["shareWithTeam"] is True
    stand(T0 + timedelta(days=1))
    response = await put_preference(client, token, "memory.learnFromEmail", {"value": True})
    assert response.status_code == 200
    assert response.json() == {
        "key": "memory.learnFromEmail",
        "value": True,
        "onSince": (T0 + timedelta(days=1)).isoformat(),
    }
    assert (await preferences(client, token))["learnFromEmailOnSince"] == T0 + timedelta(days=1)


@pytest.mark.parametrize(
    "key, body",
    [
        ("memory.learnFromEmail", {"value": "false"}),
        ("memory.learnFromEmail", {"value": 0}),
        ("memory.learnFromEmail", {"value": None}),
        ("memory.learnFromEmail", {}),
        ("memory.learnFromEmail", {"value": False, "also": 1}),
        ("memory.learnFromMail", {"value": False}),
        ("shareWithTeam", {"value": False}),
        ("memory.learnFromEmail", [False]),
    ],
)
async def test_put_a_preference_refuses_anything_but_a_known_key_and_a_boolean(
    client, pool, ws, key, body
):
    token = ws.tokens["member"]
    before = await preferences(client, token)
    response = await put_preference(client, token, key, body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"
    assert await preferences(client, token) == before


async def test_only_the_persons_own_session_sets_a_preference(client, pool, ws):
    for who in ("agent", "mcp_client"):
        response = await put_preference(
            client, ws.tokens[who], "memory.shareWithTeam", {"value": False}
        )
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "FORBIDDEN"
    assert (await preferences(client, ws.tokens["member"]))["shareWithTeam"] is True


# Tenant settings ----------------------------------------------------------------------------


async def patch_settings(client, token, body: Any):
    return await client.patch(
        "/tenant/settings",
        content=orjson.dumps(body),
        headers={"authorization": f"Bearer {token}", "content-type": "application/json"},
    )


CREDITS = "aiCredits"


async def get_settings(client, token):
    response = await client.get("/tenant/settings", headers={"authorization": f"Bearer {token}"})
    assert response.status_code == 200
    return response.json()


ACCEPTED = [("3", "3"), ("3.00", "3.00"), ("0.50", "0.50"), ("0", "0"), ("0.000001", "0.000001")]
REFUSED_TEXT = [
    "abc",
    "-1",
    "1.1234567",
    "",
    " 3",
    "3 ",
    "3.",
    ".5",
    "1e3",
    "+3",
    "3\n",
    "3,50",
    "NaN",
    "Infinity",
]
REFUSED = [*REFUSED_TEXT, 3, 3.5, True, False, [], {}]


async def test_settings_read_back_null_while_the_default_applies(client, ws):
    assert await get_settings(client, ws.tokens["viewer"]) == {
        PERSON: None,
        TENANT: None,
        CREDITS: True,
    }
    shown = field(await gql(client, ws.tokens["viewer"], TENANT_SETTINGS), "tenantSettings")
    assert shown == {
        PERSON: None,
        TENANT: None,
        "effectivePersonMonthlyLimitUsd": "1.00",
        "effectiveTenantMonthlyLimitUsd": "5.00",
    }


@pytest.mark.parametrize("sent, shown", ACCEPTED)
async def test_patch_settings_accepts_decimal_strings(client, ws, sent, shown):
    admin = ws.tokens["admin"]
    response = await patch_settings(client, admin, {PERSON: sent, TENANT: sent})
    assert response.status_code == 200
    assert response.json() == {PERSON: shown, TENANT: shown, CREDITS: True}
    assert await get_settings(client, admin) == {PERSON: shown, TENANT: shown, CREDITS: True}
    read = field(await gql(client, admin, TENANT_SETTINGS), "tenantSettings")
    assert read["effectivePersonMonthlyLimitUsd"] == shown
    # null returns to the default.
    response = await patch_settings(client, admin, {PERSON: None})
    assert response.json() == {PERSON: None, TENANT: shown, CREDITS: True}
    response = await patch_settings(client, admin, {TENANT: None})
    assert response.json() == {PERSON: None, TENANT: None, CREDITS: True}
    read = field(await gql(client, admin, TENANT_SETTINGS), "tenantSettings")
    assert read["effectivePersonMonthlyLimitUsd"] == "1.00"
    assert read["effectiveTenantMonthlyLimitUsd"] == "5.00"


async def test_a_setting_left_out_is_unchanged(client, ws):
    admin = ws.tokens["admin"]
    await patch_settings(client, admin, {PERSON: "3.00", TENANT: "8.00"})
    response = await patch_settings(client, admin, {PERSON: "2"})
    assert response.json() == {PERSON: "2", TENANT: "8.00", CREDITS: True}
    assert (await patch_settings(client, admin, {})).json() == {
        PERSON: "2",
        TENANT: "8.00",
        CREDITS: True,
    }


@pytest.mark.parametrize("value", REFUSED, ids=repr)
async def test_patch_settings_refuses_anything_else_and_changes_nothing(client, ws, value):
    admin = ws.tokens["admin"]
    await patch_settings(client, admin, {PERSON: "2.50", TENANT: "7"})
    for body in ({PERSON: value}, {TENANT: value}, {PERSON: "4", TENANT: value}):
        response = await patch_settings(client, admin, body)
        assert response.status_code == 400, body
        error = response.json()["error"]
        assert error["code"] == "SCHEMA_VALIDATION_FAILED"
        assert [p["field"] for p in error["problems"]] == [list(body)[-1]]
    assert await get_settings(client, admin) == {PERSON: "2.50", TENANT: "7", CREDITS: True}


async def test_patch_settings_lists_every_problem_and_changes_nothing(client, ws):
    admin = ws.tokens["admin"]
    await patch_settings(client, admin, {PERSON: "2.50", TENANT: "7"})
    response = await patch_settings(
        client, admin, {PERSON: "abc", TENANT: 3, "memoryDailyLimitUsd": "1"}
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "SCHEMA_VALIDATION_FAILED"
    assert sorted(p["field"] for p in error["problems"]) == sorted(
        [PERSON, TENANT, "memoryDailyLimitUsd"]
    )
    # An unknown key alone, beside a good value, is refused too.
    response = await patch_settings(client, admin, {PERSON: "9", "colour": "red"})
    assert response.status_code == 400
    assert [p["field"] for p in response.json()["error"]["problems"]] == ["colour"]
    for body in ([], "3", None):
        response = await patch_settings(client, admin, body)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"
    assert await get_settings(client, admin) == {PERSON: "2.50", TENANT: "7", CREDITS: True}


async def test_only_the_settings_right_sets_allowances(client, ws):
    for who in ("member", "viewer", "agent"):
        response = await patch_settings(client, ws.tokens[who], {PERSON: "100"})
        assert response.status_code == 403, who
        assert response.json()["error"]["code"] == "FORBIDDEN"
        refused = await gql(client, ws.tokens[who], UPDATE_SETTINGS, {"input": {PERSON: "100"}})
        assert codes(refused) == ["FORBIDDEN"]
    assert await get_settings(client, ws.tokens["admin"]) == {
        PERSON: None,
        TENANT: None,
        CREDITS: True,
    }


@pytest.mark.parametrize("sent, shown", ACCEPTED)
async def test_update_tenant_settings_accepts_decimal_strings(client, ws, sent, shown):
    admin = ws.tokens["admin"]
    response = await gql(client, admin, UPDATE_SETTINGS, {"input": {PERSON: sent}})
    assert field(response, "updateTenantSettings") == {
        PERSON: shown,
        TENANT: None,
        "effectivePersonMonthlyLimitUsd": shown,
        "effectiveTenantMonthlyLimitUsd": "5.00",
    }
    assert field(await gql(client, admin, TENANT_SETTINGS), "tenantSettings")[PERSON] == shown
    assert await get_settings(client, admin) == {PERSON: shown, TENANT: None, CREDITS: True}
    back = await gql(client, admin, UPDATE_SETTINGS, {"input": {PERSON: None, TENANT: sent}})
    assert field(back, "updateTenantSettings") == {
        PERSON: None,
        TENANT: shown,
        "effectivePersonMonthlyLimitUsd": "1.00",
        "effectiveTenantMonthlyLimitUsd": shown,
    }


@pytest.mark.parametrize("value", REFUSED_TEXT, ids=repr)
async def test_update_tenant_settings_refuses_anything_else_and_changes_nothing(client, ws, value):
    admin = ws.tokens["admin"]
    await patch_settings(client, admin, {PERSON: "2.50", TENANT: "7"})
    response = await gql(client, admin, UPDATE_SETTINGS, {"input": {PERSON: "4", TENANT: value}})
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    problems = response.json()["errors"][0]["extensions"]["problems"]
    assert [p["field"] for p in problems] == [TENANT]
    both = await gql(client, admin, UPDATE_SETTINGS, {"input": {PERSON: value, TENANT: value}})
    problems = both.json()["errors"][0]["extensions"]["problems"]
    assert sorted(p["field"] for p in problems) == [PERSON, TENANT]
    assert await get_settings(client, admin) == {PERSON: "2.50", TENANT: "7", CREDITS: True}


@pytest.mark.parametrize("value", [3, 3.5, True], ids=repr)
async def test_update_tenant_settings_refuses_what_is_not_a_string(client, ws, value):
    admin = ws.tokens["admin"]
    await patch_settings(client, admin, {PERSON: "2.50", TENANT: "7"})
    response = await gql(client, admin, UPDATE_SETTINGS, {"input": {PERSON: value}})
    assert response.status_code == 400
    assert codes(response) == ["GRAPHQL_VALIDATION_FAILED"]
    unknown = await gql(client, admin, UPDATE_SETTINGS, {"input": {PERSON: "3", "colour": "1"}})
    assert codes(unknown) == ["GRAPHQL_VALIDATION_FAILED"]
    assert await get_settings(client, admin) == {PERSON: "2.50", TENANT: "7", CREDITS: True}


async def test_an_api_key_sets_no_allowance_even_with_an_admin_role(client, pool, ws):
    """DESIGN §5: allowances are set by a person with the settings right, never by an API key
    (whatever its role): FORBIDDEN through GraphQL and PATCH /tenant/settings, nothing set."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        key = await identity.insert_actor(conn, "api_key", uuid4(), "ops", ws.roles["admin"])
        token = await issue_token(conn, "api_key", api_key_id=key.id, purpose="test")
    wanted = {PERSON: "3", TENANT: "8"}
    through_graphql = await gql(client, token, UPDATE_SETTINGS, {"input": wanted})
    assert codes(through_graphql) == ["FORBIDDEN"]
    through_http = await patch_settings(client, token, wanted)
    assert through_http.status_code == 403, through_http.text
    assert through_http.json()["error"]["code"] == "FORBIDDEN"
    assert await get_settings(client, ws.tokens["admin"]) == {
        PERSON: None,
        TENANT: None,
        CREDITS: True,
    }


async def test_ai_credits_are_a_boolean_setting_of_the_admin(client, ws):
    admin = ws.tokens["admin"]
    refused = await patch_settings(client, admin, {CREDITS: "no", PERSON: "abc"})
    assert refused.status_code == 400
    assert {p["field"] for p in refused.json()["error"]["problems"]} == {CREDITS, PERSON}
    assert (await get_settings(client, admin))[CREDITS] is True
    turned = await patch_settings(client, admin, {CREDITS: False})
    assert turned.status_code == 200 and turned.json()[CREDITS] is False
    # Setting an allowance leaves the credits as they are.
    assert (await patch_settings(client, admin, {PERSON: "2"})).json()[CREDITS] is False
    assert (await patch_settings(client, ws.tokens["member"], {CREDITS: True})).status_code == 403
    assert (await get_settings(client, admin))[CREDITS] is False
