-- Learning from mail (issue 11, items 1 and 2; seed 000 "Learning from mail"): mailboxes, the
-- mail a partner posts into them (each message a record of the native `mail` object), and the
-- exchanges the hourly job opens on them, each one an item of memory_items for a pass.

-- A mailbox: one member's (personal, private to them; its addresses are the owner's own, a
-- mail filed sent from one of them is the owner's words) or the workspace's (shared). Its
-- external id is the caller's, one namespace per owner (the workspace's for a shared one).
CREATE TABLE mailboxes (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    external_id text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 200),
    kind text NOT NULL CHECK (kind IN ('personal', 'shared')),
    owner_id uuid,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    -- Lower case, each once.
    addresses text[] NOT NULL DEFAULT '{}' CHECK (cardinality(addresses) <= 20),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, id),
    UNIQUE NULLS NOT DISTINCT (workspace_id, owner_id, external_id),
    CHECK ((kind = 'personal') = (owner_id IS NOT NULL)),
    CHECK (kind = 'shared' OR cardinality(addresses) >= 1),
    FOREIGN KEY (workspace_id, owner_id) REFERENCES members (workspace_id, id) ON DELETE CASCADE
);

-- One message of a mailbox: a record of the `mail` object (its subject the label; private to a
-- personal mailbox's owner, the workspace's for a shared one). Its quoted history is kept
-- apart and never read; of its attachments only the names, sizes and sha256 are kept (their
-- contents are checked on arrival, never stored). A deleted mail stays, marked: it is never
-- read again, and a souvenir learned from it has lost its source (mail_deleted below).
CREATE TABLE mail_messages (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    mailbox_id uuid NOT NULL,
    external_id text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 200),
    thread_id text NOT NULL CHECK (length(thread_id) BETWEEN 1 AND 200),
    filed text NOT NULL CHECK (filed IN ('received', 'sent')),
    -- The mailbox classifier's category; NULL: uncategorized.
    category text CHECK (category IN ('direct', 'newsletter', 'notification', 'marketing',
                                      'transactional', 'custom')),
    important boolean NOT NULL DEFAULT false,
    classified_at timestamptz NOT NULL,
    -- The sender's address (lower case) and the name its sender line gives.
    from_address text NOT NULL CHECK (length(from_address) BETWEEN 3 AND 320),
    from_name text CHECK (length(from_name) <= 200),
    sent_at timestamptz NOT NULL,
    subject text NOT NULL CHECK (length(subject) <= 500),
    text text NOT NULL CHECK (length(text) <= 100000),
    quoted text NOT NULL DEFAULT '' CHECK (length(quoted) <= 200000),
    -- [{"name", "size", "sha256"}, ...]
    attachments jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(attachments) = 'array'),
    deleted boolean NOT NULL DEFAULT false,
    deleted_at timestamptz,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, mailbox_id, external_id),
    CHECK (deleted = (deleted_at IS NOT NULL)),
    FOREIGN KEY (workspace_id, id) REFERENCES records (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, mailbox_id) REFERENCES mailboxes (workspace_id, id)
        ON DELETE CASCADE
);
-- A mailbox's thread in order (its quiet, its window).
CREATE INDEX mail_messages_in_thread
    ON mail_messages (workspace_id, mailbox_id, thread_id, sent_at, id);
-- The mails that may open an exchange, by when they were classified: across workspaces for the
-- schedule, and in one workspace for its job.
CREATE INDEX mail_messages_opening ON mail_messages (classified_at)
    WHERE filed = 'received' AND category = 'direct' AND important AND NOT deleted;
CREATE INDEX mail_messages_opening_here ON mail_messages (workspace_id, classified_at)
    WHERE filed = 'received' AND category = 'direct' AND important AND NOT deleted;

-- The records a message is linked to (the partner's, each one its poster could read): what its
-- exchange is read for.
CREATE TABLE mail_message_links (
    workspace_id uuid NOT NULL,
    message_id uuid NOT NULL,
    record_id uuid NOT NULL,
    position integer NOT NULL CHECK (position >= 0),
    PRIMARY KEY (workspace_id, message_id, record_id),
    FOREIGN KEY (workspace_id, message_id) REFERENCES mail_messages (workspace_id, id)
        ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, record_id) REFERENCES records (workspace_id, id) ON DELETE CASCADE
);

