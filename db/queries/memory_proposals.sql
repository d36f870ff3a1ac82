-- name: lock_proposer
-- Serialises the proposals of one proposer, so the hourly count holds across replicas.
SELECT pg_advisory_xact_lock(hashtextextended($1, 0));

-- name: insert_proposal_within_limit
-- Stores a proposal, made from the conversation $11 (or none), unless its proposer made $10 or
-- more in the hour before $9 (or since: a replica whose clock is behind still counts what
-- others stored). With a reason $12 it is never read: not_read from the start, the reason its
-- verdict.
WITH recent AS (
    SELECT count(*) AS n FROM memory_proposals
     WHERE workspace_id = app_workspace_id() AND proposer_kind = $2 AND proposer_id = $3
       AND created_at > $9::timestamptz - interval '1 hour'
)
INSERT INTO memory_proposals (workspace_id, id, proposer_kind, proposer_id, proposer_name,
                              session_id, on_behalf_of, record_id, text, created_at,
                              conversation_id, status, verdict, decided_at)
SELECT app_workspace_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $11,
       CASE WHEN $12::text IS NULL THEN 'waiting' ELSE 'not_read' END, $12::text,
       CASE WHEN $12::text IS NULL THEN NULL ELSE $9::timestamptz END
  FROM recent
 WHERE recent.n < $10
RETURNING id, proposer_kind, proposer_name, on_behalf_of, record_id, text, status, verdict,
          created_at, decided_at;

-- name: oldest_recent_proposal
-- When the oldest proposal of the proposer's last hour was made (for Retry-After).
SELECT min(created_at) FROM memory_proposals
 WHERE workspace_id = app_workspace_id() AND proposer_kind = $1 AND proposer_id = $2
   AND created_at > $3::timestamptz - interval '1 hour';

-- name: proposals_by_proposer
-- A proposer's proposals made for the person $3 (an agent's for one person are private to
-- them), newest first, $4 at most.
SELECT id, proposer_kind, proposer_name, on_behalf_of, record_id, text, status, verdict,
       created_at, decided_at
  FROM memory_proposals
 WHERE workspace_id = app_workspace_id() AND proposer_kind = $1 AND proposer_id = $2
   AND on_behalf_of IS NOT DISTINCT FROM $3
 ORDER BY created_at DESC, id
 LIMIT $4;
