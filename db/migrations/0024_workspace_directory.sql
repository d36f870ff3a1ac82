-- The operators' directory of workspaces (issue 13, item 4): `skillmem workspace list` and a
-- workspace named by its name in `skillmem token create` read every workspace's id and name
-- on the owner's connection, outside any workspace. Forced row-level security binds the
-- tables' owner too unless it is a superuser: this policy lets the owner alone (never the
-- application role, which it does not name) read the workspaces table; nothing else.
CREATE POLICY workspace_directory ON workspaces FOR SELECT TO CURRENT_USER USING (true);
