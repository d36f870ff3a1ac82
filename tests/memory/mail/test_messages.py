"""Mail (resolvers/memory/mail/messages.py) through recordMail on the real database: the mail
records, what is kept of attachments, re-sends and deletion, who posts where, every problem
listed with nothing stored, other workspaces."""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest

from tests.factories import codes, company, data, gql, private_deal, problems
from tests.memory.dreamer.intake_api import admin_key
from tests.memory.mail.mailing import box_gid, mailbox

RECORD_MAIL = """mutation($b: ID!, $m: [MailMessageInput!]!) {
  recordMail(mailboxId: $b, messages: $m) { mailboxId messages {
  id externalId threadId filed category important at subject deleted replayed recordIds
  attachments { name size sha256 } } } }"""
RECORD = "query($id: ID!) { record(id: $id) { id label visibility object } }"
AT = "2026-03-02T09:00:00+00:00"


def one(external_id: str = "m1", **more: Any) -> dict[str, Any]:
    return {
        "externalId": external_id,
        "threadId": "t1",
        "filed": "RECEIVED",
        "from": "carol@client.example",
        "at": AT,
        "subject": "Renewal",
        "text": "Hello.",
        "category": "DIRECT",
        "important": True,
        **more,
    }


async def send(client: httpx.AsyncClient, token: str, box: str, *messages: dict[str, Any]):
    return await gql(client, token, RECORD_MAIL, {"b": box, "m": list(messages)})


async def stored(pool, ws) -> dict[str, int]:
    async with pool.acquire() as conn:
        found = {}
        for table in ("mail_messages", "mail_message_links"):
            found[table] = await conn.fetchval(
                f"SELECT count(*) FROM {table} WHERE workspace_id = $1",  # noqa: S608
                ws.id,
            )
        found["mail records"] = await conn.fetchval(
            "SELECT count(*) FROM records r JOIN objects o ON o.workspace_id = r.workspace_id"
            " AND o.id = r.object_id WHERE r.workspace_id = $1 AND o.slug = 'mail'",
            ws.id,
        )
    return found


@pytest.fixture
async def personal(pool, ws) -> str:
    return box_gid(ws, await mailbox(pool, ws, "member"))


async def test_a_mail_is_a_record_private_to_the_mailbox_owner(client, pool, ws, personal):
    acme = await company(pool, ws)
    found = data(
        await send(client, ws.tokens["member"], personal, one(recordIds=[acme, acme])),
        "recordMail",
    )
    [message] = found["messages"]
    assert (message["replayed"], message["recordIds"], message["at"]) == (False, [acme], AT)
    mine = data(await gql(client, ws.tokens["member"], RECORD, {"id": message["id"]}), "record")
    assert (mine["label"], mine["visibility"], mine["object"]) == (
        "Renewal",
        "PRIVATE",
        "mail",
    )
    for who in ("other", "admin"):
        response = await gql(client, ws.tokens[who], RECORD, {"id": message["id"]})
        assert codes(response) == ["NOT_FOUND"]


async def test_a_shared_mailboxs_mail_is_the_workspaces(client, pool, ws):
    shared = box_gid(ws, await mailbox(pool, ws, None))
    found = data(await send(client, ws.tokens["admin"], shared, one(subject="")), "recordMail")
    record = data(
        await gql(client, ws.tokens["viewer"], RECORD, {"id": found["messages"][0]["id"]}),
        "record",
    )
    assert (record["label"], record["visibility"]) == ("(no subject)", "WORKSPACE")


async def test_attachments_keep_their_names_sizes_and_sha256_never_their_contents(
    client, pool, ws, personal
):
    contents = b"%PDF-1.4 SECRET-CONTENTS"
    given = one(
        attachments=[{"name": "contract.pdf", "contents": base64.b64encode(contents).decode()}]
    )
    found = data(await send(client, ws.tokens["member"], personal, given), "recordMail")
    [kept] = found["messages"][0]["attachments"]
    assert (kept["name"], kept["size"]) == ("contract.pdf", len(contents))
    assert len(kept["sha256"]) == 64
    async with pool.acquire() as conn:
        row = await conn.fetchval(
            "SELECT to_jsonb(m)::text FROM mail_messages m WHERE workspace_id = $1", ws.id
        )
    assert "SECRET-CONTENTS" not in row and base64.b64encode(contents).decode() not in row


