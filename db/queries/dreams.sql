-- name: insert_dream
-- A new dream, pending ($2 its input store, $3 sessions, $4 model, $5 speed, $6 instructions,
-- $7 behavior, $8-$12 the actor's kind, id, name, token and person, $13-$14 its payer, $15 now).
INSERT INTO dreams (workspace_id, id, input_store_id, session_ids, model, speed, instructions,
                    behavior, output_store_id, actor_kind, actor_id, actor_name, token_id,
                    person_id, payer_kind, payer_id, created_at)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6, $7,
        CASE WHEN $7 = 'update_existing' THEN $2::uuid END, $8, $9, $10, $11, $12, $13, $14, $15);

-- name: dream_readable
-- A dream the caller may read ($2 readable objects, $3 person, $4 actor): its author's, or
-- one of a store the caller may read.
SELECT d.* FROM dreams d
 WHERE d.workspace_id = app_workspace_id() AND d.id = $1
   AND (d.actor_id = $4
        OR EXISTS (SELECT 1 FROM records r
                    WHERE r.workspace_id = d.workspace_id AND r.id = d.input_store_id
                      AND record_readable(r, $2, $3)));

-- name: dreams_page
-- Readable dreams newest first before a position ($5 time, $6 id), created after $7 and before
-- $8 when given, of the statuses $9 (NULL: any), archived ones only with $10.
SELECT d.* FROM dreams d
 WHERE d.workspace_id = app_workspace_id()
   AND (d.actor_id = $3
        OR EXISTS (SELECT 1 FROM records r
                    WHERE r.workspace_id = d.workspace_id AND r.id = d.input_store_id
                      AND record_readable(r, $1, $2)))
   AND ($5::timestamptz IS NULL OR (d.created_at, d.id) < ($5, $6))
   AND ($7::timestamptz IS NULL OR d.created_at > $7)
   AND ($8::timestamptz IS NULL OR d.created_at < $8)
   AND ($9::text[] IS NULL OR d.status = ANY ($9))
   AND ($10 OR d.archived_at IS NULL)
 ORDER BY d.created_at DESC, d.id DESC
 LIMIT $4;

-- name: dream_for_update
-- One dream, locked until the transaction ends.
SELECT d.* FROM dreams d
 WHERE d.workspace_id = app_workspace_id() AND d.id = $1
   FOR UPDATE;

-- name: cancel_dream
-- A pending or running dream canceled at $2.
UPDATE dreams SET status = 'canceled', ended_at = $2
 WHERE workspace_id = app_workspace_id() AND id = $1 AND status IN ('pending', 'running');

-- name: archive_dream
-- A terminal dream archived at $2 (once: archiving again changes nothing).
UPDATE dreams SET archived_at = $2
 WHERE workspace_id = app_workspace_id() AND id = $1 AND ended_at IS NOT NULL
   AND archived_at IS NULL;

-- name: start_dream
-- A pending or running dream (whose worker stopped) running since $2, writing $3.
UPDATE dreams SET status = 'running', started_at = COALESCE(started_at, $2),
                  output_store_id = COALESCE(output_store_id, $3)
 WHERE workspace_id = app_workspace_id() AND id = $1 AND status IN ('pending', 'running')
RETURNING *;

-- name: end_dream
-- A pending or running dream ended at $3 with status $2 ($4-$6 its tokens and cost, $7-$8 its
-- error, $9 its note); a dream ended meanwhile (canceled) keeps its status.
UPDATE dreams SET status = $2, ended_at = $3, input_tokens = $4, output_tokens = $5,
                  cost_usd = $6, error_type = $7, error_message = $8, note = $9
 WHERE workspace_id = app_workspace_id() AND id = $1 AND status IN ('pending', 'running')
RETURNING id;

-- name: spend_of_canceled
-- What a canceled dream's reader spent, recorded ($2-$4 its tokens and cost, $5 its note).
UPDATE dreams SET input_tokens = $2, output_tokens = $3, cost_usd = $4, note = $5
 WHERE workspace_id = app_workspace_id() AND id = $1 AND status = 'canceled';

-- name: copy_memories
-- Every memory of store $1 copied into store $2 at $3, each with its `created` version by the
-- actor ($4-$7 kind, id, name, token).
WITH copied AS (
    INSERT INTO store_memories (workspace_id, store_id, id, path, content, content_sha256,
                                version_id, created_at, updated_at)
    SELECT app_workspace_id(), $2, gen_random_uuid(), m.path, m.content, m.content_sha256,
           gen_random_uuid(), $3, $3
      FROM store_memories m
     WHERE m.workspace_id = app_workspace_id() AND m.store_id = $1
    RETURNING id, path, content, content_sha256, version_id
)
INSERT INTO store_memory_versions (workspace_id, store_id, id, memory_id, operation, path,
                                   content, content_sha256, content_size_bytes, actor_kind,
                                   actor_id, actor_name, session_id, created_at)
SELECT app_workspace_id(), $2, c.version_id, c.id, 'created', c.path, c.content,
       c.content_sha256, octet_length(c.content), $4, $5, $6, $7, $3
  FROM copied c;

-- name: store_memories
-- Every memory of a store with its content, in path order (at most $2).
SELECT id, store_id, path, content, content_sha256, octet_length(content) AS content_size_bytes,
       version_id, created_at, updated_at
  FROM store_memories
 WHERE workspace_id = app_workspace_id() AND store_id = $1
 ORDER BY path
 LIMIT $2;

-- name: lock_memories
-- The memories of a store named, locked until the transaction ends, with their version.
SELECT id, version_id FROM store_memories
 WHERE workspace_id = app_workspace_id() AND store_id = $1 AND id = ANY ($2)
 ORDER BY id
   FOR UPDATE;

-- name: conversations_readable
-- Of the conversations named, those the caller may read ($2 person): their own, or the
-- workspace's.
SELECT id FROM conversations
 WHERE workspace_id = app_workspace_id() AND id = ANY ($1)
   AND (scope = 'workspace' OR person_id = $2);

-- name: dreams_due
-- Every dream to run, across workspaces, oldest first.
SELECT workspace_id, dream_id, created_at FROM dreams_due();

-- name: session_messages
-- What the people said in the conversations $1 (a dream's sessions) that the dream's person $2
-- may read (their own, or the workspace's): each person's message (role user), oldest first,
-- at most $3, shaped as the waiting items a Dreamer's pass gathers (dreamer_pass.sql
-- waiting_items); none of a conversation whose agent read another conversation, nor of one
-- whose agent has memory off now (item_memory_on, as a pass); a private conversation's are
-- private to its person, and shared with whoever reads the store the dream writes.
SELECT m.id, 'conversation' AS kind,
       CASE WHEN c.scope = 'private' THEN c.person_id END AS private_to, true AS share_with_team,
       m.said_at, m.text AS message_text, m.speaker_kind AS message_speaker_kind,
       m.speaker_id AS message_speaker_id, m.attached_record_id, c.id AS conversation_id,
       c.person_id AS conversation_person_id, c.agent_id AS conversation_agent_id
  FROM conversation_messages m
  JOIN conversations c ON c.workspace_id = m.workspace_id AND c.id = m.conversation_id
 WHERE m.workspace_id = app_workspace_id() AND c.id = ANY ($1) AND m.role = 'user'
   AND (c.scope = 'workspace' OR c.person_id = $2)
   AND NOT c.agent_read_another AND item_memory_on(m.id, NULL, NULL)
 ORDER BY m.said_at, m.id
 LIMIT $3;
