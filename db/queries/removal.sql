-- name: due_workspaces
-- The workspaces holding a live page with no removal run started in [$1, $2) (across
-- workspaces: ids only, memory_removal_due in migration 0016).
SELECT workspace_id FROM memory_removal_due($1, $2) ORDER BY workspace_id;

-- name: take_workspace
-- Takes the transaction's advisory lock on the workspace's removal, if no other session holds
-- it (released when the transaction ends).
SELECT pg_try_advisory_xact_lock(hashtextextended('memory.removal:' || app_workspace_id(), 0));

-- name: ran_between
-- Whether a removal run of the current workspace started in [$1, $2).
SELECT EXISTS (SELECT 1 FROM memory_cleanups
                WHERE workspace_id = app_workspace_id() AND kind = 'removal'
                  AND started_at >= $1 AND started_at < $2);

-- name: audiences
-- Each audience holding live pages (a member's profile: that member's; every other page: the
-- workspace's, audience_id NULL), its pages and those the removal reads (not the pages about a
-- record in the trash: that record keeps its souvenirs).
SELECT CASE WHEN p.about_kind = 'member' THEN p.member_id END AS audience_id,
       count(*) AS pages,
       count(*) FILTER (WHERE s.trashed_at IS NULL) AS pages_read
  FROM memory_pages p
  LEFT JOIN records s ON s.workspace_id = p.workspace_id AND s.id = p.subject_id
 WHERE p.workspace_id = app_workspace_id() AND p.trashed_at IS NULL
 GROUP BY 1
 ORDER BY 1 NULLS FIRST;

-- name: candidates
-- Every souvenir the Monday removal takes from the workspace's live pages ($3: only these
-- pages; NULL: every one), with the first reason that holds, in this order: 'ended' (its end
-- date is before $1, today), 'review_passed' (a contexte of a day before $2: its review date,
-- six months after its day, is before today; a confirmation moves the day), 'source_gone',
-- and on a member's profile 'source_closed' (that member can no longer open the source: the
-- one rule line_source_open, with the member's role's readable objects). Never a ✍ line;
-- never a line of a page about a record in the trash; a line whose source cannot be checked
-- (none, a kind this query does not know) is kept, and so is a source record in the trash
-- (it may come back). Elsewhere than a member's profile only the source's existence counts: a
-- line shared from someone's private source stays while that source exists.
WITH pages AS (
    SELECT p.id, p.about_kind, p.member_id
      FROM memory_pages p
      LEFT JOIN records s ON s.workspace_id = p.workspace_id AND s.id = p.subject_id
     WHERE p.workspace_id = app_workspace_id() AND p.trashed_at IS NULL
       AND s.trashed_at IS NULL
       AND ($3::uuid[] IS NULL OR p.id = ANY ($3))
),
rights AS (
    SELECT m.id AS member_id,
           COALESCE(array_agg(rp.object_id) FILTER (WHERE rp.can_read), '{}') AS readable
      FROM members m
      LEFT JOIN role_permissions rp ON rp.workspace_id = m.workspace_id AND rp.role_id = m.role_id
     WHERE m.workspace_id = app_workspace_id()
       AND m.id IN (SELECT member_id FROM pages WHERE about_kind = 'member')
     GROUP BY m.id
),
source AS (
    SELECT l.page_id, l.position, l.key, l.text, l.type, l.day, l.until, l.source_kind,
           p.about_kind, p.member_id, r.readable, src, cm.id AS source_member,
           -- THE one place saying whether a line's source still exists: true, false (gone),
           -- or NULL (it cannot be checked: the line is kept).
           CASE l.source_kind
               -- A record (a meeting, any record): gone once its row is; a mail its mailbox
               -- marked deleted is gone too (its record stays, the mail is never read again).
               WHEN 'record' THEN src.id IS NOT NULL AND NOT COALESCE(mm.deleted, false)
               -- The member who owns the private conversation or proposal.
               WHEN 'conversation' THEN cm.id IS NOT NULL
           END AS source_exists
      FROM pages p
      JOIN memory_lines l ON l.workspace_id = app_workspace_id() AND l.page_id = p.id
      LEFT JOIN records src
        ON l.source_kind = 'record' AND src.workspace_id = l.workspace_id AND src.id = l.source_id
      LEFT JOIN mail_messages mm ON mm.workspace_id = src.workspace_id AND mm.id = src.id
      LEFT JOIN members cm
        ON l.source_kind = 'conversation' AND cm.workspace_id = l.workspace_id
       AND cm.id = l.source_id
      LEFT JOIN rights r ON p.about_kind = 'member' AND r.member_id = p.member_id
     WHERE l.kind = 'souvenir' AND NOT l.human
)
SELECT page_id, key, text, reason
  FROM source
 CROSS JOIN LATERAL (
       SELECT CASE
                  WHEN until < $1 THEN 'ended'
                  WHEN type = 'contexte' AND day < $2 THEN 'review_passed'
                  WHEN NOT source_exists THEN 'source_gone'
                  WHEN about_kind = 'member' AND readable IS NOT NULL AND source_exists
                       AND (src).trashed_at IS NULL
                       AND NOT line_source_open(source_kind, src, source_member, readable,
                                                member_id, false)
                      THEN 'source_closed'
              END AS reason) why
 WHERE why.reason IS NOT NULL
 ORDER BY page_id, position;

