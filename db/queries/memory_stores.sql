-- name: insert_store
-- A new store and its record of the `memory_store` object ($5 visibility, $6 owner).
WITH record AS (
    INSERT INTO records (workspace_id, id, object_id, label, visibility, owner_member_id,
                         created_at, updated_at)
    SELECT app_workspace_id(), $1, o.id, $2, $5, $6, $7, $7
      FROM objects o WHERE o.workspace_id = app_workspace_id() AND o.slug = 'memory_store'
    RETURNING id
)
INSERT INTO memory_stores (workspace_id, id, name, description, metadata, created_at, updated_at)
SELECT app_workspace_id(), record.id, $2, $3, $4, $7, $7 FROM record
RETURNING id;

-- name: store_readable
-- A store the caller may read ($2 readable objects, $3 person), with its record's access.
SELECT s.id, s.name, s.description, s.metadata, s.created_at, s.updated_at, s.archived_at,
       r.visibility, r.owner_member_id, r.object_id
  FROM memory_stores s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
 WHERE s.workspace_id = app_workspace_id() AND s.id = $1
   AND record_readable(r, $2, $3);

-- name: lock_store
-- Locks a store's row until the transaction ends (one writer of a store at a time).
SELECT id FROM memory_stores WHERE workspace_id = app_workspace_id() AND id = $1 FOR UPDATE;

-- name: stores_page
-- Readable stores in creation order after a position ($4 time, $5 id), created between $6 and
-- $7 when given, archived ones only with $8.
SELECT s.id, s.name, s.description, s.metadata, s.created_at, s.updated_at, s.archived_at,
       r.visibility, r.owner_member_id, r.object_id
  FROM memory_stores s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
 WHERE s.workspace_id = app_workspace_id()
   AND record_readable(r, $1, $2)
   AND ($4::timestamptz IS NULL OR (s.created_at, s.id) > ($4, $5))
   AND ($6::timestamptz IS NULL OR s.created_at >= $6)
   AND ($7::timestamptz IS NULL OR s.created_at <= $7)
   AND ($8 OR s.archived_at IS NULL)
 ORDER BY s.created_at, s.id
 LIMIT $3;

-- name: update_store
-- A store's new name, description and metadata (its record's label follows the name).
WITH record AS (
    UPDATE records SET label = $2, updated_at = $5
     WHERE workspace_id = app_workspace_id() AND id = $1
)
UPDATE memory_stores SET name = $2, description = $3, metadata = $4, updated_at = $5
 WHERE workspace_id = app_workspace_id() AND id = $1;

-- name: archive_store
-- Archive a store (once: a second archive changes nothing).
UPDATE memory_stores SET archived_at = $2, updated_at = $2
 WHERE workspace_id = app_workspace_id() AND id = $1 AND archived_at IS NULL;

-- name: delete_store
-- Remove a store's record: the store, its memories and its versions go with it.
DELETE FROM records WHERE workspace_id = app_workspace_id() AND id = $1;

-- name: memory_by_id
-- One memory of a store, with its content.
SELECT id, store_id, path, content, content_sha256, octet_length(content) AS content_size_bytes,
       version_id, created_at, updated_at
  FROM store_memories
 WHERE workspace_id = app_workspace_id() AND store_id = $1 AND id = $2;

-- name: memory_id_at
-- The memory at a path of a store, if any.
SELECT id FROM store_memories
 WHERE workspace_id = app_workspace_id() AND store_id = $1 AND path = $2;

-- name: insert_memory
-- A new memory (nothing when the path is taken: no row).
INSERT INTO store_memories (workspace_id, store_id, id, path, content, content_sha256,
                            version_id, created_at, updated_at)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6, $7, $7)
ON CONFLICT (workspace_id, store_id, path) DO NOTHING
RETURNING id;

-- name: update_memory
-- A memory's new path, content and version.
UPDATE store_memories
   SET path = $3, content = $4, content_sha256 = $5, version_id = $6, updated_at = $7
 WHERE workspace_id = app_workspace_id() AND store_id = $1 AND id = $2;

-- name: delete_memory
-- Remove a memory (its versions stay).
DELETE FROM store_memories WHERE workspace_id = app_workspace_id() AND store_id = $1 AND id = $2;

-- name: memories_page
-- The entries of a store below a prefix ($2, ending in '/') in path order after $4: every
-- memory, or with a depth ($3 > 0) the memories at most that deep and one prefix (a path
-- ending in '/') for each folder at that depth holding deeper ones; content only with $6.
WITH below AS (
    SELECT m.*, string_to_array(substr(m.path, length($2) + 1), '/') AS rest
      FROM store_memories m
     WHERE m.workspace_id = app_workspace_id() AND m.store_id = $1 AND starts_with(m.path, $2)
),
keyed AS (
    SELECT CASE WHEN $3 > 0 AND cardinality(rest) > $3
                THEN $2 || array_to_string(rest[1:$3], '/') || '/'
                ELSE path END COLLATE "C" AS key,
           below.*
      FROM below
)
SELECT DISTINCT ON (key) key, key <> path AS is_prefix, id, store_id, path,
       CASE WHEN $6 THEN content END AS content, content_sha256,
       octet_length(content) AS content_size_bytes, version_id, created_at, updated_at
  FROM keyed
 WHERE key > $4 COLLATE "C"
 ORDER BY key
 LIMIT $5;

