-- A skill as the application reads it, written once (skill_by_name and skills_page): the skill,
-- its record's visibility and owner, its parent's name, and one row per version. Callers pick
-- the version and check record_readable on the record columns. security_invoker: the caller's
-- row-level security applies, as if the tables were named directly.
CREATE VIEW skill_rows WITH (security_invoker = true) AS
SELECT s.workspace_id, s.id, s.name, s.parent_id, p.name AS parent_name, s.latest_version,
       s.use_count, s.last_used_at, s.source, s.created_at, s.updated_at, r.visibility,
       r.owner_member_id, v.version, v.description, v.content, v.extra_frontmatter,
       v.author_kind, v.author_name, v.created_at AS version_created_at, r AS record
  FROM skills s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
  JOIN skill_versions v ON v.workspace_id = s.workspace_id AND v.skill_id = s.id
  LEFT JOIN skills p ON p.workspace_id = s.workspace_id AND p.id = s.parent_id;

GRANT SELECT ON skill_rows TO skillmem_app;