async def test_a_re_sent_mail_is_stored_once_and_deleted_for_good(client, pool, ws, personal):
    member = ws.tokens["member"]
    first = data(await send(client, member, personal, one()), "recordMail")["messages"][0]
    again = data(await send(client, member, personal, one()), "recordMail")["messages"][0]
    assert (again["id"], again["replayed"]) == (first["id"], True)
    for change in ({"text": "Other"}, {"subject": "Other"}, {"threadId": "t2"}):
        response = await send(client, member, personal, one(**change))
        assert [p["field"] for p in problems(response)] == ["messages.0.externalId"], change
    # Deleted: the stored mail is marked (whatever else the re-send says), and stays deleted.
    gone = data(await send(client, member, personal, one(deleted=True, text="x")), "recordMail")
    assert gone["messages"][0]["deleted"] is True and gone["messages"][0]["replayed"] is False
    response = await send(client, member, personal, one())
    assert [p["field"] for p in problems(response)] == ["messages.0.deleted"]
    assert (await stored(pool, ws))["mail_messages"] == 1


async def test_who_posts_into_which_mailbox(client, pool, ws, personal):
    shared = box_gid(ws, await mailbox(pool, ws, None))
    bobs = box_gid(ws, await mailbox(pool, ws, "other"))
    member = ws.tokens["member"]
    assert codes(await send(client, member, shared, one())) == ["FORBIDDEN"]
    # Another member's mailbox is none of theirs: answered as if it did not exist.
    assert codes(await send(client, member, bobs, one())) == ["NOT_FOUND"]
    for token in ("agent", "mcp_client", "api_key"):
        assert codes(await send(client, ws.tokens[token], personal, one())) == ["FORBIDDEN"]
    assert (await stored(pool, ws))["mail_messages"] == 0
    key = await admin_key(pool, ws)
    data(await send(client, key, personal, one()))
    data(await send(client, key, shared, one()))
    data(await send(client, ws.tokens["admin"], bobs, one()))


async def test_a_role_that_may_not_create_mail_posts_none(client, pool, ws):
    viewers = box_gid(ws, await mailbox(pool, ws, "viewer"))
    assert codes(await send(client, ws.tokens["viewer"], viewers, one())) == ["FORBIDDEN"]


async def test_records_and_mailboxes_out_of_reach_are_not_found(client, pool, ws, ws2, personal):
    secret = await private_deal(pool, ws, "other", "Secret deal")
    elsewhere = await company(pool, ws2, "Rival Acme")
    for record in (secret, elsewhere):
        response = await send(client, ws.tokens["member"], personal, one(recordIds=[record]))
        assert codes(response) == ["NOT_FOUND"]
    theirs = box_gid(ws2, await mailbox(pool, ws2, None))
    assert codes(await send(client, ws.tokens["admin"], theirs, one())) == ["NOT_FOUND"]
    assert codes(await send(client, ws2.tokens["admin"], personal, one())) == ["NOT_FOUND"]
    assert set((await stored(pool, ws)).values()) == {0}
    assert set((await stored(pool, ws2)).values()) == {0}


async def test_every_problem_is_listed_and_nothing_is_stored(client, pool, ws, personal):
    bad = one(
        externalId="",
        threadId="t" * 201,
        **{"from": "Carol <carol@client.example>"},
        at="2026-03-02T09:00:00",
        classifiedAt="2999-01-01T00:00:00Z",
        subject="Line\nbreak",
        text="x" * 100_001,
        fromName="Carol\u0007",
        recordIds=["nope", *["x"] * 20],
        attachments=[
            {"name": "", "contents": "not base64!"},
            *({"name": f"f{n}", "contents": ""} for n in range(10)),
        ],
    )
    response = await send(client, ws.tokens["member"], personal, bad, one("m2"), one("m2"))
    assert {p["field"] for p in problems(response)} == {
        "messages.0.externalId",
        "messages.0.threadId",
        "messages.0.from",
        "messages.0.at",
        "messages.0.classifiedAt",
        "messages.0.subject",
        "messages.0.text",
        "messages.0.fromName",
        "messages.0.recordIds",
        "messages.0.attachments",
        "messages.0.attachments.0.name",
        "messages.0.attachments.0.contents",
        "messages.2.externalId",
    }
    assert set((await stored(pool, ws)).values()) == {0}


