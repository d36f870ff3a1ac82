-- name: page_shown
-- A page by id with its lines as one reader sees them ($2 readable objects, $3 person,
-- $4 every source open): whether the reader can open each source, its kind (the source
-- record's object) and owner, the label of the record a line is about; and the facts the
-- page's read and write rules need. (lines_shown shows a version's lines the same way.)
SELECT p.id, p.about_kind, p.member_id, p.agent_id, p.routine_id, p.subject_id, mr.label AS name,
       p.description, p.version, p.trashed_at, p.created_at, p.updated_at,
       mr.object_id AS memory_object_id, s.object_id AS subject_object_id,
       COALESCE(record_readable(s, $2, $3), false) AS subject_readable,
       COALESCE(object_carries_pages(s.object_id), true) AS carries_pages,
       COALESCE(ag.owner_member_id, ro.owner_member_id) AS actor_owner_id,
       memory_lines_shown_rows(
           (SELECT COALESCE(array_agg(l ORDER BY l.position), '{}')
              FROM memory_lines l
             WHERE l.workspace_id = p.workspace_id AND l.page_id = p.id),
           $2, $3, $4) AS lines
  FROM memory_pages p
  JOIN records mr ON mr.workspace_id = p.workspace_id AND mr.id = p.id
  LEFT JOIN records s ON s.workspace_id = p.workspace_id AND s.id = p.subject_id
  LEFT JOIN agents ag ON ag.workspace_id = p.workspace_id AND ag.id = p.agent_id
  LEFT JOIN routines ro ON ro.workspace_id = p.workspace_id AND ro.id = p.routine_id
 WHERE p.workspace_id = app_workspace_id() AND p.id = $1;

-- name: lock_page
-- Locks a page's row until the transaction ends (one writer at a time).
SELECT id FROM memory_pages WHERE workspace_id = app_workspace_id() AND id = $1 FOR UPDATE;

-- name: live_page_id
-- The live page about a member, agent, routine or record ($2; NULL for the workspace).
SELECT id FROM memory_pages
 WHERE workspace_id = app_workspace_id() AND trashed_at IS NULL AND about_kind = $1
   AND COALESCE(member_id, agent_id, routine_id, subject_id, workspace_id)
       = COALESCE($2, app_workspace_id());

-- name: insert_page
-- A new page and its memory record (visibility 'memory': read only through the page rules).
WITH record AS (
    INSERT INTO records (workspace_id, id, object_id, label, visibility, created_at, updated_at)
    SELECT app_workspace_id(), $1, o.id, $7, 'memory', $9, $9
      FROM objects o WHERE o.workspace_id = app_workspace_id() AND o.slug = 'memory'
    RETURNING id
)
INSERT INTO memory_pages (workspace_id, id, about_kind, member_id, agent_id, routine_id,
                          subject_id, description, version, created_at, updated_at)
SELECT app_workspace_id(), record.id, $2, $3, $4, $5, $6, $8, 0, $9, $9 FROM record
RETURNING id;

-- name: delete_lines
-- Removes every line of a page (before its new lines are written).
DELETE FROM memory_lines WHERE workspace_id = app_workspace_id() AND page_id = $1;

-- name: insert_lines
-- Writes a page's lines in order, one array per column.
INSERT INTO memory_lines (workspace_id, page_id, position, kind, key, text, type, author, day,
                          until, human, source_kind, source_id, about_id)
SELECT app_workspace_id(), $1, l.position - 1, l.kind, l.key, l.text, l.type, l.author, l.day,
       l.until, l.human, l.source_kind, l.source_id, l.about_id
  FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::date[],
              $8::date[], $9::boolean[], $10::text[], $11::uuid[], $12::uuid[])
       WITH ORDINALITY AS l(kind, key, text, type, author, day, until, human, source_kind,
                            source_id, about_id, position);

-- name: add_version
-- Moves the page to its next version ($3 trashed or not) and records that version.
WITH page AS (
    UPDATE memory_pages
       SET version = version + 1,
           updated_at = $11,
           trashed_at = CASE WHEN $3 THEN COALESCE(trashed_at, $11) END
     WHERE workspace_id = app_workspace_id() AND id = $1
    RETURNING version
)
INSERT INTO memory_versions (workspace_id, page_id, number, id, operation, actor_kind, actor_id,
                             actor_name, session_id, rolled_back_from, lines, content_sha256,
                             created_at)
