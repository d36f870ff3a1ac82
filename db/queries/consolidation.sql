-- name: due_audiences
-- Each audience due to be consolidated at $1 across workspaces, and why ($2 the rules version,
-- $3 the characters written, $4 the minimum interval, $5 the week, $6 and $7 the default
-- allowances of a person and of the workspace).
SELECT workspace_id, audience_kind, audience_id, trigger, last_run_at, consolidated_at
  FROM consolidation_due($1, $2, $3, $4, $5, $6, $7);

-- name: audience
-- One audience of the current workspace ($1 kind, $2 the member or NULL): when its last
-- consolidation started (any outcome, up to $3), its name (the member's or the workspace's),
-- and the workspace profile's mission lines.
SELECT (SELECT max(c.started_at) FROM memory_cleanups c
         WHERE c.workspace_id = app_workspace_id() AND c.kind = 'consolidation'
           AND c.audience_kind = $1 AND c.audience_id IS NOT DISTINCT FROM $2
           AND c.started_at <= $3) AS last_run_at,
       CASE WHEN $1 = 'member'
            THEN (SELECT m.name FROM members m
                   WHERE m.workspace_id = app_workspace_id() AND m.id = $2)
            ELSE (SELECT w.name FROM workspaces w WHERE w.workspace_id = app_workspace_id())
       END AS name,
       COALESCE((SELECT string_agg(l.text, E'\n' ORDER BY l.position)
                   FROM memory_pages p
                   JOIN memory_lines l ON l.workspace_id = p.workspace_id AND l.page_id = p.id
                  WHERE p.workspace_id = app_workspace_id() AND p.about_kind = 'workspace'
                    AND p.trashed_at IS NULL AND l.kind = 'mission'), '') AS mission;

-- name: pages_to_consolidate
-- The live pages of one audience ($1 kind, $2 the member or NULL) that may be consolidated
-- (never a satellite's, nor one about a trashed record) and hold a souvenir, $6 at most: those
-- written since $3 (by anyone but consolidation, up to $4; $3 NULL: ever) or holding a
-- contexte whose review date has passed on $5 first, then the most recently updated; with their
-- souvenir lines in order (each with its source: kind and id, or none).
WITH carrying AS (
    SELECT o.id FROM objects o
     WHERE o.workspace_id = app_workspace_id() AND object_carries_pages(o.id)
), candidates AS (
    SELECT p.id, p.version, p.about_kind, p.updated_at,
           EXISTS (SELECT 1 FROM memory_versions v
                    WHERE v.workspace_id = p.workspace_id AND v.page_id = p.id
                      AND ($3::timestamptz IS NULL OR v.created_at > $3)
                      AND v.created_at <= $4
                      AND NOT (v.actor_kind = 'system' AND v.actor_name = 'consolidation'))
               AS written,
           EXISTS (SELECT 1 FROM memory_lines l
                    WHERE l.workspace_id = p.workspace_id AND l.page_id = p.id
                      AND l.kind = 'souvenir' AND l.type = 'contexte'
                      AND (l.day + interval '6 months')::date <= $5) AS review_due
      FROM memory_pages p
      LEFT JOIN records s ON s.workspace_id = p.workspace_id AND s.id = p.subject_id
     WHERE p.workspace_id = app_workspace_id() AND p.trashed_at IS NULL
       AND CASE WHEN $1 = 'member' THEN p.about_kind = 'member' AND p.member_id = $2
                ELSE p.about_kind <> 'member' END
       AND (p.subject_id IS NULL
            OR (s.trashed_at IS NULL AND s.object_id IN (SELECT id FROM carrying)))
       AND EXISTS (SELECT 1 FROM memory_lines l
                    WHERE l.workspace_id = p.workspace_id AND l.page_id = p.id
                      AND l.kind = 'souvenir')
), chosen AS (
    SELECT c.*, (c.written OR c.review_due) AS first
      FROM candidates c
     ORDER BY (c.written OR c.review_due) DESC, c.updated_at DESC, c.id
     LIMIT $6
)
SELECT c.id, c.version, c.about_kind, r.label AS name, c.first,
       (SELECT jsonb_agg(jsonb_build_object('key', l.key, 'type', l.type, 'day', l.day,
                                            'human', l.human, 'text', l.text,
                                            'source_kind', l.source_kind,
                                            'source_id', l.source_id)
                         ORDER BY l.position)
          FROM memory_lines l
         WHERE l.workspace_id = app_workspace_id() AND l.page_id = c.id
           AND l.kind = 'souvenir') AS lines
  FROM chosen c
  JOIN records r ON r.workspace_id = app_workspace_id() AND r.id = c.id
 ORDER BY c.first DESC, c.updated_at DESC, c.id;

-- name: lock_pages
-- Locks these pages ($1) in id order until the transaction ends; their versions and whether
-- each may still be consolidated (live, not a satellite's, not about a trashed record).
SELECT p.id, p.version,
       (p.trashed_at IS NULL
        AND (p.subject_id IS NULL
             OR (s.trashed_at IS NULL AND COALESCE(object_carries_pages(s.object_id), false))))
           AS consolidable
  FROM memory_pages p
  LEFT JOIN records s ON s.workspace_id = p.workspace_id AND s.id = p.subject_id
 WHERE p.workspace_id = app_workspace_id() AND p.id = ANY ($1)
 ORDER BY p.id
   FOR UPDATE OF p;
