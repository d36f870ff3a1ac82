-- name: search_memory
-- Memory pages whose souvenirs hold the words of $1, best souvenir per page, among the pages the
-- caller may read ($2 readable objects, $3 person): ranked, $4 at most, with how many pages
-- match among the best $5 readable souvenirs (memory_line_matches, through the index); none
-- when the caller is an agent ($6) with memory off (agent_memory_on). Pages are counted before
-- the cut, and only the $4 kept are joined to their page, name and line.
WITH matches AS (
    SELECT * FROM memory_line_matches(search_query($1), $2, $3, $5)
     WHERE agent_memory_on($6::uuid)
),
hits AS (
    SELECT DISTINCT ON (l.page_id) l.page_id, l.position, l.rank
      FROM matches l
     ORDER BY l.page_id, l.rank DESC, l.position
),
best AS (
    SELECT h.*, count(*) OVER () AS total
      FROM hits h
     ORDER BY h.rank DESC, h.page_id
     LIMIT $4
)
SELECT h.page_id, mr.label AS name, p.about_kind, p.subject_id, l.key, l.text, l.type, l.day,
       h.rank, h.total, (SELECT count(*) FROM matches) AS matched
  FROM best h
  JOIN memory_pages p ON p.workspace_id = app_workspace_id() AND p.id = h.page_id
  JOIN records mr ON mr.workspace_id = p.workspace_id AND mr.id = p.id
  JOIN memory_lines l
    ON l.workspace_id = p.workspace_id AND l.page_id = h.page_id AND l.position = h.position
 ORDER BY h.rank DESC, h.page_id;

-- name: recall_memory
-- Souvenirs holding the words of $1 on the pages the caller may read, best first, $4 at most;
-- none when the caller is an agent ($5) with memory off (agent_memory_on).
SELECT m.page_id, mr.label AS name, l.key, l.text, l.type, l.day, m.rank
  FROM memory_line_matches(search_query($1), $2, $3, $4) m
  JOIN records mr ON mr.workspace_id = app_workspace_id() AND mr.id = m.page_id
  JOIN memory_lines l
    ON l.workspace_id = mr.workspace_id AND l.page_id = m.page_id AND l.position = m.position
 WHERE agent_memory_on($5::uuid)
 ORDER BY m.rank DESC, m.page_id, m.position;

-- name: search_skills
-- Skills whose name, description and body hold the words of $1 (each word anywhere), among those
-- the caller may read and a model may be offered (not disable-model-invocation; for an agent
-- $5, those it attached at their versions when it attached any: agent_skill_offered): ranked
-- (the name weighs most, then uses), $4 at most, with how many match.
WITH q AS (SELECT search_query($1) AS q)
SELECT s.name, v.description, v.content, s.use_count, s.updated_at,
       ts_rank(setweight(to_tsvector('simple', search_fold(replace(s.name, '-', ' '))), 'A')
               || v.search_vector, q.q) AS rank,
       count(*) OVER () AS total
  FROM q, skills s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
  JOIN skill_versions v
    ON v.workspace_id = s.workspace_id AND v.skill_id = s.id
   AND v.version = agent_skill_offered($5::uuid, s.id, s.latest_version)
 WHERE s.workspace_id = app_workspace_id()
   AND (setweight(to_tsvector('simple', search_fold(replace(s.name, '-', ' '))), 'A')
        || v.search_vector) @@ q.q
   AND record_readable(r, $2, $3)
   AND COALESCE(v.extra_frontmatter->>'disable-model-invocation', 'false') <> 'true'
 ORDER BY rank DESC, s.use_count DESC, s.name
 LIMIT $4;

-- name: recall_skills
-- Without a query: the skills a model may be offered (for an agent $4, as search_skills says),
-- most used first, $3 at most.
SELECT s.name, v.description, v.content, s.use_count, s.updated_at, 0::real AS rank,
       count(*) OVER () AS total
  FROM skills s
  JOIN records r ON r.workspace_id = s.workspace_id AND r.id = s.id
  JOIN skill_versions v
    ON v.workspace_id = s.workspace_id AND v.skill_id = s.id
   AND v.version = agent_skill_offered($4::uuid, s.id, s.latest_version)
 WHERE s.workspace_id = app_workspace_id() AND record_readable(r, $1, $2)
   AND COALESCE(v.extra_frontmatter->>'disable-model-invocation', 'false') <> 'true'
 ORDER BY s.use_count DESC, s.updated_at DESC, s.name
 LIMIT $3;
