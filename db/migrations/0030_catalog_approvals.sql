-- Approvals (issue 15, item 7; DESIGN §4): an agent's install from the catalogue and an agent's
-- search of the community directory never run directly. Each becomes an approval for the
-- person the agent works for, with a card saying exactly what would happen (an install: the
-- source pinned to its commit, who will see the skill, how many files land, which are scripts;
-- a search: the exact texts that would leave). The person approves or declines; an approved
-- one runs as that person and keeps its outcome. A pending approval past expires_at is
-- expired: it is read so (the clock decides, in the query) and can no longer be decided.

CREATE TABLE catalog_approvals (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    kind text NOT NULL CHECK (kind IN ('install', 'search')),
    -- The agent that asked, and the person it works for: the only one who may decide.
    agent_id uuid NOT NULL,
    person_id uuid NOT NULL,
    card jsonb NOT NULL,
    status text NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'approved', 'declined')),
    -- What an approved one did: the skill installed, or what the directory answered.
    outcome jsonb,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    decided_at timestamptz,
    PRIMARY KEY (workspace_id, id),
    FOREIGN KEY (workspace_id, agent_id) REFERENCES agents (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, person_id) REFERENCES members (workspace_id, id) ON DELETE CASCADE,
    CHECK (expires_at > created_at),
    CHECK ((decided_at IS NULL) = (status = 'pending')),
    CHECK (outcome IS NULL OR status = 'approved')
);
CREATE INDEX catalog_approvals_by_person
    ON catalog_approvals (workspace_id, person_id, created_at DESC, id DESC);
CREATE INDEX catalog_approvals_by_agent
    ON catalog_approvals (workspace_id, agent_id, created_at DESC, id DESC);

ALTER TABLE catalog_approvals ENABLE ROW LEVEL SECURITY;
ALTER TABLE catalog_approvals FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_isolation ON catalog_approvals
    USING (workspace_id = app_workspace_id()) WITH CHECK (workspace_id = app_workspace_id());
-- Approvals are asked and decided; never removed by the application (its agent's or its
-- person's removal takes them).
GRANT SELECT, INSERT, UPDATE ON catalog_approvals TO skillmem_app;

-- How an approval reads at a time: a pending one past its time is expired.
CREATE FUNCTION catalog_approval_status(p_status text, p_expires_at timestamptz,
                                        p_now timestamptz)
RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
    SELECT CASE WHEN p_status = 'pending' AND p_expires_at <= p_now THEN 'expired'
                ELSE p_status END
$$;
