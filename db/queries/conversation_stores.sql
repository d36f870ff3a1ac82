-- name: conversation_begun
-- Whether person $1's conversation $2 has begun: created, a turn read its profiles, one of its
-- messages was recorded, or it was compacted or ended.
SELECT EXISTS (SELECT 1 FROM conversation_starts t
                WHERE t.workspace_id = app_workspace_id() AND t.person_id = $1
                  AND t.conversation_id = $2)
    OR EXISTS (SELECT 1 FROM turn_snapshots s
                WHERE s.workspace_id = app_workspace_id() AND s.person_id = $1
                  AND s.conversation_id = $2)
    OR EXISTS (SELECT 1 FROM conversations c
                WHERE c.workspace_id = app_workspace_id() AND c.person_id = $1
                  AND c.external_id = $2)
    OR EXISTS (SELECT 1 FROM conversation_events e
                WHERE e.workspace_id = app_workspace_id() AND e.person_id = $1
                  AND e.conversation_id = $2);

-- name: insert_start
-- Create person $1's conversation $2 with the agent $3 at $4; no row when it was created
-- already (by a concurrent request).
INSERT INTO conversation_starts (workspace_id, person_id, conversation_id, agent_id, created_at)
VALUES (app_workspace_id(), $1, $2, $3, $4)
ON CONFLICT DO NOTHING
RETURNING created_at;

-- name: attachable_stores
-- The stores among $1 the caller may read ($2 readable objects, $3 person): id, name and
-- description, whether archived.
SELECT s.id, s.name, s.description, s.archived_at IS NOT NULL AS archived
  FROM memory_stores s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
 WHERE s.workspace_id = app_workspace_id() AND s.id = ANY ($1::uuid[])
   AND record_readable(r, $2, $3);

-- name: insert_store_attachments
-- Attach stores to person $1's conversation $2 in order (positions from 1): stores $3 (NULL:
-- the workspace's memory store), accesses $4, instructions $5, at $6.
INSERT INTO conversation_memory_stores (workspace_id, person_id, conversation_id, position,
                                        store_id, access, instructions, created_at)
SELECT app_workspace_id(), $1, $2, a.position, a.store_id, a.access, a.instructions, $6
  FROM unnest($3::uuid[], $4::text[], $5::text[])
       WITH ORDINALITY AS a (store_id, access, instructions, position);

-- name: conversation_stores
-- Person $1's conversation $2 as created (no row unless created by startConversation, and for
-- an agent's token $3 only when it is that agent's): its agent, its creation, and its attached
-- stores in order with their names and descriptions (the workspace's memory store: NULL ones).
SELECT t.agent_id, t.created_at,
       COALESCE(jsonb_agg(jsonb_build_object(
                    'store_id', m.store_id, 'access', m.access,
                    'instructions', m.instructions, 'name', s.name,
                    'description', s.description) ORDER BY m.position)
                FILTER (WHERE m.position IS NOT NULL), '[]') AS stores
  FROM conversation_starts t
  LEFT JOIN conversation_memory_stores m
         ON m.workspace_id = t.workspace_id AND m.person_id = t.person_id
        AND m.conversation_id = t.conversation_id
  LEFT JOIN memory_stores s ON s.workspace_id = m.workspace_id AND s.id = m.store_id
 WHERE t.workspace_id = app_workspace_id() AND t.person_id = $1 AND t.conversation_id = $2
   AND ($3::uuid IS NULL OR t.agent_id = $3)
 GROUP BY t.agent_id, t.created_at;

-- name: store_write_refused
-- Whether the agent $3 acting for $2 may not write the store $1 (store_write_refused,
-- migration 0029: a conversation of its still open attaches it read-only only).
SELECT store_write_refused($1, $2, $3);
