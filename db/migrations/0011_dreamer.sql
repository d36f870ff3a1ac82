-- The Dreamer (DESIGN §6, issue 10): the sources it reads (conversations and their messages,
-- meeting transcripts, routine and agent runs; proposals exist already), the items waiting for
-- a pass with their verdicts, and what each payer spent a month. Record activity is never a
-- source. Every table is the workspace's (row-level security like every other).

-- A conversation between a person and an agent, under the caller's id (the person's own, like
-- turnContext's conversationId). Private to its person unless its scope is the workspace's.
CREATE TABLE conversations (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    external_id text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 200),
    person_id uuid NOT NULL,
    agent_id uuid,
    scope text NOT NULL DEFAULT 'private' CHECK (scope IN ('private', 'workspace')),
    -- Its agent read another conversation: nothing of it is read, nor its runs and proposals.
    agent_read_another boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, person_id, external_id),
    FOREIGN KEY (workspace_id, person_id) REFERENCES members (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, agent_id) REFERENCES agents (workspace_id, id) ON DELETE CASCADE
);

CREATE TABLE conversation_messages (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    conversation_id uuid NOT NULL,
    external_id text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 200),
    speaker_kind text NOT NULL CHECK (speaker_kind IN ('member', 'agent')),
    speaker_id uuid NOT NULL,
    role text NOT NULL CHECK (role IN ('user', 'assistant')),
    -- With mention markup @[Label](record:<id>) kept.
    text text NOT NULL CHECK (length(text) BETWEEN 1 AND 20000),
    attached_record_id uuid,
    read_another_conversation boolean NOT NULL DEFAULT false,
    said_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, conversation_id, external_id),
    FOREIGN KEY (workspace_id, conversation_id) REFERENCES conversations (workspace_id, id)
        ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, attached_record_id) REFERENCES records (workspace_id, id)
        ON DELETE SET NULL (attached_record_id)
);
CREATE INDEX conversation_messages_in_order
    ON conversation_messages (workspace_id, conversation_id, said_at);

-- A meeting is a record of the native `meeting` object (private to its owner, or the
-- workspace's with no owner); its transcript and the records it is linked to are kept here.
-- Its external id is the caller's, one namespace per owner (the workspace's for a workspace
-- meeting): two attendees may each record their own private copy under the provider's id.
CREATE TABLE meeting_transcripts (
    workspace_id uuid NOT NULL,
    meeting_id uuid NOT NULL,
    external_id text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 200),
    owner_id uuid,
    transcript text NOT NULL CHECK (length(transcript) BETWEEN 1 AND 200000),
    held_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, meeting_id),
    UNIQUE NULLS NOT DISTINCT (workspace_id, owner_id, external_id),
    FOREIGN KEY (workspace_id, meeting_id) REFERENCES records (workspace_id, id)
        ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, owner_id) REFERENCES members (workspace_id, id) ON DELETE CASCADE
);

CREATE TABLE meeting_links (
    workspace_id uuid NOT NULL,
    meeting_id uuid NOT NULL,
    record_id uuid NOT NULL,
    position integer NOT NULL CHECK (position >= 0),
    PRIMARY KEY (workspace_id, meeting_id, record_id),
    FOREIGN KEY (workspace_id, meeting_id) REFERENCES meeting_transcripts (workspace_id, meeting_id)
        ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, record_id) REFERENCES records (workspace_id, id) ON DELETE CASCADE
);

-- A routine's or an agent's run: its mission message, its messages, how it went, and where it
-- ran (a parent conversation, a parent run for a subagent).
CREATE TABLE runs (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    external_id text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 200),
    runner_kind text NOT NULL CHECK (runner_kind IN ('agent', 'routine')),
    agent_id uuid,
    routine_id uuid,
    -- The member who owns its runner (agents/routines.owner_member_id): its pass's payer.
    owner_id uuid NOT NULL,
    scope text NOT NULL DEFAULT 'private' CHECK (scope IN ('private', 'workspace')),
    conversation_id uuid,
    parent_run_id uuid,
    mission text NOT NULL CHECK (length(mission) BETWEEN 1 AND 20000),
    -- [{"speakerKind", "speakerId", "role", "at", "text"}, ...] after the mission message.
    messages jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(messages) = 'array'),
    retried boolean NOT NULL DEFAULT false,
    failed_before boolean NOT NULL DEFAULT false,
    answered_after_mission boolean NOT NULL DEFAULT false,
    started_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, owner_id, external_id),
    CHECK ((runner_kind = 'agent') = (agent_id IS NOT NULL)),
    CHECK ((runner_kind = 'routine') = (routine_id IS NOT NULL)),
    FOREIGN KEY (workspace_id, agent_id) REFERENCES agents (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, routine_id) REFERENCES routines (workspace_id, id)
        ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, owner_id) REFERENCES members (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, conversation_id) REFERENCES conversations (workspace_id, id)
        ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, parent_run_id) REFERENCES runs (workspace_id, id)
        ON DELETE CASCADE
);

