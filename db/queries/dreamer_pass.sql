-- name: waiting_items
-- One page owner's waiting items ($1 kind, $2 id), deferred ones too (the pass decides what
-- its payer's allowance lets it read), locked for this pass (another pass skips them), in
-- reading order (mail last), with what their sources say (a run's: the names of its messages'
-- speakers by id; a mail exchange's: its window's messages, each with the member whose own
-- words it is, its attachments' names only, never its quoted history, only mail classified in
-- the $4 before this pass's time $3 (mail_window, migration 0018); and why it is no longer to
-- be read: its important mail deleted, its personal mailbox's learnFromEmail off now or turned
-- on again since it was received, or its important mail classified before that reach); and
-- whether it came through an agent whose memory is off now (item_memory_on).
SELECT i.id, i.kind, i.private_to, i.payer_kind, i.payer_id, i.share_with_team, i.urgent,
       i.said_at, i.arrived_at, i.proposal_id, i.meeting_id,
       m.text AS message_text, m.speaker_kind AS message_speaker_kind,
       m.speaker_id AS message_speaker_id, m.attached_record_id,
       c.person_id AS conversation_person_id, c.agent_id AS conversation_agent_id,
       t.transcript, t.owner_id AS meeting_owner_id, mr.label AS meeting_title,
       ARRAY(SELECT ml.record_id FROM meeting_links ml
              WHERE ml.workspace_id = i.workspace_id AND ml.meeting_id = i.meeting_id
              ORDER BY ml.position) AS meeting_records,
       u.mission, u.messages AS run_messages, u.runner_kind, u.agent_id AS run_agent_id,
       u.routine_id AS run_routine_id, u.owner_id AS run_owner_id,
       uc.person_id AS run_person_id,
       (SELECT jsonb_object_agg(n.id::text, n.name)
          FROM jsonb_array_elements(u.messages) e
          JOIN (SELECT id, name FROM members WHERE workspace_id = u.workspace_id
                UNION ALL
                SELECT id, name FROM agents WHERE workspace_id = u.workspace_id
                UNION ALL
                SELECT id, name FROM routines WHERE workspace_id = u.workspace_id) n
            ON n.id = (e->>'speakerId')::uuid) AS run_speaker_names,
       p.text AS proposal_text, p.proposer_kind, p.proposer_id, p.proposer_name,
       p.record_id AS proposal_record_id, p.on_behalf_of,
       x.opening_id AS mail_opening_id, xb.kind AS mailbox_kind, xb.owner_id AS mailbox_owner_id,
       xo.subject AS mail_subject,
       CASE WHEN x.id IS NULL THEN NULL WHEN xo.deleted THEN 'mail_deleted'
            WHEN NOT xr.read OR xo.sent_at < COALESCE(xr.reads_from, '-infinity')
            THEN 'learn_from_email_off'
            WHEN xo.classified_at < mail_reach_start($3, $4) THEN 'mail_too_old' END
           AS mail_closed,
       (SELECT jsonb_agg(jsonb_build_object(
                   'id', w.id, 'at', w.sent_at, 'filed', w.filed, 'from', w.from_address,
                   'name', w.from_name, 'text', w.text, 'member', a.id, 'member_name', a.name,
                   'attachments', (SELECT COALESCE(jsonb_agg(e->'name'), '[]')
                                     FROM jsonb_array_elements(w.attachments) e))
                 ORDER BY w.sent_at, w.id)
          FROM mail_window(x, $3, $4) w
          LEFT JOIN members a ON a.workspace_id = w.workspace_id AND a.id = mail_author(w, xb))
           AS mail_messages,
       ARRAY(SELECT l.record_id FROM mail_window(x, $3, $4) w
               JOIN mail_message_links l
                 ON l.workspace_id = w.workspace_id AND l.message_id = w.id
              GROUP BY l.record_id
              ORDER BY min(w.sent_at), min(l.position)) AS mail_records,
       NOT item_memory_on(i.message_id, i.run_id, i.proposal_id) AS memory_off,
       COALESCE(length(m.text), length(t.transcript), length(u.mission) + length(u.messages::text),
                length(p.text), (SELECT sum(length(w.text)) FROM mail_window(x, $3, $4) w),
                0) AS text_length
  FROM memory_items i
  LEFT JOIN conversation_messages m ON m.workspace_id = i.workspace_id AND m.id = i.message_id
  LEFT JOIN conversations c ON c.workspace_id = m.workspace_id AND c.id = m.conversation_id
  LEFT JOIN meeting_transcripts t ON t.workspace_id = i.workspace_id AND t.meeting_id = i.meeting_id
  LEFT JOIN records mr ON mr.workspace_id = t.workspace_id AND mr.id = t.meeting_id
  LEFT JOIN runs u ON u.workspace_id = i.workspace_id AND u.id = i.run_id
  LEFT JOIN conversations uc ON uc.workspace_id = u.workspace_id AND uc.id = u.conversation_id
  LEFT JOIN memory_proposals p ON p.workspace_id = i.workspace_id AND p.id = i.proposal_id
  LEFT JOIN mail_exchanges x ON x.workspace_id = i.workspace_id AND x.id = i.exchange_id
  LEFT JOIN mailboxes xb ON xb.workspace_id = x.workspace_id AND xb.id = x.mailbox_id
  LEFT JOIN mail_messages xo ON xo.workspace_id = x.workspace_id AND xo.id = x.opening_id
  LEFT JOIN LATERAL mailbox_reading(xb) xr ON x.id IS NOT NULL
 WHERE i.workspace_id = app_workspace_id() AND i.status = 'waiting'
   AND i.owner_kind = $1 AND i.owner_id IS NOT DISTINCT FROM $2
 ORDER BY i.kind = 'mail', i.arrived_at, i.id
 FOR UPDATE OF i SKIP LOCKED;

