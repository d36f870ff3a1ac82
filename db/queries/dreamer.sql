-- The Dreamer's intake (issue 10, items 1-3): conversations and their messages, meetings, runs,
-- and the items they become for a pass.

-- name: lock_source
-- Serialises the intake of one source by its external id (a meeting, a run), so that a
-- re-sent one is found rather than stored twice.
SELECT pg_advisory_xact_lock(hashtextextended($1, 0));

-- name: runner_owner
-- The member who owns an agent ($1 'agent') or a routine ($1 'routine'); no row: none such.
SELECT owner_member_id FROM agents
 WHERE $1 = 'agent' AND workspace_id = app_workspace_id() AND id = $2
UNION ALL
SELECT owner_member_id FROM routines
 WHERE $1 = 'routine' AND workspace_id = app_workspace_id() AND id = $2;

-- name: known_actors
-- Which of the members $1 and the agents $2 exist.
SELECT 'member' AS kind, id FROM members WHERE workspace_id = app_workspace_id() AND id = ANY ($1)
UNION ALL
SELECT 'agent', id FROM agents WHERE workspace_id = app_workspace_id() AND id = ANY ($2);

-- name: open_conversation
-- A person's conversation by its external id, created on its first message (with the agent
-- and scope given) and locked until the transaction ends; an agent-less one takes the agent.
INSERT INTO conversations AS c (workspace_id, id, external_id, person_id, agent_id, scope,
                                created_at, updated_at)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6, $6)
ON CONFLICT (workspace_id, person_id, external_id) DO UPDATE
   SET agent_id = COALESCE(c.agent_id, EXCLUDED.agent_id),
       updated_at = greatest(c.updated_at, EXCLUDED.updated_at)
RETURNING id, external_id, person_id, agent_id, scope, agent_read_another;

-- name: conversation_of
-- A person's conversation by its external id, share-locked (its flag holds until commit).
SELECT id, external_id, person_id, agent_id, scope, agent_read_another
  FROM conversations
 WHERE workspace_id = app_workspace_id() AND person_id = $1 AND external_id = $2
   FOR SHARE;

-- name: conversation_by_id
-- A conversation by its id.
SELECT id, external_id, person_id, agent_id, scope, agent_read_another
  FROM conversations
 WHERE workspace_id = app_workspace_id() AND id = $1;

-- name: insert_message
-- Stores a message unless its conversation holds one with this external id (then no row).
INSERT INTO conversation_messages (workspace_id, id, conversation_id, external_id, speaker_kind,
                                   speaker_id, role, text, attached_record_id,
                                   read_another_conversation, said_at, created_at)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
ON CONFLICT (workspace_id, conversation_id, external_id) DO NOTHING
RETURNING id, conversation_id, external_id, speaker_kind, speaker_id, role, text,
          attached_record_id, read_another_conversation, said_at, created_at;

-- name: message_of
-- A conversation's message by its external id.
SELECT id, conversation_id, external_id, speaker_kind, speaker_id, role, text, attached_record_id,
       read_another_conversation, said_at, created_at
  FROM conversation_messages
 WHERE workspace_id = app_workspace_id() AND conversation_id = $1 AND external_id = $2;

-- name: person_texts
-- The texts of a conversation's person's messages (role user), in the order they were said.
SELECT text FROM conversation_messages
 WHERE workspace_id = app_workspace_id() AND conversation_id = $1 AND role = 'user'
 ORDER BY said_at, created_at, id;

-- name: mark_read_another
-- Its agent read another conversation: the flag set, and every item not read yet of the
-- conversation, of its runs and of the proposals made from it becomes not read; so do the
-- proposals still waiting. Counts the items changed.
WITH flagged AS (
    UPDATE conversations SET agent_read_another = true
     WHERE workspace_id = app_workspace_id() AND id = $1
),
items AS (
    UPDATE memory_items i SET status = 'not_read', reason = 'agent_read_another_conversation'
     WHERE i.workspace_id = app_workspace_id() AND i.status <> 'read'
       AND (i.message_id IN (SELECT m.id FROM conversation_messages m
                              WHERE m.workspace_id = app_workspace_id()
                                AND m.conversation_id = $1)
            OR i.run_id IN (SELECT r.id FROM runs r
                             WHERE r.workspace_id = app_workspace_id() AND r.conversation_id = $1)
            OR i.proposal_id IN (SELECT p.id FROM memory_proposals p
                                  WHERE p.workspace_id = app_workspace_id()
                                    AND p.conversation_id = $1))
    RETURNING i.id
),
proposals AS (
    UPDATE memory_proposals
       SET status = 'not_read', verdict = 'agent_read_another_conversation', decided_at = $2
     WHERE workspace_id = app_workspace_id() AND conversation_id = $1 AND status = 'waiting'
)
SELECT count(*) FROM items;

