-- Memory (DESIGN §5): pages (one `memory` record each) of souvenirs stored as rows with a
-- stable key, the immutable versions of every page, proposals, people's preferences and the
-- workspace's allowances. Also the trash for records: a trashed record keeps its page.

-- A trashed record is read by no one until it is restored.
ALTER TABLE records ADD COLUMN trashed_at timestamptz;

-- A memory record is read through its page's rules only, never through the record API:
-- visibility 'memory' makes `record_readable` false for every caller.
ALTER TABLE records DROP CONSTRAINT records_visibility_check;
ALTER TABLE records ADD CONSTRAINT records_visibility_check
    CHECK (visibility IN ('workspace', 'private', 'memory'));
ALTER TABLE records DROP CONSTRAINT records_check;
ALTER TABLE records ADD CONSTRAINT records_private_has_owner
    CHECK (visibility <> 'private' OR owner_member_id IS NOT NULL);

CREATE OR REPLACE FUNCTION record_readable(r records, p_readable uuid[], p_person uuid)
RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT r.trashed_at IS NULL
       AND r.object_id = ANY (p_readable)
       AND (r.visibility = 'workspace'
            OR (r.visibility = 'private'
                AND COALESCE(r.owner_member_id = p_person OR p_person = ANY (r.shared_with),
                             false)))
$$;

-- Whether records of an object may carry a memory page: not the native objects, not the
-- framework's documents, not a satellite (it points to another object through a single
-- relation and no single relation points to it; DESIGN §2).
CREATE FUNCTION object_carries_pages(p_object_id uuid) RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT o.kind = 'custom'
       AND NOT (EXISTS (SELECT 1 FROM attributes a
                         WHERE a.workspace_id = o.workspace_id AND a.object_id = o.id
                           AND a.type = 'relation' AND a.target_object_id <> o.id)
                AND NOT EXISTS (SELECT 1 FROM attributes a
                                 WHERE a.workspace_id = o.workspace_id AND a.type = 'relation'
                                   AND a.target_object_id = o.id))
      FROM objects o
     WHERE o.workspace_id = app_workspace_id() AND o.id = p_object_id
$$;

-- A page: a profile (of a member, an agent, a routine or the workspace) or a record page.
-- Its name is its record's label; its lines are in memory_lines.
CREATE TABLE memory_pages (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    about_kind text NOT NULL
        CHECK (about_kind IN ('member', 'agent', 'routine', 'workspace', 'record')),
    member_id uuid,
    agent_id uuid,
    routine_id uuid,
    subject_id uuid,
    description text NOT NULL DEFAULT '' CHECK (length(description) <= 160),
    version integer NOT NULL DEFAULT 0 CHECK (version >= 0),
    trashed_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, id),
    FOREIGN KEY (workspace_id, id) REFERENCES records (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, member_id) REFERENCES members (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, agent_id) REFERENCES agents (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, routine_id)
        REFERENCES routines (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, subject_id) REFERENCES records (workspace_id, id) ON DELETE CASCADE,
    CHECK (CASE about_kind
               WHEN 'member' THEN num_nonnulls(member_id, agent_id, routine_id, subject_id) = 1
                                  AND member_id IS NOT NULL
               WHEN 'agent' THEN num_nonnulls(member_id, agent_id, routine_id, subject_id) = 1
                                 AND agent_id IS NOT NULL
               WHEN 'routine' THEN num_nonnulls(member_id, agent_id, routine_id, subject_id) = 1
                                   AND routine_id IS NOT NULL
               WHEN 'record' THEN num_nonnulls(member_id, agent_id, routine_id, subject_id) = 1
                                  AND subject_id IS NOT NULL
               ELSE num_nonnulls(member_id, agent_id, routine_id, subject_id) = 0
           END)
);
-- One live profile per actor, one live page per record.
CREATE UNIQUE INDEX memory_pages_one_live
    ON memory_pages (workspace_id, about_kind,
                     COALESCE(member_id, agent_id, routine_id, subject_id, workspace_id))
    WHERE trashed_at IS NULL;
CREATE INDEX memory_pages_by_subject ON memory_pages (workspace_id, subject_id);

