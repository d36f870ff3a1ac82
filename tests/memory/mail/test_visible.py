"""Mail items in memoryItems (resolvers/memory/dreamer/visible.py): opened, waiting, read,
with their exchange, shown only to whom may open their source."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.factories import data, gql
from tests.memory.dreamer.dreaming import dream
from tests.memory.mail.mailing import box_gid, important, mailbox, open_at, post, reply

T0 = datetime(2027, 3, 1, 9, 0, tzinfo=UTC)
OPENED = T0 + timedelta(hours=3)
ITEMS = """query($w: Boolean!) { memoryItems(workspace: $w) { items {
  kind status sourceOpen text saidAt arrivedAt payerKind
  exchange { mailboxId mailboxName threadId openedAt quietSince firstMessageAt lastMessageAt }
} } }"""


async def items(client, token: str, every: bool = False) -> list[dict]:
    found = data(await gql(client, token, ITEMS, {"w": every}), "memoryItems")["items"]
    return [item for item in found if item["kind"] == "mail"]


def iso(moment: datetime) -> str:
    return moment.isoformat()


async def test_a_mail_item_shows_its_exchange_to_its_owner_only(client, pool, ws, stand):
    box = await mailbox(pool, ws)
    stand(T0)
    last = T0 + timedelta(minutes=5)
    await post(pool, ws, box, [important("m1", T0, subject="Renewal"), reply("r1", last, ws)], last)
    await open_at(pool, ws, OPENED)
    [item] = await items(client, ws.tokens["member"])
    assert (item["status"], item["sourceOpen"], item["text"]) == ("WAITING", True, "Renewal")
    assert (item["saidAt"], item["arrivedAt"], item["payerKind"]) == (
        iso(last),
        iso(OPENED),
        "member",
    )
    assert item["exchange"] == {
        "mailboxId": box_gid(ws, box),
        "mailboxName": "member's mail",
        "threadId": "t1",
        "openedAt": iso(OPENED),
        "quietSince": iso(last),
        "firstMessageAt": iso(T0),
        "lastMessageAt": iso(last),
    }
    await dream(pool, ws, OPENED + timedelta(hours=1))
    [read] = await items(client, ws.tokens["member"])
    assert read["status"] == "READ"
    # An admin sees the workspace's items, never a private mailbox's exchange or subject.
    [seen] = await items(client, ws.tokens["admin"], every=True)
    assert (seen["sourceOpen"], seen["text"], seen["exchange"]) == (False, None, None)
    assert await items(client, ws.tokens["other"]) == []


async def test_a_shared_mailboxs_item_shows_to_an_admin(client, pool, ws, stand):
    box = await mailbox(pool, ws, None)
    stand(T0)
    await post(pool, ws, box, [important("m1", T0, subject="Support")], T0)
    await open_at(pool, ws, OPENED)
    [item] = await items(client, ws.tokens["admin"], every=True)
    assert (item["sourceOpen"], item["text"]) == (True, "Support")
    assert item["exchange"]["mailboxName"] == "Team's mail"
    assert await items(client, ws.tokens["member"]) == []