-- name: wake_conversation_items
-- The conversation is read now: its items not read for too few messages wait. Counts them.
WITH woken AS (
    UPDATE memory_items i SET status = 'waiting', reason = NULL
     WHERE i.workspace_id = app_workspace_id() AND i.status = 'not_read'
       AND i.reason = 'too_few_messages'
       AND i.message_id IN (SELECT m.id FROM conversation_messages m
                             WHERE m.workspace_id = app_workspace_id()
                               AND m.conversation_id = $1)
    RETURNING i.id
)
SELECT count(*) FROM woken;

-- name: insert_item
-- Stores a source's item with the shareWithTeam preference of the person $15 at its arrival
-- (no row set: on; no such person or none named: off); one that came through an agent with
-- memory off (item_memory_on) is not read, whatever its status would be.
INSERT INTO memory_items (workspace_id, id, kind, message_id, meeting_id, run_id, proposal_id,
                          owner_kind, owner_id, private_to, payer_kind, payer_id, urgent,
                          said_at, arrived_at, status, reason, share_with_team)
SELECT app_workspace_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
       CASE WHEN g.memory_on THEN $16 ELSE 'not_read' END,
       CASE WHEN g.memory_on THEN $17 ELSE 'agent_memory_off' END,
       COALESCE((SELECT COALESCE(p.value, true)
                   FROM members m
                   LEFT JOIN member_preferences p
                          ON p.workspace_id = m.workspace_id AND p.member_id = m.id
                         AND p.key = 'memory.shareWithTeam'
                  WHERE m.workspace_id = app_workspace_id() AND m.id = $15), false)
  FROM (SELECT item_memory_on($3::uuid, $5::uuid, $6::uuid) AS memory_on) g
RETURNING id, kind, owner_kind, owner_id, private_to, payer_kind, payer_id, share_with_team,
          urgent, said_at, arrived_at, status, reason;

-- name: item_of
-- The item of a source ($1 its kind, $2 the message, meeting, run or proposal).
SELECT id, kind, owner_kind, owner_id, private_to, payer_kind, payer_id, share_with_team, urgent,
       said_at, arrived_at, status, reason
  FROM memory_items
 WHERE workspace_id = app_workspace_id() AND kind = $1
   AND COALESCE(message_id, meeting_id, run_id, proposal_id) = $2;

-- name: notify_dreamer
-- Wakes the Dreamer's scheduler (at commit; nobody listening is fine).
SELECT pg_notify('skillmem_dreamer', '');

-- name: meeting_of
-- A meeting by its owner ($1, NULL: the workspace's) and external id, with its record's title
-- and visibility and its linked records in order.
SELECT t.meeting_id, t.external_id, t.owner_id, r.label AS title, r.visibility, t.transcript,
       t.held_at, t.created_at,
       COALESCE((SELECT array_agg(l.record_id ORDER BY l.position) FROM meeting_links l
                  WHERE l.workspace_id = t.workspace_id AND l.meeting_id = t.meeting_id),
                '{}') AS record_ids
  FROM meeting_transcripts t
  JOIN records r ON r.workspace_id = t.workspace_id AND r.id = t.meeting_id
 WHERE t.workspace_id = app_workspace_id() AND t.owner_id IS NOT DISTINCT FROM $1
   AND t.external_id = $2;

-- name: insert_meeting
-- Stores a meeting's transcript (its record exists) and the records it is linked to, in order.
WITH t AS (
    INSERT INTO meeting_transcripts (workspace_id, meeting_id, external_id, owner_id, transcript,
                                     held_at, created_at)
    VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6)
    RETURNING meeting_id
)
INSERT INTO meeting_links (workspace_id, meeting_id, record_id, position)
SELECT app_workspace_id(), t.meeting_id, l.record_id, l.n - 1
  FROM t, unnest($7::uuid[]) WITH ORDINALITY AS l (record_id, n);

-- name: run_of
-- A run by its owner and external id.
SELECT id, external_id, runner_kind, agent_id, routine_id, owner_id, scope, conversation_id,
       parent_run_id, mission, messages, retried, failed_before, answered_after_mission,
       started_at, created_at
  FROM runs
 WHERE workspace_id = app_workspace_id() AND owner_id = $1 AND external_id = $2;

-- name: insert_run
-- Stores a run.
INSERT INTO runs (workspace_id, id, external_id, runner_kind, agent_id, routine_id, owner_id,
                  scope, conversation_id, parent_run_id, mission, messages, retried,
                  failed_before, answered_after_mission, started_at, created_at)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
        $16)
RETURNING id, external_id, runner_kind, agent_id, routine_id, owner_id, scope, conversation_id,
          parent_run_id, mission, messages, retried, failed_before, answered_after_mission,
          started_at, created_at;

-- name: delete_meeting
-- Deletes a meeting's record ($2: the meeting object), with its transcript, links and item.
DELETE FROM records
 WHERE workspace_id = app_workspace_id() AND id = $1 AND object_id = $2
RETURNING id;
