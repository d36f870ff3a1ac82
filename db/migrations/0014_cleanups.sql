-- Memory's upkeep (issue 11): the Monday removal and consolidation, each run recorded with
-- what it changed and why. A run is for one audience: one person's private pages (their
-- profile: audience_id the member) or the workspace's (every other page; audience_id NULL).
-- The removal calls no model: its reader is 'code' and it costs nothing.
CREATE TABLE memory_cleanups (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    kind text NOT NULL CHECK (kind IN ('removal', 'consolidation')),
    audience_kind text NOT NULL CHECK (audience_kind IN ('member', 'workspace')),
    audience_id uuid,
    -- Why it ran: removal 'monday'; consolidation 'written' (about 4,000 characters since the
    -- last one), 'week' (a week since the last one, something written since) or 'rules' (never
    -- consolidated under the current rules).
    trigger text NOT NULL CHECK (trigger IN ('monday', 'written', 'week', 'rules')),
    -- The rules version a consolidation ran under (0 for a removal).
    rules_version integer NOT NULL DEFAULT 0,
    payer_kind text CHECK (payer_kind IN ('member', 'workspace')),
    payer_id uuid,
    reader text NOT NULL,
    pages_read integer NOT NULL DEFAULT 0 CHECK (pages_read >= 0),
    lines_changed integer NOT NULL DEFAULT 0 CHECK (lines_changed >= 0),
    pages_deleted integer NOT NULL DEFAULT 0 CHECK (pages_deleted >= 0),
    input_tokens bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    cost_usd numeric NOT NULL DEFAULT 0 CHECK (cost_usd >= 0),
    -- Why it did less than it could (over the allowance, the reader failed); '' otherwise.
    note text NOT NULL DEFAULT '',
    started_at timestamptz NOT NULL,
    finished_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, id),
    CHECK ((audience_kind = 'workspace') = (audience_id IS NULL)),
    CHECK ((payer_kind = 'workspace') = (payer_id IS NULL) OR payer_kind IS NULL),
    FOREIGN KEY (workspace_id, audience_id) REFERENCES members (workspace_id, id)
        ON DELETE CASCADE
);
CREATE INDEX memory_cleanups_by_audience
    ON memory_cleanups (workspace_id, kind, audience_kind, audience_id, started_at DESC);

-- What a run changed, line by line: a souvenir removed, retyped, rewritten or merged, a page
-- deleted, with the reason and the line as it was (and as it became).
CREATE TABLE memory_cleanup_changes (
    workspace_id uuid NOT NULL,
    cleanup_id uuid NOT NULL,
    number integer NOT NULL CHECK (number > 0),
    page_id uuid NOT NULL,
    change text NOT NULL CHECK (change IN ('removed', 'retyped', 'rewritten', 'merged',
                                            'page_deleted')),
    reason text NOT NULL CHECK (reason IN (
        -- the removal's
        'ended', 'review_passed', 'source_gone', 'source_closed', 'page_empty',
        -- consolidation's
        'retyped', 'no_type', 'not_durable', 'principle', 'log', 'duplicate')),
    line_key text,
    text text,
    new_text text,
    new_type text,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, cleanup_id, number),
    FOREIGN KEY (workspace_id, cleanup_id) REFERENCES memory_cleanups (workspace_id, id)
        ON DELETE CASCADE
);

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['memory_cleanups', 'memory_cleanup_changes'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format(
            'CREATE POLICY workspace_isolation ON %I USING (workspace_id = app_workspace_id())'
            ' WITH CHECK (workspace_id = app_workspace_id())', t);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO skillmem_app', t);
    END LOOP;
END
$$;
