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

-- name: lock_agent
-- The agent $1, locked until the transaction ends (its attachments are replaced); none when the
-- workspace has no such agent.
SELECT id FROM agents WHERE workspace_id = app_workspace_id() AND id = $1 FOR UPDATE;

-- name: attachable_skills
-- The skills among $1 the caller may read ($2 readable objects, $3 person): id, name and every
-- version number.
SELECT s.id, s.name,
       ARRAY(SELECT v.version FROM skill_versions v
              WHERE v.workspace_id = s.workspace_id AND v.skill_id = s.id
              ORDER BY v.version) AS versions
  FROM skills s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
 WHERE s.workspace_id = app_workspace_id() AND s.id = ANY ($1::uuid[])
   AND record_readable(r, $2, $3);

-- name: clear_agent_skills
-- Remove every skill attached to the agent $1.
DELETE FROM agent_skills WHERE workspace_id = app_workspace_id() AND agent_id = $1;

-- name: insert_agent_skills
-- Attach skills to the agent $1 in order (positions from 1): kinds $2, skill ids $3, versions
-- $4 (NULL: latest) and prebuilt names $5, at $6.
INSERT INTO agent_skills (workspace_id, agent_id, position, kind, skill_id, version,
                          anthropic_name, created_at)
SELECT app_workspace_id(), $1, a.position, a.kind, a.skill_id, a.version, a.name, $6
  FROM unnest($2::text[], $3::uuid[], $4::integer[], $5::text[])
       WITH ORDINALITY AS a (kind, skill_id, version, name, position);

-- name: agent_skills
-- The skills attached to the agents $1, in their order, with a custom skill's name.
SELECT a.agent_id, a.position, a.kind, a.skill_id, a.version, a.anthropic_name,
       s.name AS skill_name
  FROM agent_skills a
  LEFT JOIN skills s ON s.workspace_id = a.workspace_id AND s.id = a.skill_id
 WHERE a.workspace_id = app_workspace_id() AND a.agent_id = ANY ($1::uuid[])
 ORDER BY a.agent_id, a.position;