-- name: still_waiting
-- Of these items, the ones still waiting, locked until the pass's writes commit.
SELECT id FROM memory_items
 WHERE workspace_id = app_workspace_id() AND id = ANY ($1) AND status = 'waiting'
 ORDER BY id
   FOR UPDATE;

-- name: close_items
-- Waiting items ($1) that will not be read after all, with their reason ($2); a proposal
-- among them is not read either, its reason as its verdict, decided at $3.
WITH closed AS (
    UPDATE memory_items SET status = 'not_read', reason = $2, deferred_until = NULL
     WHERE workspace_id = app_workspace_id() AND id = ANY ($1) AND status = 'waiting'
    RETURNING proposal_id
)
UPDATE memory_proposals SET status = 'not_read', verdict = $2, decided_at = $3
 WHERE workspace_id = app_workspace_id() AND status = 'waiting'
   AND id IN (SELECT proposal_id FROM closed);

-- name: workspace_facts
-- The workspace's name, whether it has AI credits, and its allowances as set (NULL: default).
SELECT w.name, COALESCE(s.ai_credits, true) AS ai_credits,
       s.memory_person_monthly_limit_usd::text AS person_limit,
       s.memory_tenant_monthly_limit_usd::text AS tenant_limit
  FROM workspaces w
  LEFT JOIN workspace_settings s ON s.workspace_id = w.workspace_id
 WHERE w.workspace_id = app_workspace_id();

-- name: members
-- Members ($1) with their names, whether their role changes the workspace's settings, and the
-- objects their role reads and updates.
SELECT m.id, m.name, ro.can_update_settings,
       ARRAY(SELECT rp.object_id FROM role_permissions rp
              WHERE rp.workspace_id = m.workspace_id AND rp.role_id = m.role_id
                AND rp.can_read) AS readable,
       ARRAY(SELECT rp.object_id FROM role_permissions rp
              WHERE rp.workspace_id = m.workspace_id AND rp.role_id = m.role_id
                AND rp.can_update) AS updatable
  FROM members m
  JOIN roles ro ON ro.workspace_id = m.workspace_id AND ro.id = m.role_id
 WHERE m.workspace_id = app_workspace_id() AND m.id = ANY ($1);

-- name: member_names
-- Every member's name: a line whose author is one was stated by a person.
SELECT name FROM members WHERE workspace_id = app_workspace_id();

-- name: actors
-- Agents and routines ($1) with their names and owners.
SELECT 'agent' AS kind, id, name, owner_member_id FROM agents
 WHERE workspace_id = app_workspace_id() AND id = ANY ($1)
UNION ALL
SELECT 'routine', id, name, owner_member_id FROM routines
 WHERE workspace_id = app_workspace_id() AND id = ANY ($1);

