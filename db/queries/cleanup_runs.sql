-- name: runs
-- Memory's cleanup runs (removals and consolidations), newest first after the cursor ($5
-- started_at, $6 id): those of a person's own audience ($1; every run when $2), of one kind
-- ($3, NULL: both), at most $4; with their audience's and payer's names and their changes'
-- count.
SELECT c.id, c.kind, c.audience_kind, c.audience_id, am.name AS audience_name, c.trigger,
       c.rules_version, c.payer_kind, c.payer_id, pm.name AS payer_name, c.reader,
       c.pages_read, c.lines_changed, c.pages_deleted, c.input_tokens, c.output_tokens,
       trim_scale(c.cost_usd)::text AS cost_usd, c.note, c.started_at, c.finished_at,
       (SELECT count(*) FROM memory_cleanup_changes ch
         WHERE ch.workspace_id = c.workspace_id AND ch.cleanup_id = c.id) AS change_count
  FROM memory_cleanups c
  LEFT JOIN members am ON am.workspace_id = c.workspace_id AND am.id = c.audience_id
  LEFT JOIN members pm ON pm.workspace_id = c.workspace_id AND pm.id = c.payer_id
 WHERE c.workspace_id = app_workspace_id()
   AND ($2 OR (c.audience_kind = 'member' AND c.audience_id = $1))
   AND ($3::text IS NULL OR c.kind = $3)
   AND ($5::timestamptz IS NULL OR (c.started_at, c.id) < ($5, $6))
 ORDER BY c.started_at DESC, c.id DESC
 LIMIT $4;

-- name: changes
-- The changes of the runs $1 numbered after $2, at most $3 a run, in order, each with what
-- says whether the reader ($4 readable objects, $5 person) may read its page: what the page is
-- about, its member, its memory record's object, whether the reader reads the page's record.
SELECT ch.cleanup_id, ch.number, ch.page_id, ch.change, ch.reason, ch.line_key, ch.text,
       ch.new_text, ch.new_type, p.about_kind, p.member_id, mr.object_id AS memory_object_id,
       COALESCE(record_readable(s, $4, $5), false) AS subject_readable
  FROM unnest($1::uuid[]) AS r(id)
 CROSS JOIN LATERAL (SELECT c.*
                       FROM memory_cleanup_changes c
                      WHERE c.workspace_id = app_workspace_id() AND c.cleanup_id = r.id
                        AND c.number > $2
                      ORDER BY c.number
                      LIMIT $3) ch
  LEFT JOIN memory_pages p ON p.workspace_id = ch.workspace_id AND p.id = ch.page_id
  LEFT JOIN records mr ON mr.workspace_id = ch.workspace_id AND mr.id = ch.page_id
  LEFT JOIN records s ON s.workspace_id = p.workspace_id AND s.id = p.subject_id
 ORDER BY ch.cleanup_id, ch.number;