-- name: insert_version
-- One immutable version of a memory.
INSERT INTO store_memory_versions (workspace_id, store_id, id, memory_id, operation, path,
                                   content, content_sha256, content_size_bytes, actor_kind,
                                   actor_id, actor_name, session_id, created_at)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13);

-- name: version_by_id
-- One version of a store.
SELECT id, store_id, memory_id, operation, path, content, content_sha256, content_size_bytes,
       actor_kind, actor_id, actor_name, session_id, created_at, redacted_at, redactor_kind,
       redactor_id, redactor_session_id
  FROM store_memory_versions
 WHERE workspace_id = app_workspace_id() AND store_id = $1 AND id = $2;

-- name: versions_page
-- A store's versions, newest first, before a position ($3 time, $4 id), filtered by memory
-- ($5), operation ($6), actor kind and id ($7, $8), session ($9) and creation time ($10, $11);
-- content only with $12.
SELECT id, store_id, memory_id, operation, path, CASE WHEN $12 THEN content END AS content,
       content_sha256, content_size_bytes, actor_kind, actor_id, actor_name, session_id,
       created_at, redacted_at, redactor_kind, redactor_id, redactor_session_id
  FROM store_memory_versions
 WHERE workspace_id = app_workspace_id() AND store_id = $1
   AND ($3::timestamptz IS NULL OR (created_at, id) < ($3, $4))
   AND ($5::uuid IS NULL OR memory_id = $5)
   AND ($6::text IS NULL OR operation = $6)
   AND ($7::text IS NULL OR (actor_kind = $7 AND actor_id = $8))
   AND ($9::uuid IS NULL OR (actor_kind = 'agent' AND session_id = $9))
   AND ($10::timestamptz IS NULL OR created_at >= $10)
   AND ($11::timestamptz IS NULL OR created_at <= $11)
 ORDER BY created_at DESC, id DESC
 LIMIT $2;

-- name: redact_version
-- Scrub a version's path and content, keeping who made it and when (once).
UPDATE store_memory_versions
   SET path = NULL, content = NULL, content_sha256 = NULL, content_size_bytes = NULL,
       redacted_at = $3, redactor_kind = $4, redactor_id = $5, redactor_session_id = $6
 WHERE workspace_id = app_workspace_id() AND store_id = $1 AND id = $2
   AND redacted_at IS NULL;

