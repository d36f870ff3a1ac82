-- Conversation and message ids are their person's own (issue 9): two members of a workspace
-- may use the same id without meeting, and no member learns that another's id exists.
-- Row-level security is unchanged (the policies name the workspace only).

ALTER TABLE turn_snapshots DROP CONSTRAINT turn_snapshots_pkey,
    ADD PRIMARY KEY (workspace_id, person_id, conversation_id);

ALTER TABLE turn_cards DROP CONSTRAINT turn_cards_pkey,
    ADD PRIMARY KEY (workspace_id, person_id, message_id);
