-- name: skill_by_name
-- A skill the caller may read, at a version ($2, NULL for the latest), with that version.
SELECT id, name, parent_id, parent_name, latest_version, use_count, last_used_at, source,
       created_at, updated_at, visibility, owner_member_id, version, description, content,
       extra_frontmatter, author_kind, author_name, version_created_at
  FROM skill_rows
 WHERE name = $1 AND version = COALESCE($2, latest_version)
   AND record_readable(record, $3, $4);

-- name: skill_activation
-- A readable skill at a version with its files (never their content) and the names of its
-- readable sub-skills, in one statement. No version: for an agent ($5), the version it attached
-- (agent_skill_offered, migration 0029), else the latest.
SELECT s.id, s.name, v.version, v.content,
       COALESCE((SELECT jsonb_agg(jsonb_build_object(
                            'path', f.path, 'sha256', f.sha256, 'size', f.size, 'mode', f.mode)
                          ORDER BY f.path)
                   FROM skill_files f
                  WHERE f.workspace_id = s.workspace_id AND f.skill_id = s.id
                    AND f.version = v.version), '[]'::jsonb) AS files,
       ARRAY(SELECT c.name
               FROM skills c
               JOIN records cr ON cr.workspace_id = c.workspace_id AND cr.id = c.id
              WHERE c.workspace_id = s.workspace_id AND c.parent_id = s.id
                AND record_readable(cr, $3, $4)
              ORDER BY c.name) AS sub_skills
  FROM skills s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
  JOIN skill_versions v
    ON v.workspace_id = s.workspace_id AND v.skill_id = s.id
   AND v.version = COALESCE($2, agent_skill_offered($5::uuid, s.id, s.latest_version),
                            s.latest_version)
 WHERE s.name = $1
   AND record_readable(r, $3, $4);