-- name: workspace_memories
-- The workspace store's entries as one reader sees them ($1 readable objects, $2 person): the
-- live pages they may read (memory_page_readable), each at its path (resolvers/stores/
-- workspace.file_name in SQL; a second page at one path, by creation, takes its id's first
-- 8 characters), below prefix $3 in path order after $5, with depth $4 rolled up as
-- memories_page does, at most $7; only the page $6 when given (its path is then computed
-- among the pages of its folder only). Lines are rendered for the pages answered only.
WITH target AS (
    SELECT p.about_kind, COALESCE(so.slug, 'record') AS folder
      FROM memory_pages p
      LEFT JOIN records s ON s.workspace_id = p.workspace_id AND s.id = p.subject_id
      LEFT JOIN objects so ON so.workspace_id = s.workspace_id AND so.id = s.object_id
     WHERE p.workspace_id = app_workspace_id() AND p.id = $6
),
readable AS (
    SELECT p.id, p.created_at, p.about_kind, COALESCE(so.slug, 'record') AS folder, mr.label
      FROM memory_pages p
      JOIN records mr ON mr.workspace_id = p.workspace_id AND mr.id = p.id
      LEFT JOIN records s ON s.workspace_id = p.workspace_id AND s.id = p.subject_id
      LEFT JOIN objects so ON so.workspace_id = s.workspace_id AND so.id = s.object_id
     WHERE p.workspace_id = app_workspace_id() AND p.trashed_at IS NULL
       AND memory_page_readable(p.about_kind, p.member_id, mr.object_id, s, $1, $2)
       AND ($6::uuid IS NULL
            OR (p.about_kind, COALESCE(so.slug, 'record')) IN (SELECT * FROM target))
),
based AS (
    SELECT id, created_at,
           CASE about_kind
               WHEN 'workspace' THEN '/profiles/workspace.md'
               ELSE CASE about_kind
                        WHEN 'member' THEN '/profiles/members/'
                        WHEN 'agent' THEN '/profiles/agents/'
                        WHEN 'routine' THEN '/profiles/routines/'
                        ELSE '/records/' || folder || '/'
                    END
                    || COALESCE(NULLIF(left(btrim(
                           regexp_replace(replace(CASE WHEN label IS NFC NORMALIZED THEN label
                                                       ELSE normalize(label, NFC) END,
                                                  '/', '-'),
                                          '[\u0001-\u001f\u007f-\u009f\u2028\u2029\ufeff\u061c'
                                          '\u200e\u200f\u202a-\u202e\u2066-\u2069]', '-', 'g'),
                           E' \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007'
                           || E'\u2008\u2009\u200a\u202f\u205f\u3000'), 200), ''), 'page')
                    || '.md'
           END AS base
      FROM readable
),
placed AS (
    SELECT id, created_at,
           CASE WHEN row_number() OVER (PARTITION BY base ORDER BY created_at, id) = 1 THEN base
                ELSE left(base, -3) || '-' || left(id::text, 8) || '.md'
           END COLLATE "C" AS path
      FROM based
),
below AS (
    SELECT placed.*, string_to_array(substr(path, length($3) + 1), '/') AS rest
      FROM placed
     WHERE starts_with(path, $3) AND ($6::uuid IS NULL OR id = $6)
),
listed AS (
    SELECT DISTINCT ON (key) key, key <> path AS is_prefix, id, path
      FROM (SELECT CASE WHEN $4 > 0 AND cardinality(rest) > $4
                        THEN $3 || array_to_string(rest[1:$4], '/') || '/'
                        ELSE path END COLLATE "C" AS key,
                   below.*
              FROM below) keyed
     WHERE key > $5 COLLATE "C"
     ORDER BY key, path, created_at, id
     LIMIT $7
)
SELECT l.key, l.is_prefix, l.path,
       p.id, p.about_kind, p.member_id, p.agent_id, p.routine_id, p.subject_id, mr.label AS name,
       p.description, p.version, p.trashed_at, p.created_at, p.updated_at,
       mr.object_id AS memory_object_id, s.object_id AS subject_object_id,
       COALESCE(record_readable(s, $1, $2), false) AS subject_readable,
       COALESCE(object_carries_pages(s.object_id), true) AS carries_pages,
       COALESCE(ag.owner_member_id, ro.owner_member_id) AS actor_owner_id,
       CASE WHEN l.is_prefix THEN '[]'::jsonb
            ELSE memory_lines_shown(
                     (SELECT COALESCE(jsonb_agg(to_jsonb(ln) ORDER BY ln.position), '[]')
                        FROM memory_lines ln
                       WHERE ln.workspace_id = p.workspace_id AND ln.page_id = p.id),
                     $1, $2, false)
       END AS lines,
       CASE WHEN NOT l.is_prefix
            THEN (SELECT v.id FROM memory_versions v
                   WHERE v.workspace_id = p.workspace_id AND v.page_id = p.id
                   ORDER BY v.number DESC LIMIT 1)
       END AS last_version_id
  FROM listed l
  JOIN memory_pages p ON p.workspace_id = app_workspace_id() AND p.id = l.id
  JOIN records mr ON mr.workspace_id = p.workspace_id AND mr.id = p.id
  LEFT JOIN records s ON s.workspace_id = p.workspace_id AND s.id = p.subject_id
  LEFT JOIN agents ag ON ag.workspace_id = p.workspace_id AND ag.id = p.agent_id
  LEFT JOIN routines ro ON ro.workspace_id = p.workspace_id AND ro.id = p.routine_id
 ORDER BY l.key;

-- name: workspace_version
-- A live page's newest version, when the reader ($2 readable objects, $3 person) may read the
-- page (memory_page_readable): its facts and its lines as the reader sees them (none once
-- redacted). An older version, or one of a page they may not read, is no row.
SELECT v.id, v.page_id, v.number, v.operation, v.actor_kind, v.actor_id, v.session_id,
       v.created_at, v.redacted_at,
       CASE WHEN v.lines IS NOT NULL THEN memory_lines_shown(v.lines, $2, $3, false) END AS lines
  FROM memory_versions v
  JOIN memory_pages p ON p.workspace_id = v.workspace_id AND p.id = v.page_id
  JOIN records mr ON mr.workspace_id = p.workspace_id AND mr.id = p.id
  LEFT JOIN records s ON s.workspace_id = p.workspace_id AND s.id = p.subject_id
 WHERE v.workspace_id = app_workspace_id() AND v.id = $1 AND p.trashed_at IS NULL
   AND memory_page_readable(p.about_kind, p.member_id, mr.object_id, s, $2, $3)
   AND v.number = (SELECT max(n.number) FROM memory_versions n
                    WHERE n.workspace_id = v.workspace_id AND n.page_id = v.page_id);
