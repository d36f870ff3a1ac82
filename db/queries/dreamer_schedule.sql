-- name: due_owners
-- Each page owner with items waiting, across workspaces, and when its pass is due.
SELECT workspace_id, owner_kind, owner_id, due_at, waiting
  FROM dreamer_due($1, $2, $3, $4)
 ORDER BY due_at, workspace_id, owner_kind, owner_id;
