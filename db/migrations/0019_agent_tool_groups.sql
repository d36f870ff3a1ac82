-- Agent tool groups (issue 12, item 1; seed 000 "Skills and memories"): an agent's tool
-- groups. `core` (reading skills, records, search) is always there; `memory` is on by default
-- for a new agent (and for every agent made before this migration, which all read memory). An
-- agent whose groups omit `memory` neither reads nor saves memories: the functions below are
-- the one rule every query that reads memory for an agent, or records and gathers what the
-- Dreamer reads, applies. The groups accepted are resolvers/agents/groups.py's TOOL_GROUPS;
-- the check keeps the table to them.

ALTER TABLE agents ADD COLUMN tool_groups text[] NOT NULL DEFAULT ARRAY['core', 'memory']
    CHECK ('core' = ANY (tool_groups) AND tool_groups <@ ARRAY['core', 'memory']);

-- Whether the agent p_agent reads and saves memories (no agent: nothing to narrow, true). An
-- agent of another workspace is none of this one's: false.
CREATE FUNCTION agent_memory_on(p_agent uuid) RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT p_agent IS NULL
        OR COALESCE((SELECT 'memory' = ANY (a.tool_groups) FROM agents a
                      WHERE a.workspace_id = app_workspace_id() AND a.id = p_agent), false)
$$;

-- Whether a Dreamer source may feed a pass: no agent it came through has memory off. The
-- agents: a message's conversation's; a run's own and its conversation's; a proposal's
-- proposer when an agent (which may not propose with memory off; this closes one that waits
-- when the group goes off). A person's own proposal is theirs, from whatever conversation.
CREATE FUNCTION item_memory_on(p_message uuid, p_run uuid, p_proposal uuid) RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT NOT EXISTS (
        SELECT 1 FROM (
            SELECT c.agent_id
              FROM conversation_messages m
              JOIN conversations c ON c.workspace_id = m.workspace_id AND c.id = m.conversation_id
             WHERE m.workspace_id = app_workspace_id() AND m.id = p_message
            UNION ALL
            SELECT unnest(ARRAY[u.agent_id, c.agent_id])
              FROM runs u
              LEFT JOIN conversations c
                     ON c.workspace_id = u.workspace_id AND c.id = u.conversation_id
             WHERE u.workspace_id = app_workspace_id() AND u.id = p_run
            UNION ALL
            SELECT p.proposer_id
              FROM memory_proposals p
             WHERE p.workspace_id = app_workspace_id() AND p.id = p_proposal
               AND p.proposer_kind = 'agent'
        ) s(agent_id)
         WHERE s.agent_id IS NOT NULL AND NOT agent_memory_on(s.agent_id))
$$;

GRANT EXECUTE ON FUNCTION agent_memory_on(uuid) TO skillmem_app;
GRANT EXECUTE ON FUNCTION item_memory_on(uuid, uuid, uuid) TO skillmem_app;
