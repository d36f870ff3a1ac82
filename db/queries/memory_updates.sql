-- name: updated_lines
-- The lines written or refreshed for the items $1 that are the reader's own (private to them,
-- about their profile, or paid by them: memoryItems' rule) on pages the reader (reading $2,
-- the person $3) may read, each line as that reader sees it; a line since removed or a page
-- since trashed is left out.
SELECT v.verdict, v.page_id, mr.label AS page_name, v.line_key AS key,
       memory_lines_shown(
           (SELECT COALESCE(jsonb_agg(to_jsonb(l)), '[]') FROM memory_lines l
             WHERE l.workspace_id = v.workspace_id AND l.page_id = v.page_id
               AND l.key = v.line_key),
           $2, $3, false) AS lines
  FROM memory_verdicts v
  JOIN memory_items i ON i.workspace_id = v.workspace_id AND i.id = v.item_id
  JOIN memory_pages p ON p.workspace_id = v.workspace_id AND p.id = v.page_id
  JOIN records mr ON mr.workspace_id = p.workspace_id AND mr.id = p.id
  LEFT JOIN records s ON s.workspace_id = p.workspace_id AND s.id = p.subject_id
 WHERE v.workspace_id = app_workspace_id() AND v.item_id = ANY ($1)
   AND v.verdict <> 'refused' AND p.trashed_at IS NULL
   AND (i.private_to = $3 OR (i.owner_kind = 'member' AND i.owner_id = $3)
        OR (i.payer_kind = 'member' AND i.payer_id = $3))
   AND memory_page_readable(p.about_kind, p.member_id, mr.object_id, s, $2, $3)
 ORDER BY v.created_at, i.arrived_at, v.item_id, v.number;

-- name: decided_proposals
-- The proposals among $1 that were decided and that the proposer $2/$3 made for the person $4
-- (myMemoryProposals' rule), in the order they were decided.
SELECT id, proposer_kind, proposer_name, on_behalf_of, record_id, text, status, verdict,
       created_at, decided_at
  FROM memory_proposals
 WHERE workspace_id = app_workspace_id() AND id = ANY ($1) AND status <> 'waiting'
   AND proposer_kind = $2 AND proposer_id = $3 AND on_behalf_of IS NOT DISTINCT FROM $4
 ORDER BY decided_at, created_at, id;
