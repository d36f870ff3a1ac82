-- Attachments (issue 14, item 6; seed 001 "Skills and memory in Managed Agents").
--
-- * agent_skills: the skills an admin attaches to an agent, at most 20 (a position 1 to 20):
--   `custom` ones name a skill of the workspace at a pinned version or at its latest (version
--   NULL); `anthropic` ones are prebuilt names kept as references the agent's runtime resolves.
--   An agent with attachments is offered only its attached custom skills, at their versions, in
--   its catalog and recall (agent_skill_offered below: the one rule those queries apply); an
--   agent with none is offered every skill it may read, as before.

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
