-- name: insert_cleanup
-- Record one removal or consolidation run of the current workspace.
INSERT INTO memory_cleanups (workspace_id, id, kind, audience_kind, audience_id, trigger,
                             rules_version, payer_kind, payer_id, reader, pages_read,
                             lines_changed, pages_deleted, input_tokens, output_tokens, cost_usd,
                             note, started_at, finished_at)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
        $16, $17, $18);

-- name: insert_changes
-- Record what a run changed, numbered from 1 in the order given.
INSERT INTO memory_cleanup_changes (workspace_id, cleanup_id, number, page_id, change, reason,
                                    line_key, text, new_text, new_type, created_at)
SELECT app_workspace_id(), $1, c.number, c.page_id, c.change, c.reason, c.line_key, c.text,
       c.new_text, c.new_type, $2
  FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
              $9::text[]) WITH ORDINALITY
       AS c(page_id, change, reason, line_key, text, new_text, new_type, number);