-- A proposal remembers the conversation it was made from (its agent may have read another).
-- A proposal never read (its conversation's agent read another one) says so: not_read, with
-- the reason as its verdict.
ALTER TABLE memory_proposals DROP CONSTRAINT memory_proposals_status_check;
ALTER TABLE memory_proposals ADD CONSTRAINT memory_proposals_status_check
    CHECK (status IN ('waiting', 'written', 'refreshed', 'refused', 'not_read'));
ALTER TABLE memory_proposals ADD COLUMN conversation_id uuid;
ALTER TABLE memory_proposals ADD FOREIGN KEY (workspace_id, conversation_id)
    REFERENCES conversations (workspace_id, id) ON DELETE SET NULL (conversation_id);

-- One thing for a pass to read, for one page owner (whose pass reads it) and one payer:
-- a person's message of a conversation, a meeting, a run or a proposal. Its status: waiting
-- for a pass, read (its verdicts in memory_verdicts), or not read (with the reason).
CREATE TABLE memory_items (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    kind text NOT NULL CHECK (kind IN ('conversation', 'meeting', 'run', 'proposal', 'mail')),
    message_id uuid,
    meeting_id uuid,
    run_id uuid,
    proposal_id uuid,
    owner_kind text NOT NULL CHECK (owner_kind IN ('member', 'agent', 'routine', 'workspace')),
    owner_id uuid,
    -- The person the source is private to; NULL: the workspace's.
    private_to uuid,
    payer_kind text NOT NULL CHECK (payer_kind IN ('member', 'workspace')),
    payer_id uuid,
    -- The person's memory.shareWithTeam when the item arrived (unreadable: false).
    share_with_team boolean NOT NULL,
    -- A remember-request or a proposal: its pass waits only a few minutes.
    urgent boolean NOT NULL DEFAULT false,
    said_at timestamptz NOT NULL,
    arrived_at timestamptz NOT NULL,
    status text NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'read', 'not_read')),
    reason text,
    -- Over its payer's allowance: kept, read from this time (or once the allowance is raised).
    deferred_until timestamptz,
    attempts integer NOT NULL DEFAULT 0,
    read_at timestamptz,
    pass_id uuid,
    PRIMARY KEY (workspace_id, id),
    CHECK (num_nonnulls(message_id, meeting_id, run_id, proposal_id)
           = CASE WHEN kind = 'mail' THEN 0 ELSE 1 END),
    CHECK ((owner_kind = 'workspace') = (owner_id IS NULL)),
    CHECK ((payer_kind = 'workspace') = (payer_id IS NULL)),
    CHECK ((status = 'not_read') = (reason IS NOT NULL)),
    FOREIGN KEY (workspace_id, message_id) REFERENCES conversation_messages (workspace_id, id)
        ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, meeting_id) REFERENCES meeting_transcripts (workspace_id, meeting_id)
        ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, run_id) REFERENCES runs (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, proposal_id) REFERENCES memory_proposals (workspace_id, id)
        ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, private_to) REFERENCES members (workspace_id, id) ON DELETE CASCADE
);
-- One item per source unit (a message, a meeting, a run, a proposal).
CREATE UNIQUE INDEX memory_items_one_per_source
    ON memory_items (workspace_id, kind, COALESCE(message_id, meeting_id, run_id, proposal_id))
    WHERE kind <> 'mail';
CREATE INDEX memory_items_waiting
    ON memory_items (workspace_id, owner_kind, owner_id, arrived_at) WHERE status = 'waiting';