-- An exchange: opened by the hourly job on one important mail of one mailbox's thread, read
-- from its first message (the one just before the important mail) through its last (the
-- thread's last in that mailbox, or the one before the next important mail); quiet_since is
-- when the thread went quiet.
CREATE TABLE mail_exchanges (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    mailbox_id uuid NOT NULL,
    thread_id text NOT NULL,
    opening_id uuid NOT NULL,
    first_id uuid NOT NULL,
    first_at timestamptz NOT NULL,
    last_id uuid NOT NULL,
    last_at timestamptz NOT NULL,
    quiet_since timestamptz NOT NULL,
    opened_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, opening_id),
    CHECK (first_at <= last_at),
    FOREIGN KEY (workspace_id, mailbox_id) REFERENCES mailboxes (workspace_id, id)
        ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, opening_id) REFERENCES mail_messages (workspace_id, id)
        ON DELETE CASCADE
);
CREATE INDEX mail_exchanges_opened ON mail_exchanges (workspace_id, opened_at);

-- A mail item is one exchange: memory_items names it, and every item names exactly one source.
ALTER TABLE memory_items ADD COLUMN exchange_id uuid;
ALTER TABLE memory_items ADD FOREIGN KEY (workspace_id, exchange_id)
    REFERENCES mail_exchanges (workspace_id, id) ON DELETE CASCADE;
DO $$
DECLARE
    found text;
BEGIN
    SELECT conname INTO STRICT found FROM pg_constraint
     WHERE conrelid = 'memory_items'::regclass AND contype = 'c'
       AND pg_get_constraintdef(oid) LIKE '%num_nonnulls(message_id, meeting_id, run_id, proposal_id)%';
    EXECUTE format('ALTER TABLE memory_items DROP CONSTRAINT %I', found);
END
$$;
ALTER TABLE memory_items ADD CONSTRAINT memory_items_one_source
    CHECK (num_nonnulls(message_id, meeting_id, run_id, proposal_id, exchange_id) = 1);
ALTER TABLE memory_items ADD CONSTRAINT memory_items_mail_exchange
    CHECK ((kind = 'mail') = (exchange_id IS NOT NULL));
