-- name: begin_request
-- Resolve a token hash to its principal, and set the transaction's role and workspace.
SELECT * FROM app_begin_request($1);

-- name: insert_workspace
-- Create a workspace (the transaction's workspace must already be its id).
INSERT INTO workspaces (workspace_id, name) VALUES ($1, $2)
RETURNING workspace_id, name, created_at;

-- name: workspace
-- The transaction's workspace.
SELECT workspace_id, name, created_at FROM workspaces WHERE workspace_id = app_workspace_id();

-- name: insert_role
-- Create a role with its workspace rights.
INSERT INTO roles (workspace_id, id, name, can_update_settings, can_write_skills)
VALUES (app_workspace_id(), $1, $2, $3, $4)
RETURNING id;

-- name: upsert_role_permission
-- Grant a role its rights on one object (replacing what it had).
INSERT INTO role_permissions (workspace_id, role_id, object_id, can_read, can_create, can_update,
                              can_delete)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6)
ON CONFLICT (workspace_id, role_id, object_id) DO UPDATE
   SET can_read = EXCLUDED.can_read, can_create = EXCLUDED.can_create,
       can_update = EXCLUDED.can_update, can_delete = EXCLUDED.can_delete;

-- name: role_by_name
-- A role of the workspace by its name.
SELECT id, name, can_update_settings, can_write_skills FROM roles WHERE name = $1;

-- name: insert_member
-- Add a person to the workspace.
INSERT INTO members (workspace_id, id, name, email, role_id)
VALUES (app_workspace_id(), $1, $2, $3, $4)
RETURNING id, name, email, role_id, created_at;

-- name: member_by_email
-- A member of the workspace by email.
SELECT id, name, email, role_id, created_at FROM members WHERE email = $1;

-- name: members_by_ids
-- Members of the workspace by id.
SELECT id, name, email, role_id, created_at FROM members WHERE id = ANY($1::uuid[]);

-- name: members_page
-- Members of the workspace in name order, after a cursor.
SELECT id, name, email, role_id, created_at FROM members
 WHERE (name, id) > ($1, $2)
 ORDER BY name, id
 LIMIT $3;

-- name: insert_agent
-- Add an agent owned by a member.
INSERT INTO agents (workspace_id, id, name, owner_member_id)
VALUES (app_workspace_id(), $1, $2, $3)
RETURNING id, name, owner_member_id, created_at;

-- name: agent_by_name
-- An agent of the workspace by name.
SELECT id, name, owner_member_id, created_at FROM agents WHERE name = $1;

-- name: insert_routine
-- Add a routine owned by a member.
INSERT INTO routines (workspace_id, id, name, owner_member_id)
VALUES (app_workspace_id(), $1, $2, $3)
RETURNING id, name, owner_member_id, created_at;

-- name: insert_api_key
-- Add an API key with its role.
INSERT INTO api_keys (workspace_id, id, name, role_id)
VALUES (app_workspace_id(), $1, $2, $3)
RETURNING id, name, role_id, created_at;

-- name: api_key_by_name
-- An API key of the workspace by name.
SELECT id, name, role_id, created_at FROM api_keys WHERE name = $1;

-- name: insert_mcp_client
-- Add an MCP client acting for a member.
INSERT INTO mcp_clients (workspace_id, id, name, member_id)
VALUES (app_workspace_id(), $1, $2, $3)
RETURNING id, name, member_id, created_at;

-- name: insert_token
-- Store a new token's hash for one principal, and its workspace for the lookup by hash.
WITH directory AS (
    INSERT INTO token_workspaces (token_hash, workspace_id) VALUES ($2, app_workspace_id())
)
INSERT INTO tokens (workspace_id, id, token_hash, kind, member_id, agent_id, api_key_id,
                    mcp_client_id, purpose)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6, $7, $8)
RETURNING id;

-- name: revoke_tokens_by_purpose
-- Revoke every live token of the workspace made for one purpose; return how many.
WITH revoked AS (
    UPDATE tokens SET revoked_at = now()
     WHERE purpose = $1 AND revoked_at IS NULL
    RETURNING 1
)
SELECT count(*) FROM revoked;

-- name: revoke_token
-- Revoke one token by id.
UPDATE tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL;

-- name: members_by_emails
-- Members of the workspace by email.
SELECT id, name, email, role_id, created_at FROM members WHERE email = ANY($1::text[]);

-- name: workspace_directory
-- Every workspace's id and name, by name (the owner's connection: the operators' commands).
SELECT workspace_id, name, created_at FROM workspaces ORDER BY name, workspace_id;

-- name: workspaces_named
-- The workspaces called $1 (the owner's connection: the operators' commands).
SELECT workspace_id, name, created_at FROM workspaces WHERE name = $1 ORDER BY workspace_id;

-- name: begin_request_generation
-- As begin_request, with the workspace's principal counter (migration 0034) read no later.
SELECT r.*, app_principal_generation() AS generation FROM app_begin_request($1) r;