-- What a pass decided for each learning of an item (an item with none is refused once).
CREATE TABLE memory_verdicts (
    workspace_id uuid NOT NULL,
    item_id uuid NOT NULL,
    number integer NOT NULL CHECK (number > 0),
    verdict text NOT NULL CHECK (verdict IN ('written', 'refreshed', 'refused')),
    reason text CHECK (reason IN (
        'record_stores_it', 'log', 'task', 'one_off', 'not_durable', 'inference',
        'sensitive_private_to_shared', 'no_subject', 'satellite_no_record', 'not_permitted',
        'older_than_existing', 'person_version_kept', 'contradiction_in_doubt', 'cap_reached')),
    page_id uuid,
    line_key text,
    text text,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, item_id, number),
    CHECK ((verdict = 'refused') = (reason IS NOT NULL)),
    FOREIGN KEY (workspace_id, item_id) REFERENCES memory_items (workspace_id, id)
        ON DELETE CASCADE
);

-- One pass: whom it read for, who paid, what it cost.
CREATE TABLE memory_passes (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    owner_kind text NOT NULL,
    owner_id uuid,
    payer_kind text NOT NULL CHECK (payer_kind IN ('member', 'workspace')),
    payer_id uuid,
    reader text NOT NULL,
    items integer NOT NULL CHECK (items >= 0),
    input_tokens bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    cost_usd numeric NOT NULL DEFAULT 0 CHECK (cost_usd >= 0),
    started_at timestamptz NOT NULL,
    finished_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, id)
);
ALTER TABLE memory_items ADD FOREIGN KEY (workspace_id, pass_id)
    REFERENCES memory_passes (workspace_id, id);

-- What each payer spent a calendar month (UTC).
CREATE TABLE memory_spend (
    workspace_id uuid NOT NULL,
    payer_kind text NOT NULL CHECK (payer_kind IN ('member', 'workspace')),
    payer_id uuid,
    payer_key uuid NOT NULL GENERATED ALWAYS AS (COALESCE(payer_id, workspace_id)) STORED,
    month date NOT NULL CHECK (extract(day FROM month) = 1),
    cost_usd numeric NOT NULL DEFAULT 0 CHECK (cost_usd >= 0),
    passes integer NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace_id, payer_kind, payer_key, month),
    CHECK ((payer_kind = 'workspace') = (payer_id IS NULL)),
    FOREIGN KEY (workspace_id, payer_id) REFERENCES members (workspace_id, id) ON DELETE CASCADE
);

-- Without AI credits nothing of memory runs.
ALTER TABLE workspace_settings ADD COLUMN ai_credits boolean NOT NULL DEFAULT true;

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['conversations', 'conversation_messages', 'meeting_transcripts',
                             'meeting_links', 'runs', 'memory_items', 'memory_verdicts',
                             'memory_passes', 'memory_spend'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format(
            'CREATE POLICY workspace_isolation ON %I USING (workspace_id = app_workspace_id())'
            ' WITH CHECK (workspace_id = app_workspace_id())', t);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO skillmem_app', t);
    END LOOP;
END
$$;

-- When each page owner's pass is due at p_now (issue 10, item 3, as batching.due_at): the
-- oldest waiting item plus the group wait, the first urgent one plus the quick wait, or the
-- arrival of the p_full-th; items deferred past p_now wait. The scheduler's one view across
-- workspaces: SECURITY DEFINER like the search match, it answers ids, times and counts, never
-- a text; only the application role may call it.
CREATE FUNCTION dreamer_due(p_now timestamptz, p_group interval, p_quick interval,
                            p_full integer)
RETURNS TABLE (workspace_id uuid, owner_kind text, owner_id uuid, due_at timestamptz,
               waiting bigint)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
    SELECT i.workspace_id, i.owner_kind, i.owner_id,
           LEAST(min(i.arrived_at) + p_group,
                 min(i.arrived_at) FILTER (WHERE i.urgent) + p_quick,
                 (array_agg(i.arrived_at ORDER BY i.arrived_at))[p_full]) AS due_at,
           count(*) AS waiting
      FROM memory_items i
     WHERE i.status = 'waiting'
       AND (i.deferred_until IS NULL OR i.deferred_until <= p_now)
     GROUP BY i.workspace_id, i.owner_kind, i.owner_id
$$;
REVOKE EXECUTE ON FUNCTION dreamer_due(timestamptz, interval, interval, integer) FROM PUBLIC;
-- The function runs as the tables' owner, whom forced row-level security binds too unless it is
-- a superuser: this policy lets the owner alone read every workspace's items (requests and
-- passes act as skillmem_app, which it does not name).
CREATE POLICY dreamer_schedule ON memory_items FOR SELECT TO CURRENT_USER USING (true);
GRANT EXECUTE ON FUNCTION dreamer_due(timestamptz, interval, interval, integer) TO skillmem_app;
