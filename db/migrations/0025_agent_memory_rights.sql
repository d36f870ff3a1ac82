-- An agent whose tool groups omit memory neither reads nor saves memories (issue 12, item 1;
-- seed 000): besides its cards, recall, search, proposals and passes (migration 0019), it holds
-- no right on the memory object, so no memory page, memory record or profile is readable to
-- it by any road (GraphQL's memoryPage and myMemories, MCP's read, the records API). The
-- request's one statement stays one: app_begin_request as in 0003, its rights narrowed here.

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
    t tokens%ROWTYPE;
BEGIN
    PERFORM set_config('role', 'skillmem_app', true);
    PERFORM set_config('app.token_hash', p_token_hash, true);
    SELECT * INTO t FROM tokens
     WHERE tokens.token_hash = p_token_hash AND tokens.revoked_at IS NULL;
    PERFORM set_config('app.token_hash', '', true);
    IF NOT FOUND THEN
        RETURN;
    END IF;
    PERFORM set_config('app.workspace_id', t.workspace_id::text, true);
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

