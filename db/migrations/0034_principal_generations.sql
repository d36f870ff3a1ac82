-- A principal cache in each API process (issue 17, item 1): a request whose token the process
-- resolved a moment ago sends its transaction's settings with its BEGIN, instead of running
-- app_begin_request. Two things keep that cache honest:
--
-- * principal_generations: one counter per workspace, moved by every change to what
--   app_begin_request reads (tokens, the token directory, the workspace's name, members,
--   agents' names and tool groups, API keys, MCP clients, roles, their rights, objects). A
--   cached principal carries the counter it was read with; app_principal_fresh, run in the
--   request's own transaction (the same round trip as its BEGIN), refuses it when the counter
--   moved or the token is no longer live. So a revocation or a change of rights is seen by
--   every transaction that starts after it commits, cache or not.
-- * a NOTIFY on skillmem_principals (payload: the workspace's id) from the same triggers, so
--   the processes drop that workspace's entries at once rather than find them stale.
--
-- The counter's row is locked until its transaction ends: two transactions changing members,
-- keys, roles or rights of one workspace at once now wait for each other (rare, administrative
-- writes; token inserts and record writes do not move it). Changes made with triggers off
-- (session_replication_role = replica, a restore) move no counter: set
-- SKILLMEM_PRINCIPAL_CACHE_SECONDS=0 or restart the API processes around them.

CREATE TABLE principal_generations (
    workspace_id uuid PRIMARY KEY REFERENCES workspaces ON DELETE CASCADE,
    generation bigint NOT NULL DEFAULT 0
);

ALTER TABLE principal_generations ENABLE ROW LEVEL SECURITY;
ALTER TABLE principal_generations FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_isolation ON principal_generations
    USING (workspace_id = app_workspace_id())
    WITH CHECK (workspace_id = app_workspace_id());
-- The application moves the counter through the triggers below, which run as the caller.
GRANT SELECT, INSERT, UPDATE ON principal_generations TO skillmem_app;

-- The workspaces already made (read by their owner: the policy is lifted for this statement).
ALTER TABLE principal_generations NO FORCE ROW LEVEL SECURITY;
INSERT INTO principal_generations (workspace_id) SELECT workspace_id FROM workspaces;
ALTER TABLE principal_generations FORCE ROW LEVEL SECURITY;

-- A new workspace starts at 0.
CREATE FUNCTION app_workspace_generation() RETURNS trigger
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
BEGIN
    INSERT INTO principal_generations (workspace_id) VALUES (NEW.workspace_id)
    ON CONFLICT (workspace_id) DO NOTHING;
    RETURN NULL;
END
$$;

REVOKE EXECUTE ON FUNCTION app_workspace_generation() FROM PUBLIC;

CREATE TRIGGER principal_generation_start AFTER INSERT ON workspaces
    FOR EACH ROW EXECUTE FUNCTION app_workspace_generation();

-- What a principal is made of changed in a row's workspace: move its counter, tell the
-- processes. A workspace being deleted has no counter left to move (it cascades away).
CREATE FUNCTION app_principals_changed() RETURNS trigger
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
DECLARE
    changed uuid;
BEGIN
    IF TG_OP = 'DELETE' THEN
        changed := OLD.workspace_id;
    ELSE
        changed := NEW.workspace_id;
    END IF;
    UPDATE principal_generations SET generation = generation + 1
     WHERE workspace_id = changed;
    PERFORM pg_notify('skillmem_principals', changed::text);
    IF TG_OP = 'UPDATE' AND OLD.workspace_id IS DISTINCT FROM NEW.workspace_id THEN
        UPDATE principal_generations SET generation = generation + 1
         WHERE workspace_id = OLD.workspace_id;
        PERFORM pg_notify('skillmem_principals', OLD.workspace_id::text);
    END IF;
    RETURN NULL;
END
$$;

REVOKE EXECUTE ON FUNCTION app_principals_changed() FROM PUBLIC;

-- A new token, member, agent, key or client changes no principal already resolved: only
-- updates and deletes count there. Rights and objects count on insert too (a right granted,
-- an object of kind memory made).
CREATE TRIGGER principals_changed AFTER UPDATE OR DELETE ON tokens
    FOR EACH ROW EXECUTE FUNCTION app_principals_changed();
CREATE TRIGGER principals_changed AFTER UPDATE OR DELETE ON token_workspaces
    FOR EACH ROW EXECUTE FUNCTION app_principals_changed();
CREATE TRIGGER principals_changed AFTER UPDATE OF name ON workspaces
    FOR EACH ROW EXECUTE FUNCTION app_principals_changed();
CREATE TRIGGER principals_changed AFTER UPDATE OR DELETE ON members
    FOR EACH ROW EXECUTE FUNCTION app_principals_changed();
CREATE TRIGGER principals_changed AFTER UPDATE OF workspace_id, id, name, tool_groups OR DELETE
    ON agents FOR EACH ROW EXECUTE FUNCTION app_principals_changed();
CREATE TRIGGER principals_changed AFTER UPDATE OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION app_principals_changed();
CREATE TRIGGER principals_changed AFTER UPDATE OR DELETE ON mcp_clients
    FOR EACH ROW EXECUTE FUNCTION app_principals_changed();
CREATE TRIGGER principals_changed AFTER UPDATE OR DELETE ON roles
    FOR EACH ROW EXECUTE FUNCTION app_principals_changed();
CREATE TRIGGER principals_changed AFTER INSERT OR UPDATE OR DELETE ON role_permissions
    FOR EACH ROW EXECUTE FUNCTION app_principals_changed();
CREATE TRIGGER principals_changed AFTER INSERT OR UPDATE OF workspace_id, id, kind OR DELETE
    ON objects FOR EACH ROW EXECUTE FUNCTION app_principals_changed();

-- A table emptied at once (TRUNCATE: never the application, which holds no such right):
-- every workspace's counter moves, and every process drops everything (an empty payload).
CREATE FUNCTION app_principals_truncated() RETURNS trigger
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
BEGIN
    UPDATE principal_generations SET generation = generation + 1;
    PERFORM pg_notify('skillmem_principals', '');
    RETURN NULL;
END
$$;

REVOKE EXECUTE ON FUNCTION app_principals_truncated() FROM PUBLIC;

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['tokens', 'token_workspaces', 'members', 'agents', 'api_keys',
                             'mcp_clients', 'roles', 'role_permissions', 'objects'] LOOP
        EXECUTE format('CREATE TRIGGER principals_truncated AFTER TRUNCATE ON %I'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION app_principals_truncated()', t);
    END LOOP;
END
$$;

-- In a transaction whose role and workspace were set from a cached principal: raise (SQLSTATE
-- SMC01, nothing else raises it) unless the token p_token (its id: the hash, a lasting name of
-- the token, never goes into statement text, logs or traces) is still live in that workspace,
-- still in the token directory there, and the workspace's counter is still p_generation.
-- Reads three rows by their keys.
CREATE FUNCTION app_principal_fresh(p_token uuid, p_generation bigint) RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = public, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM principal_generations g
                    WHERE g.workspace_id = app_workspace_id()
                      AND g.generation = p_generation)
       OR NOT EXISTS (SELECT 1 FROM tokens t
                        JOIN token_workspaces d
                          ON d.token_hash = t.token_hash AND d.workspace_id = t.workspace_id
                       WHERE t.workspace_id = app_workspace_id() AND t.id = p_token
                         AND t.revoked_at IS NULL) THEN
        RAISE EXCEPTION 'the cached principal is stale' USING ERRCODE = 'SMC01';
    END IF;
END
$$;

GRANT EXECUTE ON FUNCTION app_principal_fresh(uuid, bigint) TO skillmem_app;

-- The transaction's workspace's counter (NULL when it has none), read beside
-- app_begin_request by a process that caches principals (db/queries/identity.sql,
-- begin_request_generation): called after it, so as skillmem_app in its workspace. STABLE on
-- purpose: it reads with the calling statement's snapshot, taken before app_begin_request's
-- own statements, so a change committed meanwhile leaves the entry's counter behind (a miss
-- later), never ahead.
CREATE FUNCTION app_principal_generation() RETURNS bigint
LANGUAGE plpgsql STABLE
SET search_path = public, pg_temp
AS $$
BEGIN
    RETURN (SELECT g.generation FROM principal_generations g
             WHERE g.workspace_id = app_workspace_id());
END
$$;

GRANT EXECUTE ON FUNCTION app_principal_generation() TO skillmem_app;
