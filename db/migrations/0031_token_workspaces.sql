-- Every key leads with workspace_id (issue 16, item 5), tokens' included. A bearer token was
-- unique on its hash across workspaces, because the hash is how a request finds its
-- workspace. That one lookup before any workspace is known now has a table of its own,
-- token_workspaces: a token's hash and its workspace, nothing else (on Citus a reference
-- table; with workspaces split across servers, the router's directory). tokens itself is
-- keyed by (workspace_id, token_hash), and a request reads its token inside its workspace.

CREATE TABLE token_workspaces (
    -- Not per-workspace by nature: it maps a token to its workspace before any is known.
    token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    workspace_id uuid NOT NULL REFERENCES workspaces ON DELETE CASCADE
);

-- The tokens already issued, read by their owner (the policies are forced on tokens, so they
-- are lifted for this one statement, inside this migration's transaction).
ALTER TABLE tokens NO FORCE ROW LEVEL SECURITY;
INSERT INTO token_workspaces (token_hash, workspace_id)
SELECT token_hash, workspace_id FROM tokens;
ALTER TABLE tokens FORCE ROW LEVEL SECURITY;

ALTER TABLE tokens DROP CONSTRAINT tokens_token_hash_key;
ALTER TABLE tokens ADD CONSTRAINT tokens_workspace_id_token_hash_key
    UNIQUE (workspace_id, token_hash);

-- A row is visible in its workspace, and to whoever presents its hash (the lookup that finds
-- the workspace in the first place); the application may add rows, never change them.
ALTER TABLE token_workspaces ENABLE ROW LEVEL SECURITY;
ALTER TABLE token_workspaces FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_isolation ON token_workspaces
    USING (workspace_id = app_workspace_id()
           OR token_hash = NULLIF(current_setting('app.token_hash', true), ''))
    WITH CHECK (workspace_id = app_workspace_id());
GRANT SELECT, INSERT ON token_workspaces TO skillmem_app;

-- tokens is now read in its workspace only, like every other table.
DROP POLICY workspace_isolation ON tokens;
CREATE POLICY workspace_isolation ON tokens
    USING (workspace_id = app_workspace_id())
    WITH CHECK (workspace_id = app_workspace_id());

-- As in 0025, but the token's workspace comes from token_workspaces, and the token is then
-- read in that workspace. An unknown or revoked token returns no row and leaves no workspace
-- set.
CREATE OR REPLACE FUNCTION app_begin_request(p_token_hash text)
RETURNS TABLE (
    workspace_id uuid,
    workspace_name text,
    token_id uuid,
    kind text,
    member_id uuid,
    member_name text,
    member_email text,
    actor_id uuid,
    actor_name text,
    role_id uuid,
    role_name text,
    can_update_settings boolean,
    can_write_skills boolean,
    readable uuid[],
    creatable uuid[],
    updatable uuid[],
    deletable uuid[]
)
LANGUAGE plpgsql VOLATILE
SET search_path = public, pg_temp
AS $$
DECLARE
    found_workspace uuid;
    t tokens%ROWTYPE;
BEGIN
    PERFORM set_config('role', 'skillmem_app', true);
    PERFORM set_config('app.token_hash', p_token_hash, true);
    SELECT d.workspace_id INTO found_workspace FROM token_workspaces d
     WHERE d.token_hash = p_token_hash;
    PERFORM set_config('app.token_hash', '', true);
    IF found_workspace IS NULL THEN
        RETURN;
    END IF;
    PERFORM set_config('app.workspace_id', found_workspace::text, true);
    SELECT * INTO t FROM tokens
     WHERE tokens.workspace_id = found_workspace AND tokens.token_hash = p_token_hash
       AND tokens.revoked_at IS NULL;
    IF t.id IS NULL THEN
        PERFORM set_config('app.workspace_id', '', true);
        RETURN;
    END IF;
    RETURN QUERY
    WITH actor AS (
        SELECT a.id, a.name, NULL::uuid AS role_id FROM agents a
         WHERE t.kind = 'agent' AND a.workspace_id = t.workspace_id AND a.id = t.agent_id
        UNION ALL
        SELECT k.id, k.name, k.role_id FROM api_keys k
         WHERE t.kind = 'api_key' AND k.workspace_id = t.workspace_id AND k.id = t.api_key_id
        UNION ALL
        SELECT c.id, c.name, NULL::uuid FROM mcp_clients c
         WHERE t.kind = 'mcp_client' AND c.workspace_id = t.workspace_id
           AND c.id = t.mcp_client_id
    ),
    who AS (
        SELECT m.id AS member_id, m.name AS member_name, m.email AS member_email,
               COALESCE(actor.id, m.id) AS actor_id, COALESCE(actor.name, m.name) AS actor_name,
               COALESCE(actor.role_id, m.role_id) AS role_id
          FROM (SELECT 1) one
          LEFT JOIN members m ON m.workspace_id = t.workspace_id AND m.id = t.member_id
          LEFT JOIN actor ON true
    )
    SELECT t.workspace_id, w.name, t.id, t.kind, who.member_id, who.member_name,
           who.member_email, who.actor_id, who.actor_name, r.id, r.name,
           r.can_update_settings, r.can_write_skills,
           COALESCE(array_agg(p.object_id) FILTER (WHERE p.can_read), '{}'),
           COALESCE(array_agg(p.object_id) FILTER (WHERE p.can_create), '{}'),
           COALESCE(array_agg(p.object_id) FILTER (WHERE p.can_update), '{}'),
           COALESCE(array_agg(p.object_id) FILTER (WHERE p.can_delete), '{}')
      FROM who
      JOIN workspaces w ON w.workspace_id = t.workspace_id
      JOIN roles r ON r.workspace_id = t.workspace_id AND r.id = who.role_id
      LEFT JOIN role_permissions p
             ON p.workspace_id = t.workspace_id AND p.role_id = r.id
            -- An agent whose tool groups omit memory holds no right on the memory object.
            AND (t.kind <> 'agent' OR agent_memory_on(t.agent_id)
                 OR p.object_id NOT IN (SELECT o.id FROM objects o
                                     WHERE o.workspace_id = t.workspace_id
                                       AND o.kind = 'memory'))
     GROUP BY t.workspace_id, w.name, t.id, t.kind, who.member_id, who.member_name,
              who.member_email, who.actor_id, who.actor_name, r.id, r.name,
              r.can_update_settings, r.can_write_skills;
END
$$;