async def test_a_post_holds_at_most_100_messages(client, pool, ws, personal):
    token = ws.tokens["member"]
    data(await send(client, token, personal, *(one(f"m{n}") for n in range(100))))
    response = await send(client, token, personal, *(one(f"n{n}") for n in range(101)))
    assert "messages" in {p["field"] for p in problems(response)}
    assert [p["field"] for p in problems(await send(client, token, personal))] == ["messages"]
    assert (await stored(pool, ws))["mail_messages"] == 100


async def test_a_mail_the_caller_may_not_read_is_answered_without_its_content(
    client, pool, ws, personal
):
    contents = base64.b64encode(b"contract").decode()
    private = one(
        subject="Salary review",
        threadId="hr-thread",
        attachments=[{"name": "payslip.pdf", "contents": contents}],
    )
    data(await send(client, ws.tokens["member"], personal, private, one("m2")))
    shown = ("threadId", "filed", "category", "important", "at", "subject", "attachments")
    # The admin may post into the member's mailbox but may not read their mail: deleting it, or
    # deleting it again, answers its id and nothing the admin did not send.
    for _ in range(2):
        found = data(
            await send(client, ws.tokens["admin"], personal, one(deleted=True, subject="x")),
            "recordMail",
        )
        [gone] = found["messages"]
        assert (gone["externalId"], gone["deleted"]) == ("m1", True)
        assert all(gone[name] is None for name in (*shown, "recordIds")), gone
    # The same for a re-send of the same content.
    [same] = data(await send(client, ws.tokens["admin"], personal, one("m2")), "recordMail")[
        "messages"
    ]
    assert (same["replayed"], same["subject"], same["threadId"]) == (True, None, None)
    # The owner reads their own mail: it is answered whole.
    [mine] = data(
        await send(client, ws.tokens["member"], personal, one(deleted=True)), "recordMail"
    )["messages"]
    assert (mine["subject"], mine["threadId"], mine["replayed"]) == (
        "Salary review",
        "hr-thread",
        True,
    )
    assert mine["attachments"][0]["name"] == "payslip.pdf"


async def test_control_characters_are_refused_in_addresses_and_names(client, pool, ws, personal):
    # C0 (\x01, \x1b), DEL and C1 (\x80, \x9b): none is in an address nor a name.
    bad = [
        one("m1", **{"from": "carol\x01@client.example"}),
        one("m2", **{"from": "carol@client\x7f.example"}),
        one("m3", **{"from": "carol\x9b@client.example"}),
        one("m4", **{"from": "carol@client.exam\x80ple"}),
        one("m5", fromName="Carol\x1b[31m"),
        one("m6", fromName="Carol\x9b"),
        one("m7", attachments=[{"name": "a\x85.pdf", "contents": ""}]),
    ]
    response = await send(client, ws.tokens["member"], personal, *bad)
    assert [p["field"] for p in problems(response)] == [
        "messages.0.from",
        "messages.1.from",
        "messages.2.from",
        "messages.3.from",
        "messages.4.fromName",
        "messages.5.fromName",
        "messages.6.attachments.0.name",
    ]
    assert set((await stored(pool, ws)).values()) == {0}


async def test_a_re_send_updates_the_classification_alone(client, pool, ws, personal):
    member = ws.tokens["member"]
    first = data(await send(client, member, personal, one(important=False)), "recordMail")
    reclassified = one(category="NEWSLETTER", classifiedAt="2026-03-05T10:00:00+00:00")
    [again] = data(await send(client, member, personal, reclassified), "recordMail")["messages"]
    assert (again["id"], again["replayed"]) == (first["messages"][0]["id"], False)
    assert (again["category"], again["important"]) == ("NEWSLETTER", True)
    [same] = data(await send(client, member, personal, reclassified), "recordMail")["messages"]
    assert same["replayed"] is True
    # Anything else still differs: refused, and the classification is not changed by it.
    other = one(category="DIRECT", text="Other")
    assert [p["field"] for p in problems(await send(client, member, personal, other))] == [
        "messages.0.externalId"
    ]
    async with pool.acquire() as conn:
        row = await conn.fetchrow(
            "SELECT category, important, classified_at FROM mail_messages WHERE workspace_id = $1",
            ws.id,
        )
    assert (row["category"], row["important"]) == ("newsletter", True)
    assert row["classified_at"].isoformat() == "2026-03-05T10:00:00+00:00"
    assert (await stored(pool, ws))["mail_messages"] == 1
