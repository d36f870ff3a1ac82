-- Attachments (issue 14, item 6; seed 001 "Skills and memory in Managed Agents").
--
-- * agent_skills: the skills an admin attaches to an agent, at most 20 (a position 1 to 20):
--   `custom` ones name a skill of the workspace at a pinned version or at its latest (version
--   NULL); `anthropic` ones are prebuilt names kept as references the agent's runtime resolves.
--   An agent with attachments is offered only its attached custom skills, at their versions, in
--   its catalog and recall (agent_skill_offered below: the one rule those queries apply); an
--   agent with none is offered every skill it may read, as before.
-- * conversation_starts: a conversation created before its first turn or message
--   (startConversation), with its agent; a conversation's id is its person's own, as
--   turnContext's. Its memory stores attach then, and only then.
-- * conversation_memory_stores: the memory stores a conversation attaches at its creation, at
--   most 8, each `read_only` or `read_write` with instructions; a store NULL is the
--   workspace's memory store (read-only, not a row of memory_stores). The conversation's agent
--   writes none of its read-only stores (store_write_refused below: the one rule every
--   surface's write of a store applies).

CREATE TABLE agent_skills (
    workspace_id uuid NOT NULL,
    agent_id uuid NOT NULL,
    position smallint NOT NULL CHECK (position BETWEEN 1 AND 20),
    kind text NOT NULL CHECK (kind IN ('custom', 'anthropic')),
    skill_id uuid,
    -- NULL: the skill's latest version, whichever it is when the agent reads it.
    version integer CHECK (version >= 1),
    anthropic_name text CHECK (anthropic_name IN ('xlsx', 'docx', 'pptx', 'pdf')),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, agent_id, position),
    FOREIGN KEY (workspace_id, agent_id) REFERENCES agents (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, skill_id) REFERENCES skills (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, skill_id, version)
        REFERENCES skill_versions (workspace_id, skill_id, version) ON DELETE CASCADE,
    CHECK ((kind = 'custom') = (skill_id IS NOT NULL)),
    CHECK ((kind = 'anthropic') = (anthropic_name IS NOT NULL)),
    CHECK (kind = 'custom' OR version IS NULL)
);
CREATE UNIQUE INDEX agent_skills_one_custom
    ON agent_skills (workspace_id, agent_id, skill_id) WHERE skill_id IS NOT NULL;
CREATE UNIQUE INDEX agent_skills_one_anthropic
    ON agent_skills (workspace_id, agent_id, anthropic_name) WHERE anthropic_name IS NOT NULL;
CREATE INDEX agent_skills_of_skill ON agent_skills (workspace_id, skill_id);

ALTER TABLE agent_skills ENABLE ROW LEVEL SECURITY;
ALTER TABLE agent_skills FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_isolation ON agent_skills
    USING (workspace_id = app_workspace_id()) WITH CHECK (workspace_id = app_workspace_id());
-- An admin replaces an agent's attachments as a whole: delete then insert.
GRANT SELECT, INSERT, DELETE ON agent_skills TO skillmem_app;

-- The version of skill p_skill (latest p_latest) offered to the agent p_agent: the version it
-- attached (its latest for `latest`); the latest for no agent or an agent with no attachment;
-- NULL when the agent has attachments and not this skill (it is not offered).
CREATE FUNCTION agent_skill_offered(p_agent uuid, p_skill uuid, p_latest integer)
RETURNS integer
LANGUAGE sql STABLE
AS $$
    SELECT CASE
        WHEN p_agent IS NULL THEN p_latest
        WHEN NOT EXISTS (SELECT 1 FROM agent_skills a
                          WHERE a.workspace_id = app_workspace_id() AND a.agent_id = p_agent)
            THEN p_latest
        ELSE (SELECT COALESCE(a.version, p_latest) FROM agent_skills a
               WHERE a.workspace_id = app_workspace_id() AND a.agent_id = p_agent
                 AND a.skill_id = p_skill)
    END
$$;

CREATE TABLE conversation_starts (
    workspace_id uuid NOT NULL,
    person_id uuid NOT NULL,
    conversation_id text NOT NULL CHECK (length(conversation_id) BETWEEN 1 AND 200),
    agent_id uuid,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, person_id, conversation_id),
    FOREIGN KEY (workspace_id, person_id) REFERENCES members (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, agent_id) REFERENCES agents (workspace_id, id) ON DELETE CASCADE
);

ALTER TABLE conversation_starts ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_starts FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_isolation ON conversation_starts
    USING (workspace_id = app_workspace_id()) WITH CHECK (workspace_id = app_workspace_id());
-- A conversation is created once and never changed.
GRANT SELECT, INSERT ON conversation_starts TO skillmem_app;

CREATE TABLE conversation_memory_stores (
    workspace_id uuid NOT NULL,
    person_id uuid NOT NULL,
    conversation_id text NOT NULL,
    position smallint NOT NULL CHECK (position BETWEEN 1 AND 8),
    -- NULL: the workspace's memory store.
    store_id uuid,
    access text NOT NULL CHECK (access IN ('read_only', 'read_write')),
    instructions text NOT NULL DEFAULT '' CHECK (length(instructions) <= 4096),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, person_id, conversation_id, position),
    FOREIGN KEY (workspace_id, person_id, conversation_id)
        REFERENCES conversation_starts (workspace_id, person_id, conversation_id)
        ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, store_id) REFERENCES memory_stores (workspace_id, id)
        ON DELETE CASCADE,
    CHECK (store_id IS NOT NULL OR access = 'read_only')
);
CREATE UNIQUE INDEX conversation_memory_stores_once
    ON conversation_memory_stores (workspace_id, person_id, conversation_id,
                                   COALESCE(store_id, '00000000-0000-0000-0000-000000000000'));
CREATE INDEX conversation_memory_stores_of_store
    ON conversation_memory_stores (workspace_id, store_id);

ALTER TABLE conversation_memory_stores ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_memory_stores FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_isolation ON conversation_memory_stores
    USING (workspace_id = app_workspace_id()) WITH CHECK (workspace_id = app_workspace_id());
-- Attached at the conversation's creation only, never changed (a store's delete takes its
-- attachments with it).
GRANT SELECT, INSERT ON conversation_memory_stores TO skillmem_app;

-- Whether the agent p_agent, acting for p_person, may not write the store p_store: one of its
-- conversations that has not ended attaches the store read-only and none attaches it
-- read-write. A person's own token (no agent) is not narrowed.
CREATE FUNCTION store_write_refused(p_store uuid, p_person uuid, p_agent uuid)
RETURNS boolean
LANGUAGE sql STABLE
AS $$
    WITH attached AS (
        SELECT m.access
          FROM conversation_memory_stores m
          JOIN conversation_starts c
            ON c.workspace_id = m.workspace_id AND c.person_id = m.person_id
           AND c.conversation_id = m.conversation_id
         WHERE m.workspace_id = app_workspace_id() AND m.store_id = p_store
           AND c.person_id = p_person AND c.agent_id = p_agent
           AND NOT EXISTS (SELECT 1 FROM conversation_events e
                            WHERE e.workspace_id = c.workspace_id AND e.person_id = c.person_id
                              AND e.conversation_id = c.conversation_id AND e.kind = 'ended')
    )
    SELECT p_agent IS NOT NULL
       AND EXISTS (SELECT 1 FROM attached WHERE access = 'read_only')
       AND NOT EXISTS (SELECT 1 FROM attached WHERE access = 'read_write')
$$;
