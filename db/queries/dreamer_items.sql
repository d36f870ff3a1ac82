-- name: items
-- The items the Dreamer read, keeps waiting or did not read, newest first after the cursor
-- ($5 arrived_at, $6 id): a person's own ($1; every item when $2), of one status ($3, NULL:
-- any), at most $4. Whether the reader ($1, reading $7) may open each one's source decides
-- what is shown of it; its verdicts, its payer and its share of its pass's cost come along (a
-- mail item: its exchange, and its subject as its text).
SELECT i.id, i.kind, i.status, i.reason, i.said_at, i.arrived_at, i.read_at, i.deferred_until,
       i.owner_kind, i.payer_kind, i.payer_id, pm.name AS payer_name,
       CASE WHEN ps.items > 0 THEN trim_scale(ps.cost_usd / ps.items) END::text AS cost_usd,
       (i.private_to IS NOT DISTINCT FROM $1
        OR (i.private_to IS NULL
            AND CASE WHEN i.meeting_id IS NOT NULL
                     THEN COALESCE(record_readable(mr, $7, $1), false)
                     WHEN i.exchange_id IS NOT NULL
                     THEN COALESCE(record_readable(xr, $7, $1), false)
                     ELSE true END)) AS source_open,
       COALESCE(m.text, mr.label, u.mission, pr.text, xr.label) AS text,
       i.proposal_id, i.meeting_id,
       CASE WHEN x.id IS NOT NULL THEN jsonb_build_object(
           'mailbox_id', x.mailbox_id, 'mailbox_name', xb.name, 'thread_id', x.thread_id,
           'opened_at', x.opened_at, 'quiet_since', x.quiet_since, 'first_at', x.first_at,
           'last_at', x.last_at) END AS exchange,
       COALESCE((SELECT jsonb_agg(jsonb_build_object(
                    'verdict', v.verdict, 'reason', v.reason, 'page_id', v.page_id,
                    'line_key', v.line_key, 'text', v.text) ORDER BY v.number)
                   FROM memory_verdicts v
                  WHERE v.workspace_id = i.workspace_id AND v.item_id = i.id), '[]') AS verdicts
  FROM memory_items i
  LEFT JOIN members pm ON pm.workspace_id = i.workspace_id AND pm.id = i.payer_id
  LEFT JOIN memory_passes ps ON ps.workspace_id = i.workspace_id AND ps.id = i.pass_id
  LEFT JOIN conversation_messages m ON m.workspace_id = i.workspace_id AND m.id = i.message_id
  LEFT JOIN records mr ON mr.workspace_id = i.workspace_id AND mr.id = i.meeting_id
  LEFT JOIN runs u ON u.workspace_id = i.workspace_id AND u.id = i.run_id
  LEFT JOIN memory_proposals pr ON pr.workspace_id = i.workspace_id AND pr.id = i.proposal_id
  LEFT JOIN mail_exchanges x ON x.workspace_id = i.workspace_id AND x.id = i.exchange_id
  LEFT JOIN mailboxes xb ON xb.workspace_id = x.workspace_id AND xb.id = x.mailbox_id
  LEFT JOIN records xr ON xr.workspace_id = x.workspace_id AND xr.id = x.opening_id
 WHERE i.workspace_id = app_workspace_id()
   AND ($2 OR i.private_to = $1 OR (i.owner_kind = 'member' AND i.owner_id = $1)
        OR (i.payer_kind = 'member' AND i.payer_id = $1))
   AND ($3::text IS NULL OR i.status = $3)
   AND ($5::timestamptz IS NULL OR (i.arrived_at, i.id) < ($5, $6))
 ORDER BY i.arrived_at DESC, i.id DESC
 LIMIT $4;

-- name: spend
-- What each payer spent in the month starting $1, most first.
SELECT s.payer_kind, s.payer_id, m.name AS payer_name, s.month, s.cost_usd::text, s.passes
  FROM memory_spend s
  LEFT JOIN members m ON m.workspace_id = s.workspace_id AND m.id = s.payer_id
 WHERE s.workspace_id = app_workspace_id() AND s.month = $1
 ORDER BY s.cost_usd DESC, s.payer_kind, m.name;
