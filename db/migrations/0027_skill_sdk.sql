-- Skills through the official Anthropic SDK (issue 14, item 2): the SDK addresses a version by an
-- id of its own, labels a skill with a `display_name`, and may delete a version. A version
-- deleted there is withdrawn from /v1/skills (no longer listed, read or downloaded there) and
-- stays in the skill's immutable history; the latest version is never withdrawn (the resolver
-- refuses it), so a skill always has one version the SDK reads.

-- gen_random_uuid() fills the versions already written; new versions take it by default.
ALTER TABLE skill_versions ADD COLUMN public_id uuid NOT NULL DEFAULT gen_random_uuid();
CREATE UNIQUE INDEX skill_versions_public_id ON skill_versions (workspace_id, public_id);

-- NULL: the skill's name is its label.
ALTER TABLE skills ADD COLUMN display_name text
    CHECK (display_name IS NULL OR length(display_name) BETWEEN 1 AND 255);

CREATE TABLE skill_version_withdrawals (
    workspace_id uuid NOT NULL,
    skill_id uuid NOT NULL,
    version integer NOT NULL,
    withdrawn_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, skill_id, version),
    FOREIGN KEY (workspace_id, skill_id, version)
        REFERENCES skill_versions (workspace_id, skill_id, version) ON DELETE CASCADE
);

ALTER TABLE skill_version_withdrawals ENABLE ROW LEVEL SECURITY;
ALTER TABLE skill_version_withdrawals FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_isolation ON skill_version_withdrawals
    USING (workspace_id = app_workspace_id()) WITH CHECK (workspace_id = app_workspace_id());
-- Withdrawn once, for good: the application adds rows and reads them, never changes them.
GRANT SELECT, INSERT ON skill_version_withdrawals TO skillmem_app;
