-- Consolidation's schedule (issue 11, item 4): which audiences (one member's private pages,
-- or the workspace's: every other page) are due to be tidied at a time, across workspaces.
--
-- "Characters written" to an audience are the characters of what was said (a souvenir's
-- text) on the lines each page version added or reworded: a souvenir of a version whose
-- previous version held no souvenir saying the same text. Versions written by consolidation
-- itself are not counted; a version that only removes, retypes or redates lines counts
-- nothing (the weekly removal's, a confirmation's); a redacted version counts nothing, and the
-- version after a redacted one counts all its lines.

-- Versions by time within a workspace (the workspace's pages written since a time), and a
-- member's pages (theirs written since a time).
CREATE INDEX memory_versions_by_time ON memory_versions (workspace_id, created_at);
CREATE INDEX memory_pages_by_member ON memory_pages (workspace_id, member_id)
    WHERE member_id IS NOT NULL;

-- The characters of what was said on the souvenirs of a version's lines (p_lines) that its
-- previous version's lines (p_before; NULL: none, or redacted) did not say.
CREATE FUNCTION consolidation_new_chars(p_lines jsonb, p_before jsonb)
RETURNS TABLE (chars bigint)
LANGUAGE sql IMMUTABLE
AS $$
    SELECT COALESCE(sum(length(e->>'text')), 0)
      FROM jsonb_array_elements(COALESCE(p_lines, '[]')) e
     WHERE e->>'kind' = 'souvenir'
       AND NOT COALESCE(p_before @> jsonb_build_array(
               jsonb_build_object('kind', 'souvenir', 'text', e->'text')), false)
$$;
-- Called by consolidation_due only (as the owner).
REVOKE EXECUTE ON FUNCTION consolidation_new_chars(jsonb, jsonb) FROM PUBLIC;

-- The audiences due at p_now, with why (written, week, rules), when the audience's last
-- consolidation started (any outcome: NULL for none) and its last one that ran under rules
-- (rules_version > 0; a run whose reader failed records 0). An audience is due when its
-- payer is under its allowance this month (the member for their profile, the workspace for
-- the rest; p_person_limit and p_tenant_limit are the defaults) and the workspace has AI
-- credits, at least p_min_interval after its last run, and:
--   'rules'   never consolidated under p_rules_version (it holds a live page);
--   'written' p_written characters or more written since its last consolidation;
--   'week'    p_week since its last consolidation, and something written since.
-- Every lookup goes through an index (runs by audience, spend by payer, a member's pages,
-- the workspace's versions by time); only the live pages are scanned, to list the audiences.
-- SECURITY DEFINER like dreamer_due: it answers ids, times and a trigger word, never a text;
-- only the application role may call it.
CREATE FUNCTION consolidation_due(p_now timestamptz, p_rules_version integer,
                                  p_written integer, p_min_interval interval, p_week interval,
                                  p_person_limit numeric, p_tenant_limit numeric)
RETURNS TABLE (workspace_id uuid, audience_kind text, audience_id uuid, trigger text,
               last_run_at timestamptz, consolidated_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
WITH runs AS (
    SELECT a.workspace_id, 'member'::text AS audience_kind, a.member_id AS audience_id, r.*
      FROM (SELECT DISTINCT p.workspace_id, p.member_id FROM memory_pages p
             WHERE p.trashed_at IS NULL AND p.about_kind = 'member') a
     CROSS JOIN LATERAL (
         SELECT max(c.started_at) AS last_run_at,
                max(c.started_at) FILTER (WHERE c.rules_version > 0) AS consolidated_at,
                COALESCE(bool_or(c.rules_version = p_rules_version), false) AS current_rules
           FROM memory_cleanups c
          WHERE c.workspace_id = a.workspace_id AND c.kind = 'consolidation'
            AND c.audience_kind = 'member' AND c.audience_id = a.member_id
            AND c.started_at <= p_now) r
    UNION ALL
    SELECT a.workspace_id, 'workspace', NULL::uuid, r.*
      FROM (SELECT DISTINCT p.workspace_id FROM memory_pages p
             WHERE p.trashed_at IS NULL AND p.about_kind <> 'member') a
     CROSS JOIN LATERAL (
         SELECT max(c.started_at) AS last_run_at,
                max(c.started_at) FILTER (WHERE c.rules_version > 0) AS consolidated_at,
                COALESCE(bool_or(c.rules_version = p_rules_version), false) AS current_rules
           FROM memory_cleanups c
          WHERE c.workspace_id = a.workspace_id AND c.kind = 'consolidation'
            AND c.audience_kind = 'workspace' AND c.audience_id IS NULL
            AND c.started_at <= p_now) r
), payable AS (
    SELECT r.*
      FROM runs r
      LEFT JOIN workspace_settings s ON s.workspace_id = r.workspace_id
     WHERE COALESCE(s.ai_credits, true)
       AND (r.last_run_at IS NULL OR r.last_run_at + p_min_interval <= p_now)
       AND COALESCE((SELECT sum(m.cost_usd) FROM memory_spend m
                      WHERE m.workspace_id = r.workspace_id AND m.payer_kind = r.audience_kind
                        AND m.payer_key = COALESCE(r.audience_id, r.workspace_id)
                        AND m.month = date_trunc('month', p_now AT TIME ZONE 'UTC')::date), 0)
           < CASE WHEN r.audience_kind = 'member'
                  THEN COALESCE(s.memory_person_monthly_limit_usd, p_person_limit)
                  ELSE COALESCE(s.memory_tenant_monthly_limit_usd, p_tenant_limit) END
), written AS (
    -- The characters written since the last consolidation, counted only for an audience
    -- consolidated under the current rules (any other is due for that already).
    SELECT y.*,
           CASE WHEN NOT y.current_rules THEN NULL
                WHEN y.audience_kind = 'member' THEN
                    (SELECT COALESCE(sum(n.chars), 0)
                       FROM memory_pages pg
                       JOIN memory_versions v ON v.workspace_id = pg.workspace_id
                                             AND v.page_id = pg.id
                       LEFT JOIN memory_versions pv
                         ON pv.workspace_id = v.workspace_id AND pv.page_id = v.page_id
                        AND pv.number = v.number - 1
                      CROSS JOIN LATERAL consolidation_new_chars(v.lines, pv.lines) n
                      WHERE pg.workspace_id = y.workspace_id AND pg.member_id = y.audience_id
                        AND v.created_at > y.consolidated_at AND v.created_at <= p_now
                        AND NOT (v.actor_kind = 'system' AND v.actor_name = 'consolidation'))
                ELSE
                    (SELECT COALESCE(sum(n.chars), 0)
                       FROM memory_versions v
                       JOIN memory_pages pg ON pg.workspace_id = v.workspace_id
                                           AND pg.id = v.page_id
                       LEFT JOIN memory_versions pv
                         ON pv.workspace_id = v.workspace_id AND pv.page_id = v.page_id
                        AND pv.number = v.number - 1
                      CROSS JOIN LATERAL consolidation_new_chars(v.lines, pv.lines) n
                      WHERE v.workspace_id = y.workspace_id
                        AND v.created_at > y.consolidated_at AND v.created_at <= p_now
                        AND NOT (v.actor_kind = 'system' AND v.actor_name = 'consolidation')
                        AND pg.about_kind <> 'member')
           END AS chars
      FROM payable y
)
SELECT w.workspace_id, w.audience_kind, w.audience_id,
       CASE WHEN NOT w.current_rules THEN 'rules'
            WHEN w.chars >= p_written THEN 'written'
            ELSE 'week'
       END AS trigger,
       w.last_run_at, w.consolidated_at
  FROM written w
 WHERE NOT w.current_rules OR w.chars >= p_written
    OR (w.chars > 0 AND w.consolidated_at + p_week <= p_now)
 ORDER BY w.last_run_at NULLS FIRST, w.workspace_id, w.audience_kind, w.audience_id
$$;
REVOKE EXECUTE ON FUNCTION consolidation_due(timestamptz, integer, integer, interval, interval,
                                             numeric, numeric) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION consolidation_due(timestamptz, integer, integer, interval, interval,
                                            numeric, numeric) TO skillmem_app;

-- The function runs as the tables' owner, whom forced row-level security binds too unless it
-- is a superuser: these policies let the owner alone read every workspace's rows of the
-- tables it reads (requests, passes and consolidations act as skillmem_app, which they do not
-- name), like dreamer_schedule on memory_items.
CREATE POLICY consolidation_schedule ON memory_pages FOR SELECT TO CURRENT_USER USING (true);
CREATE POLICY consolidation_schedule ON memory_versions FOR SELECT TO CURRENT_USER USING (true);
CREATE POLICY consolidation_schedule ON memory_cleanups FOR SELECT TO CURRENT_USER USING (true);
CREATE POLICY consolidation_schedule ON memory_spend FOR SELECT TO CURRENT_USER USING (true);
CREATE POLICY consolidation_schedule ON workspace_settings FOR SELECT TO CURRENT_USER
    USING (true);