-- The lines of a page in order. A souvenir's line is rendered from its fields; any other
-- line (heading, blank, the mission's text) is kept as written.
CREATE TABLE memory_lines (
    workspace_id uuid NOT NULL,
    page_id uuid NOT NULL,
    position integer NOT NULL CHECK (position >= 0),
    kind text NOT NULL CHECK (kind IN ('souvenir', 'heading', 'blank', 'mission')),
    key text CHECK (key ~ '^[A-Za-z0-9_-]{1,32}$'),
    -- What was said, for a souvenir; the line itself otherwise.
    text text NOT NULL,
    type text CHECK (type IN ('relation', 'contexte', 'décision', 'consigne', 'préférence')),
    author text,
    day date,
    until date,
    human boolean NOT NULL DEFAULT false,
    -- record: a record the souvenir comes from (a meeting, a mail, any record);
    -- conversation: the member who owns the private conversation or proposal.
    source_kind text CHECK (source_kind IN ('record', 'conversation')),
    source_id uuid,
    -- On a member's own profile only: the record the souvenir is about.
    about_id uuid,
    PRIMARY KEY (workspace_id, page_id, position),
    UNIQUE (workspace_id, page_id, key),
    FOREIGN KEY (workspace_id, page_id) REFERENCES memory_pages (workspace_id, id)
        ON DELETE CASCADE,
    CHECK ((kind = 'souvenir') = (key IS NOT NULL AND type IS NOT NULL AND author IS NOT NULL
                                   AND day IS NOT NULL)),
    CHECK ((source_kind IS NULL) = (source_id IS NULL)),
    CHECK (NOT human OR source_kind IS NULL)
);
CREATE INDEX memory_lines_by_about ON memory_lines (workspace_id, about_id)
    WHERE about_id IS NOT NULL;

-- Every mutation of a page: who, when, from which session, and the lines it left (NULL once
-- redacted). Immutable but for redaction.
CREATE TABLE memory_versions (
    workspace_id uuid NOT NULL,
    page_id uuid NOT NULL,
    number integer NOT NULL CHECK (number > 0),
    id uuid NOT NULL,
    operation text NOT NULL CHECK (operation IN ('created', 'modified', 'deleted', 'restored')),
    actor_kind text NOT NULL
        CHECK (actor_kind IN ('member', 'agent', 'api_key', 'mcp_client', 'system')),
    actor_id uuid,
    actor_name text NOT NULL,
    session_id uuid,
    -- The version this one wrote back (a rollback).
    rolled_back_from integer,
    lines jsonb CHECK (jsonb_typeof(lines) = 'array'),
    content_sha256 text CHECK (content_sha256 ~ '^[0-9a-f]{64}$'),
    created_at timestamptz NOT NULL DEFAULT now(),
    redacted_at timestamptz,
    redacted_by text,
    PRIMARY KEY (workspace_id, page_id, number),
    UNIQUE (workspace_id, id),
    -- A page is trashed, never deleted: its history stays (deleting it, or its record, or
    -- the record it is about, is refused while it has versions).
    FOREIGN KEY (workspace_id, page_id) REFERENCES memory_pages (workspace_id, id)
        ON DELETE RESTRICT,
    CHECK ((redacted_at IS NULL) = (lines IS NOT NULL)),
    CHECK ((redacted_at IS NULL) = (content_sha256 IS NOT NULL))
);

CREATE FUNCTION memory_versions_only_redacted() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF OLD.redacted_at IS NOT NULL OR NEW.lines IS NOT NULL OR NEW.redacted_at IS NULL THEN
        RAISE EXCEPTION 'a memory version is immutable: it can only be redacted';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER memory_versions_immutable BEFORE UPDATE ON memory_versions
    FOR EACH ROW EXECUTE FUNCTION memory_versions_only_redacted();

-- What agents (and people) propose for the Dreamer to read.
CREATE TABLE memory_proposals (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    proposer_kind text NOT NULL CHECK (proposer_kind IN ('member', 'agent', 'api_key', 'mcp_client')),
    proposer_id uuid NOT NULL,
    proposer_name text NOT NULL,
    session_id uuid,
    on_behalf_of uuid,
    record_id uuid,
    text text NOT NULL CHECK (length(text) BETWEEN 1 AND 2000),
    status text NOT NULL DEFAULT 'waiting'
        CHECK (status IN ('waiting', 'written', 'refreshed', 'refused')),
    verdict text,
    created_at timestamptz NOT NULL,
    decided_at timestamptz,
    PRIMARY KEY (workspace_id, id),
    FOREIGN KEY (workspace_id, on_behalf_of) REFERENCES members (workspace_id, id)
        ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, record_id) REFERENCES records (workspace_id, id)
        ON DELETE SET NULL (record_id)
);
CREATE INDEX memory_proposals_by_proposer
    ON memory_proposals (workspace_id, proposer_kind, proposer_id, created_at);

-- A person's preferences; no row means the default (on since the member was added).
CREATE TABLE member_preferences (
    workspace_id uuid NOT NULL,
    member_id uuid NOT NULL,
    key text NOT NULL CHECK (key IN ('memory.shareWithTeam', 'memory.learnFromEmail')),
    value boolean NOT NULL,
    -- When the preference was last turned on (NULL while it has been off since it was set).
    turned_on_at timestamptz,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, member_id, key),
    FOREIGN KEY (workspace_id, member_id) REFERENCES members (workspace_id, id) ON DELETE CASCADE
);

-- The workspace's settings; NULL means the default. Amounts keep the scale they were given.
CREATE TABLE workspace_settings (
    workspace_id uuid PRIMARY KEY REFERENCES workspaces ON DELETE CASCADE,
    memory_person_monthly_limit_usd numeric
        CHECK (memory_person_monthly_limit_usd >= 0
               AND scale(memory_person_monthly_limit_usd) <= 6),
    memory_tenant_monthly_limit_usd numeric
        CHECK (memory_tenant_monthly_limit_usd >= 0
               AND scale(memory_tenant_monthly_limit_usd) <= 6),
    updated_at timestamptz NOT NULL DEFAULT now()
);

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['memory_pages', 'memory_lines', 'memory_versions',
                             'memory_proposals', 'member_preferences', 'workspace_settings'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format(
            'CREATE POLICY workspace_isolation ON %I USING (workspace_id = app_workspace_id())'
            ' WITH CHECK (workspace_id = app_workspace_id())', t);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO skillmem_app', t);
    END LOOP;
END
$$;

-- Versions are added, and redacted (their lines scrubbed), never otherwise changed or removed.
REVOKE UPDATE, DELETE ON memory_versions FROM skillmem_app;
REVOKE DELETE ON memory_pages FROM skillmem_app;
GRANT UPDATE (lines, content_sha256, redacted_at, redacted_by) ON memory_versions TO skillmem_app;
GRANT EXECUTE ON FUNCTION object_carries_pages(uuid) TO skillmem_app;

