-- name: objects
-- Every object of the workspace with its attributes in display order.
SELECT o.id, o.slug, o.singular, o.plural, o.kind, o.created_at,
       COALESCE((SELECT jsonb_agg(jsonb_build_object(
                            'slug', a.slug, 'title', a.title, 'type', a.type,
                            'target', t.slug, 'principal_rank', a.principal_rank)
                          ORDER BY a.position, a.slug)
                   FROM attributes a
                   LEFT JOIN objects t
                          ON t.workspace_id = a.workspace_id AND t.id = a.target_object_id
                  WHERE a.workspace_id = o.workspace_id AND a.object_id = o.id), '[]'::jsonb)
           AS attributes
  FROM objects o
 ORDER BY o.slug;

-- name: insert_object
-- Create an object (a kind of record).
INSERT INTO objects (workspace_id, id, slug, singular, plural, kind)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5);

-- name: insert_attribute
-- Add an attribute to an object; a relation names its target object by slug.
INSERT INTO attributes (workspace_id, object_id, slug, title, type, target_object_id,
                        principal_rank, position)
SELECT app_workspace_id(), $1, $2, $3, $4, t.id, $6, $7
  FROM (SELECT 1) one
  LEFT JOIN objects t ON t.workspace_id = app_workspace_id() AND t.slug = $5;

-- name: records_page
-- Records of one object the caller may read, in creation order after the record $4 created at
-- $9 (a cursor names a record, never a sequence number other workspaces move; once that record
-- is deleted the list goes on after the last one created no later), with their readable
-- relations (json); optionally only those whose label contains a text, whose values contain a JSON
-- object, or that point to a record (one the caller may read: an unreadable one matches like a
-- missing one). records_page_rows (migrations 0035, 0041) holds the statement.
SELECT * FROM records_page_rows($1, $2, $3, $4, $5, $6, $7, $8, $9);

-- name: records_page_plain
-- records_page without a filter (the object $1, for the role reading $2 and the person $3, after
-- the record $4 created at $6, at most $5), planned once per session (migrations 0035, 0041).
SELECT * FROM records_page_plain($1, $2, $3, $4, $5, $6);

-- name: records_by_ids
-- Records the caller may read among the given ids, with their readable relations
-- (record_relations, migration 0041).
SELECT r.id, r.seq, o.slug AS object, r.label, r."values", r.visibility, r.owner_member_id,
       r.created_at, r.updated_at, rel.relations
  FROM records r
  JOIN objects o ON o.workspace_id = r.workspace_id AND o.id = r.object_id
  CROSS JOIN LATERAL record_relations(r.workspace_id, r.id, $2, $3) AS rel (relations)
 WHERE r.id = ANY ($1::uuid[])
   AND record_readable(r, $2, $3);

-- name: last_changes_by_records
-- The latest change of each given record.
SELECT DISTINCT ON (c.record_id) c.record_id, c.id, c.changed_at, c.actor_kind, c.actor_id,
       c.actor_name, c.operation, c.fields
  FROM record_changes c
 WHERE c.record_id = ANY ($1::uuid[])
 ORDER BY c.record_id, c.id DESC;

-- name: changes_by_records
-- The change logs of several records, newest first, at most $2 entries each.
SELECT record_id, id, changed_at, actor_kind, actor_id, actor_name, operation, fields
  FROM (SELECT c.*, row_number() OVER (PARTITION BY c.record_id ORDER BY c.id DESC) AS n
          FROM record_changes c
         WHERE c.record_id = ANY ($1::uuid[])) numbered
 WHERE n <= $2
 ORDER BY record_id, id DESC;

-- name: record_targets
-- For a write: records named by id or by (object slug, external id), with what the caller may
-- do to them. $1 ids, $2 object slugs and $3 external ids (pairwise), $4 readable objects,
-- $5 the person.
SELECT r.id, o.slug AS object, r.external_id, r.label, r."values", r.visibility,
       r.owner_member_id, r.object_id, COALESCE(record_readable(r, $4, $5), false) AS readable,
       COALESCE((SELECT jsonb_object_agg(l.attribute_slug, l.target_id)
                   FROM record_links l
                  WHERE l.workspace_id = r.workspace_id AND l.record_id = r.id), '{}'::jsonb)
           AS links,
       r.shared_with
  FROM records r
  JOIN objects o ON o.workspace_id = r.workspace_id AND o.id = r.object_id
 WHERE r.id = ANY ($1::uuid[])
    OR (o.slug, r.external_id) IN (SELECT * FROM unnest($2::text[], $3::text[]));

-- name: insert_record
-- Create a record, unless its object holds one with this external id (then nothing, no row).
INSERT INTO records (workspace_id, id, object_id, external_id, label, "values", visibility,
                     owner_member_id)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (workspace_id, object_id, external_id) DO NOTHING
RETURNING id;

-- name: update_record
-- Replace a record's label, values, visibility and owner.
UPDATE records
   SET label = $2, "values" = $3, visibility = $4, owner_member_id = $5, updated_at = now()
 WHERE id = $1;

-- name: upsert_link
-- Point a record's relation at a record.
INSERT INTO record_links (workspace_id, record_id, attribute_slug, target_id)
VALUES (app_workspace_id(), $1, $2, $3)
ON CONFLICT (workspace_id, record_id, attribute_slug) DO UPDATE SET target_id = EXCLUDED.target_id;

-- name: delete_link
-- Clear a record's relation.
DELETE FROM record_links WHERE record_id = $1 AND attribute_slug = $2;

-- name: replace_shares
-- Share a record with exactly these members.
UPDATE records SET shared_with = $2::uuid[] WHERE id = $1;

-- name: insert_change
-- Append to a record's change log.
INSERT INTO record_changes (workspace_id, record_id, actor_kind, actor_id, actor_name, operation,
                            fields)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6);

-- name: readable_records
-- Which of the given records the caller may read, with their labels.
SELECT r.id, r.label FROM records r
 WHERE r.workspace_id = app_workspace_id() AND r.id = ANY ($1)
   AND record_readable(r, $2, $3);

-- name: carries_pages
-- Whether a record exists and its object may carry memory pages.
SELECT object_carries_pages(r.object_id) FROM records r
 WHERE r.workspace_id = app_workspace_id() AND r.id = $1;

-- name: set_record_trashed
-- Moves a record to the trash ($2 a time) or out of it ($2 NULL); its page stays.
UPDATE records SET trashed_at = $2
 WHERE workspace_id = app_workspace_id() AND id = $1
RETURNING id;

-- Objects and sharing, asked by skills and memory.

-- name: object_id
-- The id of an object by its slug.
SELECT id FROM objects WHERE slug = $1;

-- name: record_shared_with
-- The members a record is shared with.
SELECT shared_with FROM records WHERE id = $1;