-- name: skill_catalog
-- Every readable skill's name, latest description and body, use count and last update, in name
-- order, leaving out skills whose frontmatter disables model invocation (the catalog's and the
-- skills panel's one filter); for an agent ($3), the skills it attached at their versions when
-- it attached any (agent_skill_offered, migration 0029). A person's catalog never calls that
-- function: PostgreSQL does not inline it (it holds subqueries), and a call a row in the join's
-- hash condition cost ~20 ms of PostgreSQL CPU over 2,000 skills (BENCHMARKS.md).
SELECT s.name, v.description, v.content, s.use_count, s.updated_at
  FROM skills s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
  JOIN skill_versions v
    ON v.workspace_id = s.workspace_id AND v.skill_id = s.id
   AND v.version = CASE WHEN $3::uuid IS NULL THEN s.latest_version
                        ELSE agent_skill_offered($3::uuid, s.id, s.latest_version) END
 WHERE record_readable(r, $1, $2)
   AND COALESCE(v.extra_frontmatter->>'disable-model-invocation', 'false') <> 'true'
 ORDER BY s.name;

-- name: skill_catalog_entries
-- The catalog as a model's prompt lists it: the skills of skill_catalog (the same readable
-- skills, the same filter, an agent's attached versions, name order), each with whether it is
-- dormant (never used and not updated since $4, DESIGN §3) and its description unless it is.
-- The columns' order is CatalogEntryRow's (db/skills.py reads them by position).
SELECT s.name, CASE WHEN d.dormant THEN NULL ELSE v.description END AS description, d.dormant
  FROM skills s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
  JOIN skill_versions v
    ON v.workspace_id = s.workspace_id AND v.skill_id = s.id
   AND v.version = CASE WHEN $3::uuid IS NULL THEN s.latest_version
                        ELSE agent_skill_offered($3::uuid, s.id, s.latest_version) END
  CROSS JOIN LATERAL (SELECT s.use_count <= 0 AND s.updated_at <= $4::timestamptz AS dormant) d
 WHERE record_readable(r, $1, $2)
   AND COALESCE(v.extra_frontmatter->>'disable-model-invocation', 'false') <> 'true'
 ORDER BY s.name;

-- name: skills_page
-- Readable skills in name order after a name, optionally whose name contains a text or whose
-- parent is a skill; with their latest version.
SELECT id, name, parent_id, parent_name, latest_version, use_count, last_used_at, source,
       created_at, updated_at, visibility, owner_member_id, version, description, content,
       extra_frontmatter, author_kind, author_name, version_created_at
  FROM skill_rows
 WHERE name > $3 AND version = latest_version
   AND record_readable(record, $1, $2)
   AND ($5::text IS NULL OR strpos(name, lower($5)) > 0)
   AND ($6::text IS NULL OR parent_name = $6)
 ORDER BY name
 LIMIT $4;

-- name: skill_names
-- Skills holding any of the given names, readable or not, with whether the caller may read them.
SELECT s.name, s.id, COALESCE(record_readable(r, $2, $3), false) AS readable
  FROM skills s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
 WHERE s.name = ANY ($1::text[]);

-- name: skill_versions
-- A skill's versions, newest first.
SELECT version, description, author_kind, author_name, created_at
  FROM skill_versions
 WHERE skill_id = $1
 ORDER BY version DESC;

-- name: skill_files
-- The files of a skill's version (never their content).
SELECT path, sha256, size, mode
  FROM skill_files
 WHERE skill_id = $1 AND version = $2
 ORDER BY path;

-- name: skill_file
-- One file of a skill's version, with its content.
SELECT f.path, f.sha256, f.size, f.mode, b.content
  FROM skill_files f
  JOIN skill_blobs b ON b.workspace_id = f.workspace_id AND b.sha256 = f.sha256
 WHERE f.skill_id = $1 AND f.version = $2 AND f.path = $3;

-- name: skill_file_contents
-- Every file of several skills' versions with its content: ($1 skill ids, $2 versions pairwise).
SELECT f.skill_id, f.path, f.mode, b.content
  FROM unnest($1::uuid[], $2::integer[]) AS want(skill_id, version)
  JOIN skill_files f ON f.workspace_id = app_workspace_id() AND f.skill_id = want.skill_id
                     AND f.version = want.version
  JOIN skill_blobs b ON b.workspace_id = f.workspace_id AND b.sha256 = f.sha256
 ORDER BY f.skill_id, f.path;

-- name: sub_skill_names
-- The names of a skill's readable sub-skills.
SELECT s.name
  FROM skills s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
 WHERE s.parent_id = $1 AND record_readable(r, $2, $3)
 ORDER BY s.name;

-- name: insert_skill
-- Create a skill for an existing record, at a time ($5, from the clock).
INSERT INTO skills (workspace_id, id, name, parent_id, source, created_at, updated_at)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $5);

-- name: insert_version
-- Add a version of a skill and make it the latest, at a time ($9, from the clock).
WITH added AS (
    INSERT INTO skill_versions (workspace_id, skill_id, version, description, content,
                                extra_frontmatter, author_kind, author_id, author_name)
    VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6, $7, $8)
    RETURNING skill_id, version
)
UPDATE skills SET latest_version = added.version, updated_at = $9
  FROM added
 WHERE skills.id = added.skill_id;

-- name: insert_blobs
-- Store file contents by sha256 (each once per workspace).
INSERT INTO skill_blobs (workspace_id, sha256, size, content)
SELECT app_workspace_id(), b.sha256, length(b.content), b.content
  FROM unnest($1::text[], $2::bytea[]) AS b(sha256, content)
ON CONFLICT (workspace_id, sha256) DO NOTHING;

-- name: insert_files
-- Give a version its files: paths, sha256, sizes and modes, pairwise.
INSERT INTO skill_files (workspace_id, skill_id, version, path, sha256, size, mode)
SELECT app_workspace_id(), $1, $2, f.path, f.sha256, f.size, f.mode
  FROM unnest($3::text[], $4::text[], $5::integer[], $6::integer[]) AS f(path, sha256, size, mode);

