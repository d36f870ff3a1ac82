-- Compaction (issue 12, item 2; seed 000 "What agents see"): the profiles snapshot a
-- conversation reads at its start is kept until the conversation ends or is compacted.
--
-- * conversation_events records, append-only, each compaction and the end of a person's
--   conversation (the id is theirs, as turnContext's), with who did it and when; a
--   conversation ends once.
-- * A snapshot belongs to a generation of its conversation: the number of compactions before
--   it was read. The first turn after a compaction reads the profiles afresh and keeps them as
--   the next generation; the earlier snapshots stay.
-- * A turn's cards remember the generation whose profiles the turn read, so a replay by message
--   id answers the profiles stored then, compacted since or not.

CREATE TABLE conversation_events (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    person_id uuid NOT NULL,
    conversation_id text NOT NULL CHECK (length(conversation_id) BETWEEN 1 AND 200),
    kind text NOT NULL CHECK (kind IN ('compacted', 'ended')),
    -- Who did it: the person, or the conversation's agent (its token).
    actor_kind text NOT NULL CHECK (actor_kind IN ('member', 'agent')),
    actor_id uuid NOT NULL,
    at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, id),
    FOREIGN KEY (workspace_id, person_id) REFERENCES members (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX conversation_events_of_conversation
    ON conversation_events (workspace_id, person_id, conversation_id, at);
-- A conversation ends once.
CREATE UNIQUE INDEX conversation_events_one_end
    ON conversation_events (workspace_id, person_id, conversation_id) WHERE kind = 'ended';

ALTER TABLE conversation_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_events FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_isolation ON conversation_events
    USING (workspace_id = app_workspace_id()) WITH CHECK (workspace_id = app_workspace_id());
GRANT SELECT, INSERT ON conversation_events TO skillmem_app;

ALTER TABLE turn_snapshots ADD COLUMN generation integer NOT NULL DEFAULT 0
    CHECK (generation >= 0);
ALTER TABLE turn_snapshots DROP CONSTRAINT turn_snapshots_pkey,
    ADD PRIMARY KEY (workspace_id, person_id, conversation_id, generation);

-- NULL for a turn of no conversation.
ALTER TABLE turn_cards ADD COLUMN generation integer CHECK (generation >= 0);
UPDATE turn_cards SET generation = 0 WHERE conversation_id IS NOT NULL;
