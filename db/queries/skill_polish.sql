-- name: candidates
-- The skills to look at for automatic polish across workspaces ($1 the lessons that call for
-- polish, $2 the most answered, $3 the workspaces: NULL for all), as ids and numbers
-- (skill_polish_candidates, migration 0021).
SELECT workspace_id, skill_id, version, lessons, waiting
  FROM skill_polish_candidates($1, $2, $3);

-- name: latest
-- A skill of the current workspace at its latest version, whoever may read it; NULL when gone.
SELECT id, name, parent_id, parent_name, latest_version, use_count, last_used_at, source,
       created_at, updated_at, visibility, owner_member_id, version, description, content,
       extra_frontmatter, author_kind, author_name, version_created_at
  FROM skill_rows
 WHERE workspace_id = app_workspace_id() AND id = $1 AND version = latest_version;

-- name: lock
-- Hold a skill's row until the transaction ends; its latest version (NULL: gone).
SELECT latest_version FROM skills
 WHERE workspace_id = app_workspace_id() AND id = $1 FOR UPDATE;

-- name: changed_by_person
-- Whether a member wrote a version of the skill after its last lesson was recorded (no lesson:
-- any version by a member).
SELECT EXISTS (
    SELECT 1 FROM skill_versions v
     WHERE v.workspace_id = app_workspace_id() AND v.skill_id = $1 AND v.author_kind = 'member'
       AND v.version > COALESCE((SELECT max(l.after_version) FROM skill_lessons l
                                  WHERE l.workspace_id = app_workspace_id()
                                    AND l.skill_id = $1), 0));

-- name: insert_polish
-- Record one look at a skill's state and what came of it.
INSERT INTO skill_polishes (workspace_id, skill_id, id, version, lessons, trigger, outcome,
                            new_version, reason, reader, payer_kind, payer_id, input_tokens,
                            output_tokens, cost_usd, created_at)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
        $14::numeric, $15)
ON CONFLICT (workspace_id, skill_id, version, lessons) DO NOTHING
RETURNING id;

-- name: polishes
-- A skill's recorded looks, newest first.
SELECT id, version, lessons, trigger, outcome, new_version, reason, reader, payer_kind,
       payer_id, input_tokens, output_tokens, cost_usd, created_at
  FROM skill_polishes
 WHERE workspace_id = app_workspace_id() AND skill_id = $1
 ORDER BY created_at DESC, version DESC;
