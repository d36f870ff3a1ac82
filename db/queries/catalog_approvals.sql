-- name: insert_approval
-- A pending approval ($2 kind, $3 agent, $4 person, $5 card, $6 now, $7 when it expires).
INSERT INTO catalog_approvals (workspace_id, id, kind, agent_id, person_id, card, created_at,
                               expires_at)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6, $7)
RETURNING id, kind, agent_id, (SELECT name FROM agents a
                                WHERE a.workspace_id = app_workspace_id() AND a.id = $3)
                               AS agent_name,
          person_id, card, status, outcome, created_at, expires_at, decided_at;

-- name: approvals
-- The approvals for a person ($1) or asked by an agent ($2), newest first, of the statuses $3
-- (NULL: any), only $6 when given; a pending one past its time ($4 now) reads as expired.
SELECT c.id, c.kind, c.agent_id, a.name AS agent_name, c.person_id, c.card,
       catalog_approval_status(c.status, c.expires_at, $4) AS status,
       c.outcome, c.created_at, c.expires_at, c.decided_at
  FROM catalog_approvals c
  JOIN agents a ON a.workspace_id = c.workspace_id AND a.id = c.agent_id
 WHERE c.workspace_id = app_workspace_id()
   AND (c.person_id = $1 OR c.agent_id = $2)
   AND ($6::uuid IS NULL OR c.id = $6)
   AND ($3::text[] IS NULL OR catalog_approval_status(c.status, c.expires_at, $4) = ANY ($3))
 ORDER BY c.created_at DESC, c.id DESC
 LIMIT $5;

-- name: approval_for_update
-- One approval for a person ($2), locked until the transaction ends; read at $3 (expired).
SELECT c.id, c.kind, c.agent_id, a.name AS agent_name, c.person_id, c.card,
       catalog_approval_status(c.status, c.expires_at, $3) AS status,
       c.outcome, c.created_at, c.expires_at, c.decided_at
  FROM catalog_approvals c
  JOIN agents a ON a.workspace_id = c.workspace_id AND a.id = c.agent_id
 WHERE c.workspace_id = app_workspace_id() AND c.id = $1 AND c.person_id = $2
   FOR UPDATE OF c;

-- name: decide_approval
-- A pending approval decided ($2 approved or declined) at $3, with what it did ($4).
UPDATE catalog_approvals SET status = $2, decided_at = $3, outcome = $4
 WHERE workspace_id = app_workspace_id() AND id = $1 AND status = 'pending'
RETURNING id;
