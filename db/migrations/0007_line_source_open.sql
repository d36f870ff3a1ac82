-- The one rule for opening what a memory line names (DESIGN §5): a line's source, a record
-- (it exists and the reader may read it) or a conversation (it is the reader's own); and the
-- record a line is about, as a record source. Every source opens in the stored form
-- (p_every_open). A plain expression, so the planner inlines it into each query.
CREATE FUNCTION line_source_open(p_kind text, p_record records, p_member_id uuid,
                                 p_readable uuid[], p_person uuid, p_every_open boolean)
RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT CASE p_kind
        WHEN 'record' THEN (p_record).id IS NOT NULL
                           AND (p_every_open
                                OR COALESCE(record_readable(p_record, p_readable, p_person),
                                            false))
        WHEN 'conversation' THEN p_member_id IS NOT NULL
                                 AND (p_every_open OR COALESCE(p_member_id = p_person, false))
    END
$$;

GRANT EXECUTE ON FUNCTION line_source_open(text, records, uuid, uuid[], uuid, boolean)
    TO skillmem_app;
