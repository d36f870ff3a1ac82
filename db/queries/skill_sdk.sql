-- name: sdk_skill
-- A readable skill by id as the Anthropic SDK sees it: its label and its latest version's id.
SELECT s.id, s.name, COALESCE(s.display_name, s.name) AS display_name, s.created_at,
       s.updated_at, v.public_id AS latest_version_id
  FROM skills s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
  JOIN skill_versions v
    ON v.workspace_id = s.workspace_id AND v.skill_id = s.id AND v.version = s.latest_version
 WHERE s.id = $1 AND record_readable(r, $2, $3);

-- name: sdk_skills_page
-- Readable skills in name order after a name ($3), at most $4, as the Anthropic SDK sees them.
SELECT s.id, s.name, COALESCE(s.display_name, s.name) AS display_name, s.created_at,
       s.updated_at, v.public_id AS latest_version_id
  FROM skills s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
  JOIN skill_versions v
    ON v.workspace_id = s.workspace_id AND v.skill_id = s.id AND v.version = s.latest_version
 WHERE s.name > $3 AND record_readable(r, $1, $2)
 ORDER BY s.name
 LIMIT $4;

-- name: sdk_versions_page
-- A skill's versions not withdrawn, oldest first, after a version number ($2), at most $3.
SELECT v.public_id, v.version, v.description, v.created_at
  FROM skill_versions v
 WHERE v.skill_id = $1 AND v.version > $2
   AND NOT EXISTS (SELECT 1 FROM skill_version_withdrawals w
                    WHERE w.workspace_id = v.workspace_id AND w.skill_id = v.skill_id
                      AND w.version = v.version)
 ORDER BY v.version
 LIMIT $3;

-- name: sdk_version
-- One version of a skill not withdrawn, by its public id ($2), or the latest ($2 NULL).
SELECT v.public_id, v.version, v.description, v.created_at
  FROM skill_versions v
  JOIN skills s ON s.workspace_id = v.workspace_id AND s.id = v.skill_id
 WHERE v.skill_id = $1
   AND (v.public_id = $2 OR ($2::uuid IS NULL AND v.version = s.latest_version))
   AND NOT EXISTS (SELECT 1 FROM skill_version_withdrawals w
                    WHERE w.workspace_id = v.workspace_id AND w.skill_id = v.skill_id
                      AND w.version = v.version);

-- name: set_display_name
-- Label a skill (NULL: its name is its label).
UPDATE skills SET display_name = $2 WHERE id = $1;

-- name: withdraw_version
-- Withdraw a version from the Anthropic SDK's view, at a time ($3, from the clock).
INSERT INTO skill_version_withdrawals (workspace_id, skill_id, version, withdrawn_at)
VALUES (app_workspace_id(), $1, $2, $3)
ON CONFLICT DO NOTHING;