SELECT app_workspace_id(), $1, page.version, $2, $4, $5, $6, $7, $8, $9, $10,
       encode(sha256(convert_to($12, 'UTF8')), 'hex'), $11
  FROM page
RETURNING number;

-- name: versions_of_page
-- A page's versions, newest first, before number $2 (NULL: from the newest), $3 at most, their
-- lines as stored.
SELECT v.id, v.page_id, v.number, v.operation, v.actor_kind, v.actor_name, v.session_id,
       v.rolled_back_from, v.created_at, v.redacted_at, v.redacted_by, v.content_sha256,
       v.lines
  FROM memory_versions v
 WHERE v.workspace_id = app_workspace_id() AND v.page_id = $1
   AND ($2::integer IS NULL OR v.number < $2)
 ORDER BY v.number DESC
 LIMIT $3;

-- name: version_by_id
-- One version with its lines in the stored form (every source open), and its page's id.
SELECT v.id, v.page_id, v.number, v.operation, v.actor_kind, v.actor_name, v.session_id,
       v.rolled_back_from, v.created_at, v.redacted_at, v.redacted_by, v.content_sha256,
       v.lines
  FROM memory_versions v
 WHERE v.workspace_id = app_workspace_id() AND v.id = $1;

-- name: last_lines_before_trash
-- The lines of a page's newest version that left any line and was not redacted.
SELECT v.lines FROM memory_versions v
 WHERE v.workspace_id = app_workspace_id() AND v.page_id = $1
   AND v.lines IS NOT NULL AND jsonb_array_length(v.lines) > 0
 ORDER BY v.number DESC
 LIMIT 1;

-- name: redact_version
-- Scrubs a version's lines, keeping who wrote it and when, and the copies of their texts the
-- Dreamer's verdicts and memory's cleanup runs keep (by the lines' keys, or a cleanup's new
-- text equal to one of them).
WITH old AS (
    SELECT page_id, lines FROM memory_versions
     WHERE workspace_id = app_workspace_id() AND id = $1 AND redacted_at IS NULL
),
said AS (
    SELECT o.page_id, e->>'key' AS key, e->>'text' AS text
      FROM old o CROSS JOIN LATERAL jsonb_array_elements(o.lines) e
),
verdicts AS (
    UPDATE memory_verdicts v SET text = NULL
      FROM said s
     WHERE v.workspace_id = app_workspace_id() AND v.page_id = s.page_id AND v.line_key = s.key
    RETURNING 1
),
changes AS (
    UPDATE memory_cleanup_changes c SET text = NULL, new_text = NULL
     WHERE c.workspace_id = app_workspace_id()
       AND EXISTS (SELECT 1 FROM said s
                    WHERE s.page_id = c.page_id
                      AND (s.key = c.line_key OR s.text = c.new_text OR s.text = c.text))
    RETURNING 1
)
UPDATE memory_versions
   SET lines = NULL, content_sha256 = NULL, redacted_at = $2, redacted_by = $3
 WHERE workspace_id = app_workspace_id() AND id = $1 AND redacted_at IS NULL
RETURNING number;

-- name: lines_shown
-- Stored lines (versions', as JSON) as one reader sees them, like page_shown's.
SELECT memory_lines_shown($1, $2, $3, $4);

-- name: add_versions
-- Moves many pages to their next version at once ($3 trashed or not, by page) and records
-- each version ($5: its lines as JSON text), all made by one actor at one time.
WITH v AS (
    SELECT *
      FROM unnest($1::uuid[], $2::uuid[], $3::boolean[], $4::text[], $5::text[], $6::text[])
           AS v(page_id, version_id, trashed, operation, lines, content)
),
page AS (
    UPDATE memory_pages p
       SET version = p.version + 1,
           updated_at = $11,
           trashed_at = CASE WHEN v.trashed THEN COALESCE(p.trashed_at, $11) END
      FROM v
     WHERE p.workspace_id = app_workspace_id() AND p.id = v.page_id
    RETURNING p.id, p.version
)
INSERT INTO memory_versions (workspace_id, page_id, number, id, operation, actor_kind, actor_id,
                             actor_name, session_id, lines, content_sha256, created_at)
SELECT app_workspace_id(), v.page_id, page.version, v.version_id, v.operation, $7, $8, $9, $10,
       v.lines::jsonb, encode(sha256(convert_to(v.content, 'UTF8')), 'hex'), $11
  FROM v JOIN page ON page.id = v.page_id;
