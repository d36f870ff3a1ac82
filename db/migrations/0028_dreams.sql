-- Dreams (issue 14, item 5; ANTHROPIC-WIRE §5): a memory store consolidated by the Dreamer's
-- reader, on a copy of the store (create_new) or on the store itself (update_existing), as a
-- job of the worker: pending -> running -> completed | failed | canceled. Who asked (the
-- actor, its token, the person it acted for) is kept: the versions a dream writes are theirs,
-- and its cost is charged to that person (else the workspace), like any pass.

CREATE TABLE dreams (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    status text NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'running', 'completed', 'failed', 'canceled')),
    input_store_id uuid NOT NULL,
    -- The conversations given as the dream's sessions, sorted.
    session_ids uuid[] NOT NULL DEFAULT '{}'
        CHECK (cardinality(session_ids) <= 100),
    model text NOT NULL CHECK (length(model) BETWEEN 1 AND 256),
    speed text CHECK (speed IN ('standard')),
    instructions text CHECK (length(instructions) BETWEEN 1 AND 4096),
    behavior text NOT NULL CHECK (behavior IN ('create_new', 'update_existing')),
    -- The store the dream writes: a new store (create_new, set once it runs) or the input.
    output_store_id uuid,
    actor_kind text NOT NULL CHECK (actor_kind IN ('member', 'agent', 'api_key', 'mcp_client')),
    actor_id uuid NOT NULL,
    actor_name text NOT NULL,
    token_id uuid,
    person_id uuid,
    payer_kind text NOT NULL CHECK (payer_kind IN ('member', 'workspace')),
    payer_id uuid,
    input_tokens integer NOT NULL DEFAULT 0 CHECK (input_tokens >= 0),
    output_tokens integer NOT NULL DEFAULT 0 CHECK (output_tokens >= 0),
    cost_usd numeric NOT NULL DEFAULT 0 CHECK (cost_usd >= 0),
    error_type text,
    error_message text,
    -- What the run did (memories read, lines changed, proposals not applied).
    note text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    started_at timestamptz,
    ended_at timestamptz,
    archived_at timestamptz,
    PRIMARY KEY (workspace_id, id),
    CHECK ((ended_at IS NULL) = (status IN ('pending', 'running'))),
    CHECK ((error_type IS NULL) = (status <> 'failed')),
    CHECK (archived_at IS NULL OR ended_at IS NOT NULL),
    CHECK ((payer_kind = 'member') = (payer_id IS NOT NULL))
);
CREATE INDEX dreams_by_creation ON dreams (workspace_id, created_at DESC, id DESC);
CREATE INDEX dreams_to_run ON dreams (status) WHERE status IN ('pending', 'running');

ALTER TABLE dreams ENABLE ROW LEVEL SECURITY;
ALTER TABLE dreams FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_isolation ON dreams USING (workspace_id = app_workspace_id())
    WITH CHECK (workspace_id = app_workspace_id());
-- Dreams are created, run, canceled and archived; never removed by the application.
GRANT SELECT, INSERT, UPDATE ON dreams TO skillmem_app;

-- A new dream wakes the workers' schedulers (as an item waiting does, migration 0013).
CREATE FUNCTION dreams_wake() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM pg_notify('skillmem_dreamer', '');
    RETURN NULL;
END
$$;
CREATE TRIGGER dreams_wake AFTER INSERT ON dreams
    FOR EACH STATEMENT EXECUTE FUNCTION dreams_wake();

-- The dreams to run (pending, or running: one whose worker stopped is run again by whoever
-- takes its lock), across workspaces: the workers' one view of them. SECURITY DEFINER like
-- dreamer_due, it answers ids and times, never a text; only the application role may call it.
CREATE FUNCTION dreams_due()
RETURNS TABLE (workspace_id uuid, dream_id uuid, created_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
    SELECT d.workspace_id, d.id, d.created_at
      FROM dreams d
     WHERE d.status IN ('pending', 'running')
     ORDER BY d.created_at, d.id
$$;
REVOKE EXECUTE ON FUNCTION dreams_due() FROM PUBLIC;
CREATE POLICY dreams_schedule ON dreams FOR SELECT TO CURRENT_USER USING (true);
GRANT EXECUTE ON FUNCTION dreams_due() TO skillmem_app;