-- name: records
-- Records ($1) with their object, label, values, whether they may carry a page, whether they
-- are satellites, the records they point to, and whether $3 (reading $2) may read them (no
-- person: the workspace's live records only).
SELECT r.id, r.object_id, o.slug AS object, r.label, r."values",
       object_carries_pages(r.object_id) AS carries,
       (o.kind = 'custom' AND NOT object_carries_pages(r.object_id)) AS satellite,
       ARRAY(SELECT k.target_id FROM record_links k
              WHERE k.workspace_id = r.workspace_id AND k.record_id = r.id
              ORDER BY k.attribute_slug) AS points_to,
       CASE WHEN $3::uuid IS NULL THEN r.visibility = 'workspace' AND r.trashed_at IS NULL
            ELSE COALESCE(record_readable(r, $2, $3), false) END AS readable
  FROM records r
  JOIN objects o ON o.workspace_id = r.workspace_id AND o.id = r.object_id
 WHERE r.workspace_id = app_workspace_id() AND r.id = ANY ($1);

-- name: updatable
-- Which of the records ($2) a member ($1, reading $3, updating $4) may update.
SELECT r.id FROM records r
 WHERE r.workspace_id = app_workspace_id() AND r.id = ANY ($2)
   AND r.object_id = ANY ($4) AND COALESCE(record_readable(r, $3, $1), false);

-- name: live_pages
-- The live pages about these members, agents, routines or records ($1), and the workspace's.
SELECT id, about_kind, COALESCE(member_id, agent_id, routine_id, subject_id) AS about_id
  FROM memory_pages
 WHERE workspace_id = app_workspace_id() AND trashed_at IS NULL
   AND (about_kind = 'workspace' OR COALESCE(member_id, agent_id, routine_id, subject_id) = ANY ($1));

-- name: spent
-- What a payer ($1 kind, $2 id) spent in the month starting $3.
SELECT COALESCE(sum(cost_usd), 0)::text FROM memory_spend
 WHERE workspace_id = app_workspace_id() AND payer_kind = $1
   AND payer_key = COALESCE($2, app_workspace_id()) AND month = $3;

-- name: charge
-- Adds a pass's cost to its payer's month.
INSERT INTO memory_spend AS s (workspace_id, payer_kind, payer_id, month, cost_usd, passes)
VALUES (app_workspace_id(), $1, $2, $3, $4::numeric, 1)
ON CONFLICT (workspace_id, payer_kind, payer_key, month)
DO UPDATE SET cost_usd = s.cost_usd + EXCLUDED.cost_usd, passes = s.passes + 1;

-- name: defer
-- Keeps items waiting until $2 (their payer is over its allowance).
UPDATE memory_items SET deferred_until = $2
 WHERE workspace_id = app_workspace_id() AND id = ANY ($1) AND status = 'waiting';

-- name: count_attempt
-- One more failed attempt at reading these items: they wait until $2; the most attempts any
-- of them has made.
UPDATE memory_items SET attempts = attempts + 1, deferred_until = $2
 WHERE workspace_id = app_workspace_id() AND id = ANY ($1) AND status = 'waiting'
RETURNING attempts;

-- name: give_up
-- Items no reader could read after every attempt: not read, and so their proposals ($2: when).
WITH gone AS (
    UPDATE memory_items SET status = 'not_read', reason = 'reader_failed', deferred_until = NULL
     WHERE workspace_id = app_workspace_id() AND id = ANY ($1) AND status = 'waiting'
    RETURNING proposal_id)
UPDATE memory_proposals p SET status = 'not_read', verdict = 'reader_failed', decided_at = $2
  FROM gone
 WHERE p.workspace_id = app_workspace_id() AND p.id = gone.proposal_id;

-- name: insert_pass
-- A pass: whom it read for, who paid, the reader, the tokens and the cost.
INSERT INTO memory_passes (workspace_id, id, owner_kind, owner_id, payer_kind, payer_id, reader,
                           items, input_tokens, output_tokens, cost_usd, started_at,
                           finished_at)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10::numeric, $11, $12);

-- name: mark_read
-- Items read by a pass.
UPDATE memory_items SET status = 'read', read_at = $2, pass_id = $3, deferred_until = NULL
 WHERE workspace_id = app_workspace_id() AND id = ANY ($1) AND status = 'waiting';

-- name: insert_verdicts
-- The verdicts of a pass, one row per learning ($1: a JSON array).
INSERT INTO memory_verdicts (workspace_id, item_id, number, verdict, reason, page_id, line_key,
                             text, created_at)
SELECT app_workspace_id(), v.item_id, v.number, v.verdict, v.reason, v.page_id, v.line_key,
       v.text, $2
  FROM jsonb_to_recordset($1::jsonb)
       AS v(item_id uuid, number integer, verdict text, reason text, page_id uuid,
            line_key text, text text);

-- name: decide_proposals
-- A proposal's status and verdict from its item's verdicts ($1: a JSON array).
UPDATE memory_proposals p SET status = d.status, verdict = d.verdict, decided_at = $2
  FROM jsonb_to_recordset($1::jsonb) AS d(id uuid, status text, verdict text)
 WHERE p.workspace_id = app_workspace_id() AND p.id = d.id;
