-- Row-level security on every workspace table, the application role's grants, and the one
-- function a request starts with: it resolves a token hash to its principal and sets the
-- transaction's role and workspace.

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY[
        'workspaces', 'roles', 'members', 'agents', 'routines', 'api_keys', 'mcp_clients',
        'tokens', 'objects', 'attributes', 'role_permissions', 'records', 'record_links',
        'record_changes'
    ] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        IF t <> 'tokens' THEN
            EXECUTE format(
                'CREATE POLICY workspace_isolation ON %I USING (workspace_id = app_workspace_id())'
                ' WITH CHECK (workspace_id = app_workspace_id())', t);
        END IF;
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO skillmem_app', t);
    END LOOP;
END
$$;

-- A token row is visible in its workspace, and to whoever presents its hash (the lookup that
-- finds the workspace in the first place).
CREATE POLICY workspace_isolation ON tokens
    USING (workspace_id = app_workspace_id()
           OR token_hash = NULLIF(current_setting('app.token_hash', true), ''))
    WITH CHECK (workspace_id = app_workspace_id());

-- Starts a request: switches to the application role, finds the live token by its hash, sets
-- the workspace for the rest of the transaction and returns the principal with its rights.
-- Returns no row for an unknown or revoked token (and then no workspace is set).
CREATE FUNCTION app_begin_request(p_token_hash text)
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
      LEFT JOIN role_permissions p ON p.workspace_id = t.workspace_id AND p.role_id = r.id
     GROUP BY t.workspace_id, w.name, t.id, t.kind, who.member_id, who.member_name,
              who.member_email, who.actor_id, who.actor_name, r.id, r.name,
              r.can_update_settings, r.can_write_skills;
END
$$;

-- Starts a transaction for a known workspace (command line, background work, tests).
CREATE FUNCTION app_begin_workspace(p_workspace_id uuid) RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
    PERFORM set_config('role', 'skillmem_app', true);
    PERFORM set_config('app.workspace_id', p_workspace_id::text, true);
END
$$;

GRANT EXECUTE ON FUNCTION app_begin_request(text) TO skillmem_app;
GRANT EXECUTE ON FUNCTION app_begin_workspace(uuid) TO skillmem_app;
GRANT EXECUTE ON FUNCTION app_workspace_id() TO skillmem_app;

-- The one read rule for records: the caller's role may read the object, and the record is
-- visible to the workspace or private to its owner and the people it is shared with. A plain
-- expression, so the planner inlines it into each query.
CREATE FUNCTION record_readable(r records, p_readable uuid[], p_person uuid) RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT r.object_id = ANY (p_readable)
       AND (r.visibility = 'workspace'
            OR COALESCE(r.owner_member_id = p_person OR p_person = ANY (r.shared_with), false))
$$;

-- The single relations of the given records that point to records the caller may read: one
-- row per record that has any, its relations as a JSON array of records (each with the
-- attribute it hangs from) in attribute order.
CREATE FUNCTION readable_relations(p_ids uuid[], p_readable uuid[], p_person uuid)
RETURNS TABLE (record_id uuid, relations jsonb)
LANGUAGE sql STABLE
AS $$
    SELECT l.record_id,
           jsonb_agg(jsonb_build_object(
               'attribute', l.attribute_slug, 'id', t.id, 'seq', t.seq, 'object', o.slug,
               'label', t.label, 'values', t."values", 'visibility', t.visibility,
               'owner_member_id', t.owner_member_id, 'created_at', t.created_at,
               'updated_at', t.updated_at)
             ORDER BY l.attribute_slug)
      FROM record_links l
      JOIN records t ON t.workspace_id = l.workspace_id AND t.id = l.target_id
      JOIN objects o ON o.workspace_id = t.workspace_id AND o.id = t.object_id
     WHERE l.workspace_id = app_workspace_id()
       AND l.record_id = ANY (p_ids)
       AND record_readable(t, p_readable, p_person)
     GROUP BY l.record_id
$$;

GRANT EXECUTE ON FUNCTION record_readable(records, uuid[], uuid) TO skillmem_app;
GRANT EXECUTE ON FUNCTION readable_relations(uuid[], uuid[], uuid) TO skillmem_app;