CREATE UNIQUE INDEX memory_items_one_per_exchange
    ON memory_items (workspace_id, exchange_id) WHERE kind = 'mail';

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['mailboxes', 'mail_messages', 'mail_message_links',
                             'mail_exchanges'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format(
            'CREATE POLICY workspace_isolation ON %I USING (workspace_id = app_workspace_id())'
            ' WITH CHECK (workspace_id = app_workspace_id())', t);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO skillmem_app', t);
    END LOOP;
END
$$;

-- Whether a record is a mail marked deleted: a souvenir naming it as its source has lost it
-- (the weekly removal's "source gone"). False for any other record, and for none.
CREATE FUNCTION mail_deleted(p_record_id uuid) RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT EXISTS (SELECT 1 FROM mail_messages m
                    WHERE m.workspace_id = app_workspace_id() AND m.id = p_record_id
                      AND m.deleted)
$$;
GRANT EXECUTE ON FUNCTION mail_deleted(uuid) TO skillmem_app;

-- Whether a mailbox is read now, and from when (issue 11, item 2): a shared one always, all of
-- it; a personal one while its owner's memory.learnFromEmail is on (no row: on), only its mail
-- from the moment it was last turned on (never turned off since the member joined: all of it;
-- member_preferences keeps turned_on_at at the member's joining until then).
CREATE FUNCTION mailbox_reading(p_mailbox mailboxes)
RETURNS TABLE (read boolean, reads_from timestamptz)
LANGUAGE sql STABLE
AS $$
    SELECT (p_mailbox).kind = 'shared' OR COALESCE(p.value, true),
           CASE WHEN (p_mailbox).kind = 'personal' THEN NULLIF(p.turned_on_at, m.created_at) END
      FROM (SELECT 1) AS one
      LEFT JOIN members m
             ON m.workspace_id = (p_mailbox).workspace_id AND m.id = (p_mailbox).owner_id
      LEFT JOIN member_preferences p
             ON p.workspace_id = (p_mailbox).workspace_id AND p.member_id = (p_mailbox).owner_id
            AND p.key = 'memory.learnFromEmail'
$$;
GRANT EXECUTE ON FUNCTION mailbox_reading(mailboxes) TO skillmem_app;

-- Whose own words a message is: in a personal mailbox, its owner's when the provider filed it
-- as sent from one of the owner's addresses; in a shared mailbox, a member's when filed as sent
-- from that member's own address (their email). Any other mail, whatever its sender line says,
-- is an outsider's (NULL).
CREATE FUNCTION mail_author(p_message mail_messages, p_mailbox mailboxes) RETURNS uuid
LANGUAGE sql STABLE
AS $$
    SELECT CASE
        WHEN (p_message).filed <> 'sent' THEN NULL
        WHEN (p_mailbox).kind = 'personal' THEN
            CASE WHEN (p_message).from_address = ANY ((p_mailbox).addresses)
                 THEN (p_mailbox).owner_id END
        ELSE (SELECT CASE WHEN count(*) = 1 THEN (array_agg(m.id))[1] END
                FROM members m
               WHERE m.workspace_id = (p_message).workspace_id
                 AND lower(m.email) = (p_message).from_address)
    END
$$;
GRANT EXECUTE ON FUNCTION mail_author(mail_messages, mailboxes) TO skillmem_app;

-- What an exchange reads: its thread's messages in its mailbox from its first through its last,
-- in order, deleted ones left out, and for a personal mailbox none from before its reading
-- started (mail received while memory.learnFromEmail was off).
CREATE FUNCTION mail_window(p_exchange mail_exchanges) RETURNS SETOF mail_messages
LANGUAGE sql STABLE
AS $$
    SELECT t.*
      FROM mailboxes b
     CROSS JOIN LATERAL mailbox_reading(b) r
      JOIN mail_messages t
        ON t.workspace_id = b.workspace_id AND t.mailbox_id = b.id
       AND t.thread_id = (p_exchange).thread_id
     WHERE b.workspace_id = (p_exchange).workspace_id AND b.id = (p_exchange).mailbox_id
       AND (t.sent_at, t.id) >= ((p_exchange).first_at, (p_exchange).first_id)
       AND (t.sent_at, t.id) <= ((p_exchange).last_at, (p_exchange).last_id)
       AND NOT t.deleted
       AND t.sent_at >= COALESCE(r.reads_from, '-infinity')
     ORDER BY t.sent_at, t.id
$$;
GRANT EXECUTE ON FUNCTION mail_window(mail_exchanges) TO skillmem_app;

-- The exchanges that open at p_now (issue 11, item 2), written once for the job and its
-- schedule: on each received mail filed Direct and flagged important, classified since
-- p_now - p_reach, not deleted, with no exchange yet, in a mailbox read now
-- (mailbox_reading), once its thread in that mailbox has been quiet p_quiet (measured from the
-- thread's last message there). Its window runs from the message just before it through the
-- thread's last message, or through the message before the next such mail (which opens its
-- own); deleted mail, mail classified before the reach and mail from before the mailbox's
-- reading started are left out of the thread. Row-level security applies: the application
-- role sees its workspace's.
CREATE FUNCTION mail_openable(p_now timestamptz, p_quiet interval, p_reach interval)
RETURNS TABLE (workspace_id uuid, mailbox_id uuid, thread_id text, opening_id uuid,
               opening_at timestamptz, first_id uuid, first_at timestamptz, last_id uuid,
               last_at timestamptz, quiet_since timestamptz)
LANGUAGE sql STABLE
AS $$
    -- Materialized: each step runs once, whatever the planner guesses of the tables' sizes.
    WITH candidate AS MATERIALIZED (
        SELECT DISTINCT c.workspace_id, c.mailbox_id, c.thread_id, r.reads_from
          FROM mail_messages c
          JOIN mailboxes b ON b.workspace_id = c.workspace_id AND b.id = c.mailbox_id
         CROSS JOIN LATERAL mailbox_reading(b) r
         WHERE c.filed = 'received' AND c.category = 'direct' AND c.important AND NOT c.deleted
           AND c.classified_at >= p_now - p_reach AND r.read
           AND c.sent_at >= COALESCE(r.reads_from, '-infinity')
           AND NOT EXISTS (SELECT 1 FROM mail_exchanges x
                            WHERE x.workspace_id = c.workspace_id AND x.opening_id = c.id)
    ),
    thread AS MATERIALIZED (
        SELECT c.*,
               (SELECT max(t.sent_at) FROM mail_messages t
                 WHERE t.workspace_id = c.workspace_id AND t.mailbox_id = c.mailbox_id
                   AND t.thread_id = c.thread_id AND NOT t.deleted) AS quiet_since
          FROM candidate c
    ),
    ordered AS (
        SELECT t.workspace_id, t.mailbox_id, t.thread_id, t.id, t.sent_at, h.quiet_since,
               (t.filed = 'received' AND t.category = 'direct' AND t.important) AS opens,
               lag(t.id) OVER w AS prev_id, lag(t.sent_at) OVER w AS prev_at,
               count(*) FILTER (WHERE t.filed = 'received' AND t.category = 'direct'
                                  AND t.important) OVER w AS part
          FROM thread h
         CROSS JOIN LATERAL (
                SELECT t.* FROM mail_messages t
                 WHERE t.workspace_id = h.workspace_id AND t.mailbox_id = h.mailbox_id
                   AND t.thread_id = h.thread_id AND NOT t.deleted
                   AND t.classified_at >= p_now - p_reach
                   AND t.sent_at >= COALESCE(h.reads_from, '-infinity')
                OFFSET 0) t  -- each quiet thread's own messages, by its index
         WHERE h.quiet_since <= p_now - p_quiet
        WINDOW w AS (PARTITION BY t.workspace_id, t.mailbox_id, t.thread_id
                     ORDER BY t.sent_at, t.id)
    ),
    parts AS (
        SELECT o.*, last_value(o.id) OVER p AS last_id, last_value(o.sent_at) OVER p AS last_at
          FROM ordered o
        WINDOW p AS (PARTITION BY o.workspace_id, o.mailbox_id, o.thread_id, o.part
                     ORDER BY o.sent_at, o.id
                     ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
    )
    SELECT s.workspace_id, s.mailbox_id, s.thread_id, s.id, s.sent_at,
           COALESCE(s.prev_id, s.id), COALESCE(s.prev_at, s.sent_at), s.last_id, s.last_at,
           s.quiet_since
      FROM parts s
     WHERE s.opens
       AND NOT EXISTS (SELECT 1 FROM mail_exchanges x
                        WHERE x.workspace_id = s.workspace_id AND x.opening_id = s.id)
$$;
GRANT EXECUTE ON FUNCTION mail_openable(timestamptz, interval, interval) TO skillmem_app;

-- The workspaces with exchanges to open at p_now and room for them (fewer than p_hour_cap
-- opened since p_hour and fewer than p_day_cap since p_day): how many, and the longest quiet.
-- The hourly job's one view across workspaces: SECURITY DEFINER like dreamer_due, it answers
-- ids, times and counts, never a text; only the application role may call it.
CREATE FUNCTION mail_due(p_now timestamptz, p_quiet interval, p_reach interval,
                         p_hour timestamptz, p_day timestamptz, p_hour_cap integer,
                         p_day_cap integer)
RETURNS TABLE (workspace_id uuid, openable bigint, quiet_since timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
    SELECT o.workspace_id, count(*), min(o.quiet_since)
      FROM mail_openable(p_now, p_quiet, p_reach) o
     GROUP BY o.workspace_id
    HAVING (SELECT count(*) FROM mail_exchanges x
             WHERE x.workspace_id = o.workspace_id AND x.opened_at >= p_hour) < p_hour_cap
       AND (SELECT count(*) FROM mail_exchanges x
             WHERE x.workspace_id = o.workspace_id AND x.opened_at >= p_day) < p_day_cap
$$;
REVOKE EXECUTE ON FUNCTION mail_due(timestamptz, interval, interval, timestamptz, timestamptz,
                                    integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mail_due(timestamptz, interval, interval, timestamptz, timestamptz,
                                   integer, integer) TO skillmem_app;
-- Like dreamer_schedule (0011): the function runs as the tables' owner, whom forced row-level
-- security binds too unless it is a superuser; these policies let the owner alone read what
-- mail_openable reads in every workspace (requests and jobs act as skillmem_app, which they do
-- not name).
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['mailboxes', 'mail_messages', 'mail_exchanges', 'members',
                             'member_preferences'] LOOP
        EXECUTE format(
            'CREATE POLICY mail_schedule ON %I FOR SELECT TO CURRENT_USER USING (true)', t);
    END LOOP;
END
$$;
