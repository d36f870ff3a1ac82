-- name: turn_stored
-- What person $3 stored for message $1 and conversation $2 (the ids are each person's own):
-- the message's cards with the profiles its turn read (a turn of a conversation); the
-- conversation's generation (its compactions so far), whether it ended, the agent it began
-- with (its creation's, migration 0029, or its first snapshot's; null: it has not begun), and
-- the profiles snapshot of its generation, if read yet.
WITH events AS (
    SELECT count(*) FILTER (WHERE e.kind = 'compacted')::integer AS generation,
           COALESCE(bool_or(e.kind = 'ended'), false) AS ended
      FROM conversation_events e
     WHERE e.workspace_id = app_workspace_id() AND e.person_id = $3
       AND e.conversation_id = $2
)
SELECT (SELECT jsonb_build_object('cards', c.cards, 'budget', c.budget, 'profiles', s.profiles)
          FROM turn_cards c
          LEFT JOIN turn_snapshots s
            ON s.workspace_id = c.workspace_id AND s.person_id = c.person_id
           AND s.conversation_id = c.conversation_id AND s.generation = c.generation
         WHERE c.workspace_id = app_workspace_id() AND c.person_id = $3
           AND c.message_id = $1) AS turn,
       (SELECT jsonb_build_object('agent_id', s.agent_id, 'profiles', s.profiles)
          FROM turn_snapshots s
         WHERE s.workspace_id = app_workspace_id() AND s.person_id = $3
           AND s.conversation_id = $2 AND s.generation = events.generation) AS snapshot,
       COALESCE((SELECT jsonb_build_object('agent_id', t.agent_id)
                   FROM conversation_starts t
                  WHERE t.workspace_id = app_workspace_id() AND t.person_id = $3
                    AND t.conversation_id = $2),
                (SELECT jsonb_build_object('agent_id', s.agent_id)
                   FROM turn_snapshots s
                  WHERE s.workspace_id = app_workspace_id() AND s.person_id = $3
                    AND s.conversation_id = $2
                  ORDER BY s.generation
                  LIMIT 1)) AS began,
       events.generation, events.ended
  FROM events;

-- name: turn_read
-- What a turn reads (turn_read, migration 0035): when $8, the cards' data, in signal order: the
-- records $1 (mentioned, then attached), then up to $4 records the person's profile holds
-- souvenirs about (newest first), each only if the person ($3, whose role reads $2) may read
-- it; per record the attributes of its first $5 principal values that hold something, up to
-- $6 readable related records (what it points to, then what points to it, newest first), its
-- last change, and, when the role reads memory and the turn's agent $7 has memory on
-- (agent_memory_on), its page's souvenirs and the person's own souvenirs about it. When $9,
-- the profiles an agent reads at the start of a conversation: the workspace's, the person's
-- (without its souvenirs about records) and the agent's, when the role reads memory and the
-- agent has memory on. Every souvenir of both as the person sees it, in one list.
SELECT cards, profiles, shown FROM turn_read($1, $2, $3, $4, $5, $6, $7, $8, $9);

-- name: store_turn
-- Keeps a turn's cards with its message ($1, unless NULL; with the generation $10 whose
-- profiles it read, when it is of a conversation) and, the first time in that generation, the
-- conversation's profiles ($2, when $7); a message or a generation stored already (by a
-- concurrent first read) keeps its, and the answer says which were stored.
WITH turn AS (
    INSERT INTO turn_cards (workspace_id, message_id, conversation_id, person_id, cards, budget,
                            created_at, generation)
    SELECT app_workspace_id(), $1, $2, $3, $4, $5, $6,
           CASE WHEN $2::text IS NOT NULL THEN $10::integer END
     WHERE $1::text IS NOT NULL
    ON CONFLICT DO NOTHING
    RETURNING 1
),
snapshot AS (
    INSERT INTO turn_snapshots (workspace_id, conversation_id, person_id, agent_id, profiles,
                                created_at, generation)
    SELECT app_workspace_id(), $2, $3, $8, $9, $6, $10 WHERE $2::text IS NOT NULL AND $7
    ON CONFLICT DO NOTHING
    RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM turn) AS turn_stored,
       EXISTS (SELECT 1 FROM snapshot) AS snapshot_stored;

-- name: conversation_state
-- Person $1's conversation $2 as its caller sees it: no row unless it began (it was created, a
-- turn read its profiles, or one of its messages was recorded) and, for an agent's token ($3),
-- it is that agent's. Its compactions so far, the last one's time, and when it ended.
SELECT v.compactions, v.compacted_at, v.ended_at
  FROM (SELECT count(*) FILTER (WHERE e.kind = 'compacted')::integer AS compactions,
               max(e.at) FILTER (WHERE e.kind = 'compacted') AS compacted_at,
               max(e.at) FILTER (WHERE e.kind = 'ended') AS ended_at
          FROM conversation_events e
         WHERE e.workspace_id = app_workspace_id() AND e.person_id = $1
           AND e.conversation_id = $2) v
 WHERE EXISTS (SELECT 1 FROM turn_snapshots s
                WHERE s.workspace_id = app_workspace_id() AND s.person_id = $1
                  AND s.conversation_id = $2
                  AND ($3::uuid IS NULL OR s.agent_id = $3))
    OR EXISTS (SELECT 1 FROM conversations c
                WHERE c.workspace_id = app_workspace_id() AND c.person_id = $1
                  AND c.external_id = $2
                  AND ($3::uuid IS NULL OR c.agent_id = $3))
    OR EXISTS (SELECT 1 FROM conversation_starts t
                WHERE t.workspace_id = app_workspace_id() AND t.person_id = $1
                  AND t.conversation_id = $2
                  AND ($3::uuid IS NULL OR t.agent_id = $3));

-- name: record_conversation_event
-- Appends a compaction or the end ($4) of person $2's conversation $3, by $5 $6 at $7, unless
-- the conversation has ended; the time recorded, or no row.
INSERT INTO conversation_events (workspace_id, id, person_id, conversation_id, kind, actor_kind,
                                 actor_id, at)
SELECT app_workspace_id(), $1, $2, $3, $4, $5, $6, $7
 WHERE NOT EXISTS (SELECT 1 FROM conversation_events e
                    WHERE e.workspace_id = app_workspace_id() AND e.person_id = $2
                      AND e.conversation_id = $3 AND e.kind = 'ended')
ON CONFLICT DO NOTHING
RETURNING at;
