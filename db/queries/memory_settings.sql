-- name: preferences_of
-- A member's preferences as set (absent keys keep their default), and when they joined.
SELECT m.created_at AS member_since,
       COALESCE(jsonb_object_agg(p.key, jsonb_build_object(
                    'value', p.value, 'turned_on_at', p.turned_on_at))
                FILTER (WHERE p.key IS NOT NULL), '{}') AS set
  FROM members m
  LEFT JOIN member_preferences p ON p.workspace_id = m.workspace_id AND p.member_id = m.id
 WHERE m.workspace_id = app_workspace_id() AND m.id = $1
 GROUP BY m.created_at;

-- name: set_preference
-- Sets a member's preference; turning it on records when (a default was on since they joined,
-- and turning it off keeps the last time it was turned on).
INSERT INTO member_preferences AS p (workspace_id, member_id, key, value, turned_on_at,
                                     updated_at)
SELECT app_workspace_id(), m.id, $2, $3, m.created_at, $4
  FROM members m WHERE m.workspace_id = app_workspace_id() AND m.id = $1
ON CONFLICT (workspace_id, member_id, key) DO UPDATE
   SET value = EXCLUDED.value,
       turned_on_at = CASE WHEN EXCLUDED.value AND NOT p.value THEN $4 ELSE p.turned_on_at END,
       updated_at = $4;

-- name: workspace_settings
-- The workspace's settings as set (NULL: the default).
SELECT memory_person_monthly_limit_usd::text AS person, memory_tenant_monthly_limit_usd::text
       AS tenant, COALESCE(s.ai_credits, true) AS ai_credits
  FROM workspaces w
  LEFT JOIN workspace_settings s ON s.workspace_id = w.workspace_id
 WHERE w.workspace_id = app_workspace_id();

-- name: set_workspace_settings
-- Sets the allowances ($1/$3 whether to set each; NULL returns to the default) and whether
-- the workspace has AI credits ($6; NULL: unchanged).
INSERT INTO workspace_settings AS s (workspace_id, memory_person_monthly_limit_usd,
                                     memory_tenant_monthly_limit_usd, ai_credits, updated_at)
VALUES (app_workspace_id(), CASE WHEN $1 THEN $2::numeric END,
        CASE WHEN $3 THEN $4::numeric END, COALESCE($6::boolean, true), $5)
ON CONFLICT (workspace_id) DO UPDATE
   SET memory_person_monthly_limit_usd
           = CASE WHEN $1 THEN $2::numeric ELSE s.memory_person_monthly_limit_usd END,
       memory_tenant_monthly_limit_usd
           = CASE WHEN $3 THEN $4::numeric ELSE s.memory_tenant_monthly_limit_usd END,
       ai_credits = COALESCE($6::boolean, s.ai_credits),
       updated_at = $5
RETURNING memory_person_monthly_limit_usd::text AS person,
          memory_tenant_monthly_limit_usd::text AS tenant, ai_credits;