-- name: lock_pages
-- Locks the given pages' rows, in id order (as a pass locks its pages), until the transaction
-- ends.
SELECT id FROM memory_pages
 WHERE workspace_id = app_workspace_id() AND id = ANY ($1)
 ORDER BY id
   FOR UPDATE;

-- name: stored_pages
-- The given live pages with their lines as stored, in order, and the audience each is of.
SELECT p.id, p.about_kind, p.member_id,
       (SELECT COALESCE(jsonb_agg(to_jsonb(l) - 'search_vector' ORDER BY l.position), '[]')
          FROM memory_lines l
         WHERE l.workspace_id = p.workspace_id AND l.page_id = p.id) AS lines
  FROM memory_pages p
 WHERE p.workspace_id = app_workspace_id() AND p.id = ANY ($1) AND p.trashed_at IS NULL
 ORDER BY p.id;

-- name: delete_lines
-- Deletes the removed lines (by page and key) and every line of the emptied pages ($3).
DELETE FROM memory_lines l
 WHERE l.workspace_id = app_workspace_id()
   AND (l.page_id = ANY ($3)
        OR (l.page_id, l.key) IN (SELECT r.page_id, r.key
                                    FROM unnest($1::uuid[], $2::text[]) AS r(page_id, key)));

-- name: insert_runs
-- Records one removal run per audience (trigger 'monday', reader 'code', nothing spent).
INSERT INTO memory_cleanups (workspace_id, id, kind, audience_kind, audience_id, trigger,
                             reader, pages_read, lines_changed, pages_deleted, started_at,
                             finished_at)
SELECT app_workspace_id(), r.id, 'removal',
       CASE WHEN r.audience_id IS NULL THEN 'workspace' ELSE 'member' END, r.audience_id,
       'monday', 'code', r.pages_read, r.lines_changed, r.pages_deleted, $6, $7
  FROM unnest($1::uuid[], $2::uuid[], $3::integer[], $4::integer[], $5::integer[])
       AS r(id, audience_id, pages_read, lines_changed, pages_deleted);

-- name: insert_changes
-- Records what the runs changed, each run's changes numbered from 1 in the order given.
INSERT INTO memory_cleanup_changes (workspace_id, cleanup_id, number, page_id, change, reason,
                                    line_key, text, created_at)
SELECT app_workspace_id(), c.cleanup_id,
       row_number() OVER (PARTITION BY c.cleanup_id ORDER BY c.ord), c.page_id, c.change,
       c.reason, c.line_key, c.text, $7
  FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[])
       WITH ORDINALITY AS c(cleanup_id, page_id, change, reason, line_key, text, ord);
