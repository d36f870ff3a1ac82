-- name: insert_agent
-- Add an agent owned by a member with its tool groups; none when the name is taken.
INSERT INTO agents (workspace_id, id, name, owner_member_id, tool_groups)
VALUES (app_workspace_id(), $1, $2, $3, $4)
ON CONFLICT (workspace_id, name) DO NOTHING
RETURNING id, name, owner_member_id, tool_groups, created_at;

-- name: agents
-- The workspace's agents, in name order.
SELECT id, name, owner_member_id, tool_groups, created_at FROM agents
 WHERE workspace_id = app_workspace_id()
 ORDER BY name, id;

-- name: set_tool_groups
-- Replace an agent's tool groups; none when the workspace has no such agent.
UPDATE agents SET tool_groups = $2
 WHERE workspace_id = app_workspace_id() AND id = $1
RETURNING id, name, owner_member_id, tool_groups, created_at;

-- name: memory_on
-- Whether the agent $1 reads and saves memories (agent_memory_on, migration 0019).
SELECT agent_memory_on($1);
