"""Fill one workspace of the `skillmem_bench` database with a realistic CRM, once.

Run as `python -m bench.generate [--fresh]`. Everything goes in through one transaction begun
with `app_begin_workspace`, so row-level security checks every row. PostgreSQL refuses
`COPY FROM` into a table with row-level security for the application role ("COPY FROM not
supported with row-level security"), so rows are copied into temporary staging tables
(which have none) and moved with one `INSERT ... SELECT` per table.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from uuid import NAMESPACE_URL, UUID, uuid5

import asyncpg
import orjson

from db import identity
from db.embedded import start_embedded
from db.migrate import apply_migrations, migrations
from db.pool import begin_workspace
from gateway.demo import CRM_OBJECTS
from resolvers.common import ids
from resolvers.common.principals import issue_token
from resolvers.memory.grammar import Reference, Souvenir, render
from resolvers.records.workspaces import create_object, create_workspace, grant_standard_roles

CHECKOUT = Path(__file__).resolve().parent.parent
SERVER_DIR = CHECKOUT / ".data" / "bench-postgres"
DATABASE = "skillmem_bench"
WORKSPACE_ID = uuid5(NAMESPACE_URL, "skillmem:bench-workspace")
CALLER_EMAIL = "caller@bench.example"
SEED = 20_240_601
# Bump when the generated data changes shape; a database made by another version is remade.
GENERATOR_VERSION = 3

RECORDS_PER_OBJECT = {
    "companies": 10_000,
    "contacts": 40_000,
    "deals": 25_000,
    "tasks": 20_000,
    "notes": 15_000,
}
# Share of each object's records that are private to their owner (and shared with a few).
PRIVATE_SHARE = {"companies": 0.01, "contacts": 0.03, "deals": 0.06, "tasks": 0.02, "notes": 0.1}
MEMBERS = 3_000
# Memory: record pages on the first companies, then contacts; souvenirs per page.
MEMORY_PAGES = {"companies": 10_000, "contacts": 40_000}
SOUVENIRS_PER_PAGE = (3, 8)
# The records the caller's profile holds souvenirs about (the bench turn mentions them).
CALLER_RECORDS = 3
ROLE_COUNTS = {"admin": 30, "viewer": 570}  # every other member has the `member` role
UPDATED_SHARE = 0.3  # records with an `update` in their change log besides their `create`

FIRST_NAMES = (
    "Alice Bruno Chloe David Emma Farid Giulia Hugo Ines Jonas Karim Lea Marc Nora Oscar Paula "
    "Quentin Rosa Samir Tess Ugo Vera William Xenia Yann Zoe Amir Berit Camille Diego"
).split()
LAST_NAMES = (
    "Martin Bernard Dubois Thomas Robert Richard Petit Durand Leroy Moreau Simon Laurent "
    "Lefebvre Michel Garcia Fournier Lambert Rousseau Vincent Muller Schmidt Rossi Novak Silva"
).split()
COMPANY_WORDS = (
    "North Blue Iron Bright Silver Green Red Swift Clear Stone Oak River Summit Nova Apex "
    "Pioneer Harbor Cedar Atlas Vertex Quartz Falcon Orbit Maple"
).split()
COMPANY_KINDS = "Labs Systems Logistics Foods Energy Health Media Robotics Capital Works".split()
INDUSTRIES = "Software Manufacturing Energy Retail Healthcare Finance Logistics Media".split()
PRODUCTS = "licence renewal pilot expansion support upgrade onboarding audit".split()
TASK_VERBS = "Call Email Send Prepare Review Schedule Follow-up Negotiate".split()
NOTE_WORDS = (
    "customer asked about pricing timeline security review integration budget approval "
    "procurement legal contract renewal expansion feedback roadmap priority"
).split()

SOUVENIR_TEMPLATES = (
    ("{label} préfère les échanges en français", "préférence"),
    ("{label} wants every invoice sent by mail, never by post", "préférence"),
    ("Le DAF de {label} décide seul au-delà de {amount} €", "décision"),
    ("{person} est désormais le contact principal chez {label}", "relation"),
    ("{label} gèle ses achats en attendant le budget annuel", "contexte"),
    ("Réunion de suivi avec {label} désormais le mardi matin", "consigne"),
    ("{person} a reçu la proposition et attend l'accord de la direction", "contexte"),
    ("{label} asked for a security review before any renewal", "décision"),
    ("Toujours copier {person} sur les échanges avec {label}", "consigne"),
    ("{label} négocie ses contrats en fin de trimestre", "contexte"),
)
PAGE_COLUMNS = (
    "workspace_id",
    "id",
    "about_kind",
    "member_id",
    "subject_id",
    "description",
    "version",
    "created_at",
    "updated_at",
)
LINE_COLUMNS = (
    "workspace_id",
    "page_id",
    "position",
    "kind",
    "key",
    "text",
    "type",
    "author",
    "day",
    "until",
    "human",
    "source_kind",
    "source_id",
    "about_id",
)
VERSION_COLUMNS = (
    "workspace_id",
    "page_id",
    "number",
    "id",
    "operation",
    "actor_kind",
    "actor_name",
    "lines",
    "content_sha256",
    "created_at",
)

RECORD_COLUMNS = (
    "workspace_id",
    "id",
    "object_id",
    "external_id",
    "label",
    "values",
    "visibility",
    "owner_member_id",
    "created_at",
    "updated_at",
    "shared_with",
)
MEMBER_COLUMNS = ("workspace_id", "id", "name", "email", "role_id", "created_at")
LINK_COLUMNS = ("workspace_id", "record_id", "attribute_slug", "target_id")
TABLES = (
    "members",
    "records",
    "record_links",
    "record_changes",
    "memory_pages",
    "memory_lines",
    "memory_versions",
)
CHANGE_COLUMNS = (
    "workspace_id",
    "record_id",
    "changed_at",
    "actor_kind",
    "actor_id",
    "actor_name",
    "operation",
    "fields",
)


@dataclass(frozen=True, slots=True)
class BenchData:
    """The benchmark database and a fresh token of its calling member."""

    dsn: str
    workspace_id: UUID
    caller_id: UUID
    token: str
    counts: dict[str, int]
    generated: bool
    seconds: float


def fingerprint() -> str:
    """What the data depends on: the generator's settings and the migrations."""
    parts = (
        GENERATOR_VERSION,
        SEED,
        sorted(RECORDS_PER_OBJECT.items()),
        sorted(PRIVATE_SHARE.items()),
        MEMBERS,
        sorted(ROLE_COUNTS.items()),
        sorted(MEMORY_PAGES.items()),
        SOUVENIRS_PER_PAGE,
        SOUVENIR_TEMPLATES,
        UPDATED_SHARE,
        [m.checksum for m in migrations()],
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def workspace_name() -> str:
    """The bench workspace's name, which records what made it."""
    return f"Bench {fingerprint()}"


def with_database(dsn: str, name: str) -> str:
    """The same server's DSN naming another database."""
    return urlunsplit(urlsplit(dsn)._replace(path=f"/{name}"))


def server_dsn() -> tuple[str, Any]:
    """DATABASE_URL's server, or the bench's own embedded server (with its handle)."""
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"], None
    server = start_embedded(SERVER_DIR)
    return server.get_uri(), server


class _Maker:
    """Deterministic rows for one workspace."""

    def __init__(self, objects: dict[str, UUID], roles: dict[str, UUID]) -> None:
        self.rng = random.Random(SEED)
        self.objects = objects
        self.roles = roles
        self.now = datetime(2026, 6, 1, tzinfo=UTC)
        self.span = timedelta(days=730).total_seconds()
        self.members: list[tuple[Any, ...]] = []
        self.records: list[tuple[Any, ...]] = []
        self.links: list[tuple[Any, ...]] = []
        self.changes: list[tuple[Any, ...]] = []
        self.writers: list[tuple[UUID, str]] = []  # members who may create records
        self.caller: UUID | None = None
        self.by_object: dict[str, list[tuple[UUID, float]]] = {}
        self.contacts_of: dict[UUID, list[UUID]] = {}
        self.labels: dict[UUID, tuple[str, str, UUID | None, list[UUID]]] = {}
        self.pages: list[tuple[Any, ...]] = []
        self.lines: list[tuple[Any, ...]] = []
        self.versions: list[tuple[Any, ...]] = []
        self.caller_records: list[UUID] = []

    def uuid(self) -> UUID:
        return UUID(int=self.rng.getrandbits(128), version=4)

    def at(self, offset: float) -> datetime:
        return self.now - timedelta(seconds=self.span * (1.0 - offset))

    def person(self) -> str:
        return f"{self.rng.choice(FIRST_NAMES)} {self.rng.choice(LAST_NAMES)}"

    def make_members(self) -> None:
        roles = ["admin"] * ROLE_COUNTS["admin"] + ["viewer"] * ROLE_COUNTS["viewer"]
        roles += ["member"] * (MEMBERS - len(roles))
        self.rng.shuffle(roles)
        roles[0] = "member"
        for n, role in enumerate(roles):
            member_id = self.uuid()
            if n == 0:
                name, email = "Bench Caller", CALLER_EMAIL
                self.caller = member_id
            else:
                name = self.person()
                email = f"{name.lower().replace(' ', '.')}.{n}@bench.example"
            created = self.at(self.rng.random() * 0.2)
            self.members.append((WORKSPACE_ID, member_id, name, email, self.roles[role], created))
            if role != "viewer":
                self.writers.append((member_id, name))

    def make_records(self) -> None:
        for slug, count in RECORDS_PER_OBJECT.items():
            self.by_object[slug] = []
            make = getattr(self, f"_{slug}")
            for n in range(count):
                make(n)

    def _record(
        self,
        slug: str,
        n: int,
        label: str,
        values: dict[str, Any],
        relations: Sequence[tuple[str, UUID]] = (),
        after: float = 0.0,
    ) -> UUID:
        """Add a record created at a random time after ``after`` (a parent's time)."""
        record_id = self.uuid()
        created_offset = after + (1.0 - after) * self.rng.random()
        created = self.at(created_offset)
        updated = created
        author_id, author = self.rng.choice(self.writers)
        visibility, owner, shared = "workspace", None, []
        if self.rng.random() < PRIVATE_SHARE[slug]:
            visibility = "private"
            owner = self.caller if self.rng.random() < 0.05 else author_id
            others = {self.rng.choice(self.writers)[0] for _ in range(self.rng.randint(1, 3))}
            if slug == "contacts" and self.rng.random() < 0.1:
                others.add(self.caller)  # type: ignore[arg-type]
            shared = sorted(others - {owner})
        fields = ["label", *values]
        self.changes.append(
            (WORKSPACE_ID, record_id, created, "member", author_id, author, "create", fields)
        )
        if self.rng.random() < UPDATED_SHARE:
            updated = self.at(created_offset + (1.0 - created_offset) * self.rng.random())
            editor_id, editor = self.rng.choice(self.writers)
            changed = self.rng.sample(fields, k=self.rng.randint(1, len(fields)))
            self.changes.append(
                (WORKSPACE_ID, record_id, updated, "member", editor_id, editor, "update", changed)
            )
        self.records.append(
            (
                WORKSPACE_ID,
                record_id,
                self.objects[slug],
                f"{slug}-{n}",
                label,
                orjson.dumps(values).decode(),
                visibility,
                owner,
                created,
                updated,
                shared,
            )
        )
        for attribute, target in relations:
            self.links.append((WORKSPACE_ID, record_id, attribute, target))
        self.by_object[slug].append((record_id, created_offset))
        self.labels[record_id] = (label, visibility, owner, shared)
        return record_id

    def make_memory(self) -> None:
        """Record pages (each a memory record) with their souvenirs and first version; the
        caller's profile, holding souvenirs about the first companies it may read."""

        def readable_by_caller(record_id: UUID) -> bool:
            _, visibility, owner, shared = self.labels[record_id]
            return visibility == "workspace" or self.caller in (owner, *shared)

        sources = [r for r, _ in self.by_object["deals"]]
        for slug, count in MEMORY_PAGES.items():
            for n, (subject, _) in enumerate(self.by_object[slug][:count]):
                label = self.labels[subject][0]
                lines = []
                for position in range(self.rng.randint(*SOUVENIRS_PER_PAGE)):
                    template, type_ = self.rng.choice(SOUVENIR_TEMPLATES)
                    text = template.format(
                        label=label, person=self.person(), amount=self.rng.randrange(5, 500) * 1000
                    )
                    day = (self.now - timedelta(days=self.rng.randint(0, 365))).date()
                    source = self.rng.choice(sources) if self.rng.random() < 0.3 else None
                    lines.append(
                        (position, text, type_, self.rng.choice(self.writers)[1], day, source)
                    )
                self._page(f"{slug}-page-{n}", "record", None, subject, label, lines)
        self.caller_records = [r for r, _ in self.by_object["companies"] if readable_by_caller(r)][
            :CALLER_RECORDS
        ]
        profile = []
        for n, record in enumerate(self.caller_records):
            day = (self.now - timedelta(days=n)).date()
            profile.append(
                (
                    n,
                    f"Bench Caller suit {self.labels[record][0]}",
                    "relation",
                    "Bench Caller",
                    day,
                    None,
                    record,
                )
            )
        self._page("caller-profile", "member", self.caller, None, "Bench Caller", profile)

    def _page(
        self,
        external_id: str,
        about_kind: str,
        member: UUID | None,
        subject: UUID | None,
        name: str,
        lines: list[tuple[Any, ...]],
    ) -> None:
        page_id = self.uuid()
        created = self.now
        self.records.append(
            (
                WORKSPACE_ID,
                page_id,
                self.objects["memory"],
                external_id,
                name[:100],
                "{}",
                "memory",
                None,
                created,
                created,
                [],
            )
        )
        self.pages.append(
            (WORKSPACE_ID, page_id, about_kind, member, subject, "", 1, created, created)
        )
        stored, rendered = [], []
        for item in lines:
            position, text, type_, author, day, source = item[:6]
            about = item[6] if len(item) > 6 else None
            key = f"s{self.rng.getrandbits(60):x}"
            self.lines.append(
                (
                    WORKSPACE_ID,
                    page_id,
                    position,
                    "souvenir",
                    key,
                    text,
                    type_,
                    author,
                    day,
                    None,
                    False,
                    "record" if source else None,
                    source,
                    about,
                )
            )
            stored.append(
                {
                    "kind": "souvenir",
                    "text": text,
                    "key": key,
                    "type": type_,
                    "author": author,
                    "day": day.isoformat(),
                    "until": None,
                    "human": False,
                    "source_kind": "record" if source else None,
                    "source_id": str(source) if source else None,
                    "about_id": str(about) if about else None,
                }
            )
            reference = (
                Reference(
                    self.labels[about][0], "record:" + ids.encode("Record", WORKSPACE_ID, about)
                )
                if about
                else None
            )
            source_text = "record:" + ids.encode("Record", WORKSPACE_ID, source) if source else None
            rendered.append(render(Souvenir(text, type_, author, day, source_text, reference)))
        content = "\n".join(rendered)
        self.versions.append(
            (
                WORKSPACE_ID,
                page_id,
                1,
                self.uuid(),
                "created",
                "system",
                "memory",
                orjson.dumps(stored).decode(),
                hashlib.sha256(content.encode()).hexdigest(),
                created,
            )
        )

    def _pick(self, slug: str) -> tuple[UUID, float]:
        return self.rng.choice(self.by_object[slug])

    def _companies(self, n: int) -> None:
        name = f"{self.rng.choice(COMPANY_WORDS)}{self.rng.choice(COMPANY_WORDS).lower()}"
        label = f"{name} {self.rng.choice(COMPANY_KINDS)}"
        values = {
            "domain": f"https://{name.lower()}-{n}.example",
            "industry": self.rng.choice(INDUSTRIES),
            "employees": int(self.rng.lognormvariate(4, 1.5)) + 1,
        }
        self._record("companies", n, label, values)

    def _contacts(self, n: int) -> None:
        name = self.person()
        values = {"email": f"{name.lower().replace(' ', '.')}.{n}@mail.example"}
        # A contact without a company is dated like one with, so both mix in every page.
        company, at = self._pick("companies")
        linked = self.rng.random() < 0.95
        relations = [("company", company)] if linked else []
        contact = self._record("contacts", n, name, values, relations, at)
        if linked:
            self.contacts_of.setdefault(company, []).append(contact)

    def _deals(self, n: int) -> None:
        company, at = self._pick("companies")
        relations = [("company", company)]
        contacts = self.contacts_of.get(company)
        if contacts and self.rng.random() < 0.8:
            relations.append(("contact", self.rng.choice(contacts)))
        close = self.now.date() + timedelta(days=self.rng.randint(-365, 365))
        values = {
            "amount": self.rng.randrange(1_000, 500_000, 500),
            "close_date": close.isoformat(),
            "won": self.rng.random() < 0.3,
        }
        label = f"Deal {n}: {self.rng.choice(PRODUCTS)}"
        self._record("deals", n, label, values, relations, at)

    def _tasks(self, n: int) -> None:
        deal, at = self._pick("deals")
        due = self.now.date() + timedelta(days=self.rng.randint(-60, 90))
        label = f"{self.rng.choice(TASK_VERBS)} about deal ({n})"
        self._record("tasks", n, label, {"due": due.isoformat()}, [("deal", deal)], at)

    def _notes(self, n: int) -> None:
        company, at = self._pick("companies")
        body = " ".join(self.rng.choices(NOTE_WORDS, k=self.rng.randint(10, 60))).capitalize()
        label = f"Note {n}: {body[:40]}"
        self._record("notes", n, label, {"body": body + "."}, [("company", company)], at)


async def _bulk(
    conn: asyncpg.Connection,
    table: str,
    columns: Sequence[str],
    rows: list[tuple[Any, ...]],
    order_by: str | None = None,
) -> None:
    """COPY ``rows`` into a temporary twin of ``table``, then insert them under RLS."""
    stage = f"bench_stage_{table}"
    names = ", ".join(f'"{c}"' for c in columns)
    await conn.execute(
        f"CREATE TEMP TABLE {stage} ON COMMIT DROP AS SELECT {names} FROM {table} WITH NO DATA"  # noqa: S608
    )
    await conn.copy_records_to_table(stage, records=rows, columns=list(columns))
    order = f" ORDER BY {order_by}" if order_by else ""
    await conn.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM {stage}{order}")  # noqa: S608


async def _generate(conn: asyncpg.Connection) -> None:
    """Create the bench workspace and everything in it, in one transaction."""
    async with conn.transaction():
        new = await create_workspace(conn, workspace_name(), WORKSPACE_ID)
        objects = dict(new.objects)
        for slug, singular, plural, attributes in CRM_OBJECTS:
            objects[slug] = await create_object(conn, slug, singular, plural, attributes)
            await grant_standard_roles(conn, new.roles, objects[slug])
        maker = _Maker(objects, new.roles)
        maker.make_members()
        maker.make_records()
        maker.make_memory()
        await _bulk(conn, "members", MEMBER_COLUMNS, maker.members)
        await _bulk(conn, "records", RECORD_COLUMNS, maker.records, order_by="created_at")
        await _bulk(conn, "record_links", LINK_COLUMNS, maker.links)
        await _bulk(conn, "record_changes", CHANGE_COLUMNS, maker.changes, order_by="changed_at")
        await _bulk(conn, "memory_pages", PAGE_COLUMNS, maker.pages)
        await _bulk(conn, "memory_lines", LINE_COLUMNS, maker.lines)
        await _bulk(conn, "memory_versions", VERSION_COLUMNS, maker.versions)
    for table in TABLES:
        await conn.execute(f"VACUUM (ANALYZE) {table}")


async def _current(dsn: str) -> bool:
    """Whether the database holds this generator's workspace (migrating it first)."""
    conn = await asyncpg.connect(dsn)
    try:
        await apply_migrations(conn)
        async with conn.transaction():
            await begin_workspace(conn, WORKSPACE_ID)
            row = await identity.workspace(conn)
        return row is not None and row.name == workspace_name()
    finally:
        await conn.close()


async def counts(conn: asyncpg.Connection) -> dict[str, int]:
    """Rows of the bench workspace: records per object, members, links, shares, changes."""
    async with conn.transaction():
        await begin_workspace(conn, WORKSPACE_ID)
        rows = await conn.fetch(
            "SELECT o.slug, count(*) AS n FROM records r"
            " JOIN objects o ON o.workspace_id = r.workspace_id AND o.id = r.object_id"
            " GROUP BY o.slug ORDER BY o.slug"
        )
        found = {f"records.{row['slug']}": row["n"] for row in rows}
        found["records"] = sum(found.values())
        for table in TABLES:
            if table != "records":
                found[table] = await conn.fetchval(f"SELECT count(*) FROM {table}")  # noqa: S608
        found["private_records"] = await conn.fetchval(
            "SELECT count(*) FROM records WHERE visibility = 'private'"
        )
        found["shares"] = await conn.fetchval("SELECT sum(cardinality(shared_with)) FROM records")
    return found


async def ensure(server: str, database: str = DATABASE, *, fresh: bool = False) -> BenchData:
    """The bench database on ``server``, generated unless it already holds this data."""
    started = time.perf_counter()
    dsn = with_database(server, database)
    admin = await asyncpg.connect(server)
    try:
        exists = await admin.fetchval("SELECT true FROM pg_database WHERE datname = $1", database)
        reuse = bool(exists) and not fresh and await _current(dsn)
        if exists and not reuse:
            await admin.execute(f'DROP DATABASE "{database}" WITH (FORCE)')
        if not reuse:
            await admin.execute(f'CREATE DATABASE "{database}"')
    finally:
        await admin.close()
    # A plain connection: binary COPY has no encoder for the pool's text jsonb codec, so values
    # go in as JSON text.
    conn = await asyncpg.connect(dsn)
    try:
        if not reuse:
            await apply_migrations(conn)
            await _generate(conn)
        async with conn.transaction():
            await begin_workspace(conn, WORKSPACE_ID)
            await identity.revoke_tokens_by_purpose(conn, "test")
            caller = await identity.member_by_email(conn, CALLER_EMAIL)
            assert caller is not None
            token = await issue_token(conn, "member", member_id=caller.id, purpose="test")
        found = await counts(conn)
    finally:
        await conn.close()
    return BenchData(
        dsn=dsn,
        workspace_id=WORKSPACE_ID,
        caller_id=caller.id,
        token=token,
        counts=found,
        generated=not reuse,
        seconds=time.perf_counter() - started,
    )


def main() -> None:
    """Generate (or find) the bench data and say what is there."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fresh", action="store_true", help="drop and regenerate the data")
    args = parser.parse_args()
    server, _handle = server_dsn()
    data = asyncio.run(ensure(server, fresh=args.fresh))
    verb = "generated" if data.generated else "found"
    print(f"{verb} {data.counts['records']:,} records in {data.seconds:.1f} s: {data.counts}")


if __name__ == "__main__":
    main()