-- name: copy_files
-- Give a new version the files of an older one, but for the listed paths.
INSERT INTO skill_files (workspace_id, skill_id, version, path, sha256, size, mode)
SELECT workspace_id, skill_id, $3, path, sha256, size, mode
  FROM skill_files
 WHERE skill_id = $1 AND version = $2 AND NOT (path = ANY ($4::text[]));

-- name: record_use
-- Count one use of a skill, at a time ($2, from the clock).
UPDATE skills SET use_count = use_count + 1, last_used_at = $2 WHERE id = $1
RETURNING use_count;

-- name: insert_lesson
-- Keep a dated lesson learned while using a skill.
INSERT INTO skill_lessons (workspace_id, skill_id, day, text)
VALUES (app_workspace_id(), $1, $2, $3);

-- name: waiting_lessons
-- A skill's lessons not yet folded into its body, oldest first.
SELECT id, day, text FROM skill_lessons
 WHERE skill_id = $1 AND folded_in IS NULL
 ORDER BY id;

-- name: waiting_lessons_of_skills
-- The lessons not yet folded of several skills, each skill's oldest day first (ties in the
-- order they were kept).
SELECT skill_id, day, text FROM skill_lessons
 WHERE skill_id = ANY ($1::uuid[]) AND folded_in IS NULL
 ORDER BY skill_id, day, id;

-- name: lessons_of_skill
-- Every lesson a skill keeps, folded or waiting: its day and text.
SELECT day, text FROM skill_lessons WHERE skill_id = $1;

-- name: insert_lessons
-- Keep several dated lessons of a skill: days and texts, pairwise.
INSERT INTO skill_lessons (workspace_id, skill_id, day, text)
SELECT app_workspace_id(), $1, l.day, l.text
  FROM unnest($2::date[], $3::text[]) AS l(day, text);

-- name: fold_lessons
-- Mark lessons as folded into a version.
UPDATE skill_lessons SET folded_in = $2 WHERE skill_id = $1 AND id = ANY ($3::bigint[]);

-- name: delete_skill_record
-- Delete a skill (its record, and with it every version and file reference).
DELETE FROM records WHERE id = $1;

-- name: has_sub_skills
-- Whether any skill, readable or not, is filed under this one.
SELECT EXISTS (SELECT 1 FROM skills WHERE parent_id = $1);

-- name: lock_skill
-- Hold a skill's row until the transaction ends, so that its versions are written one at a time.
SELECT latest_version FROM skills WHERE name = $1 FOR UPDATE;

-- name: set_skill_parent
-- File a skill under another (or under none) and give it that parent's access, at a time ($3,
-- from the clock).
WITH moved AS (
    UPDATE skills SET parent_id = $2, updated_at = $3 WHERE id = $1 RETURNING id
)
UPDATE records AS child
   SET visibility = parent.visibility, owner_member_id = parent.owner_member_id,
       shared_with = parent.shared_with, updated_at = $3
  FROM records AS parent, moved
 WHERE child.workspace_id = app_workspace_id() AND child.id = moved.id
   AND parent.workspace_id = child.workspace_id AND parent.id = $2;

-- name: community_skills
-- The caller's own skills added from a repository ($2 the person; $1 readable objects): private
-- to them, at their latest version, in name order (issue 15, item 6).
SELECT id, name, parent_id, parent_name, latest_version, use_count, last_used_at, source,
       created_at, updated_at, visibility, owner_member_id, version, description, content,
       extra_frontmatter, author_kind, author_name, version_created_at
  FROM skill_rows
 WHERE version = latest_version AND owner_member_id = $2
   AND source->>'kind' = 'community'
   AND record_readable(record, $1, $2)
 ORDER BY name;

-- name: set_skill_source
-- Where a skill now comes from ($2): an update from its repository pins the new commit.
UPDATE skills SET source = $2
 WHERE workspace_id = app_workspace_id() AND id = $1;
