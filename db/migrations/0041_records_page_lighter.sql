-- The records page with less PostgreSQL work (issue 17, item 1).
--
-- records_page_rows (migration 0035) gathered its page's relations with
-- readable_relations(ARRAY(SELECT id FROM page), ...): a sub-select among a set-returning SQL
-- function's arguments keeps the planner from inlining it, so it ran as a function scan of its
-- own (most of the page's statement) and built jsonb. record_relations is the same read rule
-- for one record, written so that the planner inlines it (LANGUAGE sql, STABLE, one SELECT, no
-- SET clause, no SECURITY DEFINER, plain arguments, declared as a set of one row) and called
-- LATERAL per page row after the LIMIT: index lookups for the 20 rows of a page, nothing for
-- the candidates the page skipped. It builds json (text), not jsonb (nothing reads it in SQL),
-- by json_agg of each related row (a json object per row, keyed by its columns' names: cheaper
-- than json_build_object, which looks each value's type up again on every call).
--
-- app_begin_cached is the prelude of a cached principal (db/principal_cache.py) in one
-- statement: the settings app_begin_request sets, then the freshness check of
-- app_principal_fresh (migration 0034), which it replaces on that path.
--
-- readable_relations (migration 0003) and app_principal_fresh (migration 0034) stay, unused by
-- the application (bench/records_sql.py measures the former page against this one).

-- The single relations of record p_record of workspace p_workspace that point to records the
-- caller (whose role reads p_readable, the person p_person) may read, as one json array of
-- records (each with the attribute it hangs from) in attribute order; [] when none. One row,
-- always: call it LATERAL in FROM, where the planner inlines it.
CREATE FUNCTION record_relations(p_workspace uuid, p_record uuid, p_readable uuid[],
                                 p_person uuid)
RETURNS SETOF json
LANGUAGE sql STABLE
AS $$
    SELECT COALESCE(json_agg(rel ORDER BY rel.attribute), '[]'::json)
      FROM (SELECT l.attribute_slug AS attribute, t.id, t.seq, o.slug AS object, t.label,
                   t."values", t.visibility, t.owner_member_id, t.created_at, t.updated_at
              FROM record_links l
              JOIN records t ON t.workspace_id = l.workspace_id AND t.id = l.target_id
              JOIN objects o ON o.workspace_id = t.workspace_id AND o.id = t.object_id
             WHERE l.workspace_id = p_workspace
               AND l.record_id = p_record
               AND record_readable(t, p_readable, p_person)) rel
$$;

GRANT EXECUTE ON FUNCTION record_relations(uuid, uuid, uuid[], uuid) TO skillmem_app;

-- The return type changes (relations: json), so both are made anew; the same arguments, rows
-- and read rule as in migration 0035.
DROP FUNCTION records_page_plain(text, uuid[], uuid, uuid, integer, timestamptz);
DROP FUNCTION records_page_rows(text, uuid[], uuid, uuid, integer, text, jsonb, uuid,
                                timestamptz);

CREATE FUNCTION records_page_rows(p_object text, p_readable uuid[], p_person uuid, p_after uuid,
                                  p_limit integer, p_label text, p_values jsonb,
                                  p_related_to uuid, p_after_created_at timestamptz)
RETURNS TABLE (id uuid, seq bigint, label text, "values" jsonb, visibility text,
               owner_member_id uuid, created_at timestamptz, updated_at timestamptz,
               object text, relations json)
LANGUAGE sql STABLE
AS $$
SELECT page.id, page.seq, page.label, page."values", page.visibility, page.owner_member_id,
       page.created_at, page.updated_at, p_object AS object, rel.relations
  FROM (
    SELECT r.workspace_id, r.id, r.seq, r.label, r."values", r.visibility, r.owner_member_id,
           r.created_at, r.updated_at
      FROM records r
     WHERE r.object_id = (SELECT o.id FROM objects o WHERE o.slug = p_object)
       AND r.seq > COALESCE(
               (SELECT c.seq FROM records c
                 WHERE c.workspace_id = app_workspace_id() AND c.id = p_after),
               CASE WHEN p_after IS NOT NULL THEN
                   (SELECT max(c.seq) FROM records c
                     WHERE c.workspace_id = app_workspace_id()
                       AND c.object_id = (SELECT o.id FROM objects o WHERE o.slug = p_object)
                       AND c.created_at <= p_after_created_at)
               END,
               0)
       AND record_readable(r, p_readable, p_person)
       AND (p_label IS NULL OR strpos(lower(r.label), lower(p_label)) > 0)
       AND (p_values IS NULL OR r."values" @> p_values)
       AND (p_related_to IS NULL OR (
               EXISTS (SELECT 1 FROM records t
                        WHERE t.id = p_related_to AND record_readable(t, p_readable, p_person))
               AND EXISTS (
                   SELECT 1 FROM record_links l
                    WHERE l.workspace_id = r.workspace_id AND l.record_id = r.id
                      AND l.target_id = p_related_to)))
     ORDER BY r.seq
     LIMIT p_limit
  ) page
  CROSS JOIN LATERAL record_relations(page.workspace_id, page.id, p_readable, p_person)
      AS rel (relations)
 ORDER BY page.seq
$$;

CREATE FUNCTION records_page_plain(p_object text, p_readable uuid[], p_person uuid,
                                   p_after uuid, p_limit integer,
                                   p_after_created_at timestamptz)
RETURNS TABLE (id uuid, seq bigint, label text, "values" jsonb, visibility text,
               owner_member_id uuid, created_at timestamptz, updated_at timestamptz,
               object text, relations json)
LANGUAGE sql STABLE
SET plan_cache_mode = force_generic_plan
AS $$
SELECT * FROM records_page_rows(p_object, p_readable, p_person, p_after, p_limit, NULL, NULL,
                                NULL, p_after_created_at)
$$;

GRANT EXECUTE ON FUNCTION records_page_rows(text, uuid[], uuid, uuid, integer, text, jsonb, uuid,
                                            timestamptz) TO skillmem_app;
GRANT EXECUTE ON FUNCTION records_page_plain(text, uuid[], uuid, uuid, integer, timestamptz)
    TO skillmem_app;

-- A transaction begun for a cached principal (db/principal_cache.py), in one statement: the
-- settings app_begin_request sets (the role, app.token_hash emptied, the workspace), then
-- raise (SQLSTATE SMC01, nothing else raises it) unless the token p_token (its id: the hash
-- never goes into statement text, logs or traces) is still live in workspace p_workspace,
-- still in the token directory there, and the workspace's counter is still p_generation
-- (app_principal_fresh's check). The checks run as skillmem_app in that workspace, row-level
-- security on. No SET clause: the settings it makes must outlive the call.
CREATE FUNCTION app_begin_cached(p_workspace uuid, p_token uuid, p_generation bigint)
RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
    PERFORM set_config('role', 'skillmem_app', true);
    PERFORM set_config('app.token_hash', '', true);
    PERFORM set_config('app.workspace_id', p_workspace::text, true);
    IF NOT EXISTS (SELECT 1 FROM public.principal_generations g
                    WHERE g.workspace_id = p_workspace
                      AND g.generation = p_generation)
       OR NOT EXISTS (SELECT 1 FROM public.tokens t
                        JOIN public.token_workspaces d
                          ON d.token_hash = t.token_hash AND d.workspace_id = t.workspace_id
                       WHERE t.workspace_id = p_workspace AND t.id = p_token
                         AND t.revoked_at IS NULL) THEN
        RAISE EXCEPTION 'the cached principal is stale' USING ERRCODE = 'SMC01';
    END IF;
END
$$;

GRANT EXECUTE ON FUNCTION app_begin_cached(uuid, uuid, bigint) TO skillmem_app;
