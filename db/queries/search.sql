-- name: search_memory
-- Memory pages whose souvenirs match the query ($1, a tsquery over accent-folded words), best
-- souvenir per page, among the pages the caller may read ($2 readable objects, $3 person; a
-- role that does not read memory finds none): ranked, $4 at most, with how many pages match.
-- Candidates are the first $5 matching souvenirs (memory_line_matches, through the index).
WITH q AS (
    SELECT to_tsquery('simple', search_fold($1)) AS q,
           EXISTS (SELECT 1 FROM objects o
                    WHERE o.workspace_id = app_workspace_id() AND o.slug = 'memory'
                      AND o.id = ANY ($2)) AS memory
),
hits AS (
    SELECT DISTINCT ON (l.page_id) l.page_id, l.key, l.text, l.type, l.day, l.rank
      FROM q
      CROSS JOIN LATERAL memory_line_matches(q.q, $5) l
      JOIN memory_pages p ON p.workspace_id = app_workspace_id() AND p.id = l.page_id
      LEFT JOIN records s ON s.workspace_id = p.workspace_id AND s.id = p.subject_id
     WHERE q.memory AND p.trashed_at IS NULL
       AND CASE p.about_kind
               WHEN 'record' THEN COALESCE(record_readable(s, $2, $3), false)
               WHEN 'member' THEN COALESCE(p.member_id = $3, false)
               ELSE true
           END
     ORDER BY l.page_id, l.rank DESC, l.position
)
SELECT h.page_id, mr.label AS name, p.about_kind, p.subject_id, h.key, h.text, h.type, h.day,
       h.rank, count(*) OVER () AS total
  FROM hits h
  JOIN memory_pages p ON p.workspace_id = app_workspace_id() AND p.id = h.page_id
  JOIN records mr ON mr.workspace_id = p.workspace_id AND mr.id = p.id
 ORDER BY h.rank DESC, h.page_id
 LIMIT $4;

-- name: search_skills
-- Skills whose name, description or body match the query ($1), among those the caller may read
-- and a model may be offered (not disable-model-invocation): ranked (name matches first, then
-- text rank, then uses), $4 at most, with how many match.
WITH q AS (SELECT to_tsquery('simple', search_fold($1)) AS q)
SELECT s.name, v.description, v.content, s.use_count, s.updated_at,
       ts_rank(v.search_vector, q.q)
           + CASE WHEN to_tsvector('simple', search_fold(replace(s.name, '-', ' '))) @@ q.q
                  THEN 1 ELSE 0 END AS rank,
       count(*) OVER () AS total
  FROM q, skills s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
  JOIN skill_versions v
    ON v.workspace_id = s.workspace_id AND v.skill_id = s.id AND v.version = s.latest_version
 WHERE s.workspace_id = app_workspace_id()
   AND (v.search_vector @@ q.q
        OR to_tsvector('simple', search_fold(replace(s.name, '-', ' '))) @@ q.q)
   AND record_readable(r, $2, $3)
   AND COALESCE(v.extra_frontmatter->>'disable-model-invocation', 'false') <> 'true'
 ORDER BY rank DESC, s.use_count DESC, s.name
 LIMIT $4;

-- name: recall_skills
-- Without a query: the skills a model may be offered, most used first, $3 at most.
SELECT s.name, v.description, v.content, s.use_count, s.updated_at, 0::real AS rank,
       count(*) OVER () AS total
  FROM skills s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
  JOIN skill_versions v
    ON v.workspace_id = s.workspace_id AND v.skill_id = s.id AND v.version = s.latest_version
 WHERE s.workspace_id = app_workspace_id() AND record_readable(r, $1, $2)
   AND COALESCE(v.extra_frontmatter->>'disable-model-invocation', 'false') <> 'true'
 ORDER BY s.use_count DESC, s.updated_at DESC, s.name
 LIMIT $3;
