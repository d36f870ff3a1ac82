-- The Monday removal (issue 11, item 3): which workspaces still have this Monday's removal to
-- run. The worker's one view across workspaces for it, like dreamer_due (migration 0011):
-- SECURITY DEFINER, answering workspace ids only, never a text; only the application role may
-- call it. Everything else the removal does runs inside one workspace, under its policies.

-- Every workspace holding a live page and no removal run started in [p_from, p_until) (the
-- Monday at hand, UTC).
CREATE FUNCTION memory_removal_due(p_from timestamptz, p_until timestamptz)
RETURNS TABLE (workspace_id uuid)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
    SELECT DISTINCT p.workspace_id
      FROM memory_pages p
     WHERE p.trashed_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM memory_cleanups c
                        WHERE c.workspace_id = p.workspace_id AND c.kind = 'removal'
                          AND c.started_at >= p_from AND c.started_at < p_until)
$$;
REVOKE EXECUTE ON FUNCTION memory_removal_due(timestamptz, timestamptz) FROM PUBLIC;
-- The function runs as the tables' owner, whom forced row-level security binds too unless it is
-- a superuser: these policies let the owner alone read every workspace's pages and cleanup runs
-- (requests, passes and the removal itself act as skillmem_app, which they do not name).
CREATE POLICY memory_removal_schedule ON memory_pages FOR SELECT TO CURRENT_USER USING (true);
CREATE POLICY memory_removal_schedule ON memory_cleanups FOR SELECT TO CURRENT_USER USING (true);
GRANT EXECUTE ON FUNCTION memory_removal_due(timestamptz, timestamptz) TO skillmem_app;

-- memoryCleanups lists a workspace's runs newest first (an admin's: every audience's).
CREATE INDEX memory_cleanups_by_time ON memory_cleanups (workspace_id, started_at DESC, id DESC);
