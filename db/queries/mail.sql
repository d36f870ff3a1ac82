-- Learning from mail (issue 11, items 1 and 2): mailboxes, their messages (records of the mail
-- object), and the exchanges the hourly job opens.

-- name: mailbox_of
-- A mailbox by its owner ($1, NULL: the workspace's) and external id.
SELECT id, external_id, kind, owner_id, name, addresses, created_at
  FROM mailboxes
 WHERE workspace_id = app_workspace_id() AND owner_id IS NOT DISTINCT FROM $1
   AND external_id = $2;

-- name: mailbox_by_id
-- A mailbox by its id.
SELECT id, external_id, kind, owner_id, name, addresses, created_at
  FROM mailboxes
 WHERE workspace_id = app_workspace_id() AND id = $1;

-- name: member_email
-- A member's email (lower case); no row: no such member.
SELECT lower(email) FROM members WHERE workspace_id = app_workspace_id() AND id = $1;

-- name: insert_mailbox
-- Stores a mailbox.
INSERT INTO mailboxes (workspace_id, id, external_id, kind, owner_id, name, addresses,
                       created_at)
VALUES (app_workspace_id(), $1, $2, $3, $4, $5, $6, $7)
RETURNING id, external_id, kind, owner_id, name, addresses, created_at;

-- name: messages_of
-- A mailbox's ($1) messages by their external ids ($2), with the records each is linked to,
-- and whether the caller (readable objects $3, person $4) may read each one's record.
SELECT m.id, m.external_id, m.thread_id, m.filed, m.category, m.important, m.classified_at,
       m.from_address, m.from_name, m.sent_at, m.subject, m.text, m.quoted, m.attachments,
       m.deleted,
       ARRAY(SELECT l.record_id FROM mail_message_links l
              WHERE l.workspace_id = m.workspace_id AND l.message_id = m.id
              ORDER BY l.position) AS record_ids,
       COALESCE(record_readable(r, $3, $4), false) AS readable
  FROM mail_messages m
  JOIN records r ON r.workspace_id = m.workspace_id AND r.id = m.id
 WHERE m.workspace_id = app_workspace_id() AND m.mailbox_id = $1 AND m.external_id = ANY ($2);

-- name: insert_messages
-- Stores new messages of a mailbox ($1), each a record of the mail object ($2) labelled by its
-- subject, visible as $7 and owned by $8, created at $9 by the actor $4/$5/$6, with the records
-- it is linked to ($3: a JSON array of messages). Counts the messages stored.
WITH given AS (
    SELECT * FROM jsonb_to_recordset($3::jsonb)
        AS g(id uuid, external_id text, thread_id text, filed text, category text,
             important boolean, classified_at timestamptz, from_address text, from_name text,
             sent_at timestamptz, subject text, label text, text text, quoted text,
             attachments jsonb, record_ids uuid[])
),
made AS (
    INSERT INTO records (workspace_id, id, object_id, label, visibility, owner_member_id,
                         created_at, updated_at)
    SELECT app_workspace_id(), g.id, $2, g.label, $7, $8, $9, $9 FROM given g
    RETURNING id
),
logged AS (
    INSERT INTO record_changes (workspace_id, record_id, changed_at, actor_kind, actor_id,
                                actor_name, operation, fields)
    SELECT app_workspace_id(), made.id, $9, $4, $5, $6, 'create', ARRAY['label'] FROM made
),
stored AS (
    INSERT INTO mail_messages (workspace_id, id, mailbox_id, external_id, thread_id, filed,
                               category, important, classified_at, from_address, from_name,
                               sent_at, subject, text, quoted, attachments, created_at)
    SELECT app_workspace_id(), g.id, $1, g.external_id, g.thread_id, g.filed, g.category,
           g.important, g.classified_at, g.from_address, g.from_name, g.sent_at, g.subject,
           g.text, g.quoted, g.attachments, $9
      FROM given g
    RETURNING id
),
linked AS (
    INSERT INTO mail_message_links (workspace_id, message_id, record_id, position)
    SELECT app_workspace_id(), g.id, l.record_id, l.n - 1
      FROM given g, unnest(g.record_ids) WITH ORDINALITY AS l (record_id, n)
)
SELECT count(*) FROM stored;

-- name: mark_deleted
-- Marks messages ($1) deleted at $2 (those not deleted yet).
UPDATE mail_messages SET deleted = true, deleted_at = $2
 WHERE workspace_id = app_workspace_id() AND id = ANY ($1) AND NOT deleted;

-- name: reclassify
-- Updates messages' ($1) classification: category $2, important $3, classified at $4 (arrays
-- in the same order).
UPDATE mail_messages m
   SET category = g.category, important = g.important, classified_at = g.classified_at
  FROM unnest($1::uuid[], $2::text[], $3::boolean[], $4::timestamptz[])
       AS g(id, category, important, classified_at)
 WHERE m.workspace_id = app_workspace_id() AND m.id = g.id;

-- name: deleted_mail
-- Which of these records ($1) are mail marked deleted (a souvenir's source gone).
SELECT id FROM mail_messages
 WHERE workspace_id = app_workspace_id() AND id = ANY ($1) AND deleted;

-- name: due_workspaces
-- The workspaces with exchanges to open now and room for them (mail_due, migration 0015).
SELECT workspace_id, openable, quiet_since
  FROM mail_due($1, $2, $3, $4, $5, $6, $7)
 ORDER BY quiet_since, workspace_id;

-- name: open_exchanges
-- Opens the workspace's exchanges due at $1 ($2 quiet, $3 reach), the longest quiet first, as
-- many as its room allows ($6 an hour since $4, $7 a day since $5), each with its item: the
-- mailbox owner's (private to them, paid by them, their memory.shareWithTeam), or the
-- workspace's for a shared mailbox. Counts the exchanges opened.
WITH opened AS (
    SELECT count(*) FILTER (WHERE x.opened_at >= $4) AS hour, count(*) AS day
      FROM mail_exchanges x
     WHERE x.workspace_id = app_workspace_id() AND x.opened_at >= $5
),
chosen AS (
    SELECT o.*, gen_random_uuid() AS exchange_id
      FROM mail_openable($1, $2, $3) o
     ORDER BY o.quiet_since, o.opening_at, o.opening_id
     LIMIT (SELECT greatest(0, least($6 - hour, $7 - day)) FROM opened)
),
exchanges AS (
    INSERT INTO mail_exchanges (workspace_id, id, mailbox_id, thread_id, opening_id, first_id,
                                first_at, last_id, last_at, quiet_since, opened_at)
    SELECT app_workspace_id(), c.exchange_id, c.mailbox_id, c.thread_id, c.opening_id,
           c.first_id, c.first_at, c.last_id, c.last_at, c.quiet_since, $1
      FROM chosen c
    RETURNING id, mailbox_id, last_at
),
items AS (
    INSERT INTO memory_items (workspace_id, id, kind, exchange_id, owner_kind, owner_id,
                              private_to, payer_kind, payer_id, urgent, said_at, arrived_at,
                              share_with_team)
    SELECT app_workspace_id(), gen_random_uuid(), 'mail', x.id,
           CASE WHEN b.owner_id IS NULL THEN 'workspace' ELSE 'member' END, b.owner_id,
           b.owner_id, CASE WHEN b.owner_id IS NULL THEN 'workspace' ELSE 'member' END,
           b.owner_id, false, x.last_at, $1,
           b.owner_id IS NOT NULL AND COALESCE(p.value, true)
      FROM exchanges x
      JOIN mailboxes b ON b.workspace_id = app_workspace_id() AND b.id = x.mailbox_id
      LEFT JOIN member_preferences p
             ON p.workspace_id = b.workspace_id AND p.member_id = b.owner_id
            AND p.key = 'memory.shareWithTeam'
)
SELECT count(*) FROM exchanges;

-- name: close_items
-- Mail items ($1) that will not be read after all, with their reason ($2).
UPDATE memory_items SET status = 'not_read', reason = $2, deferred_until = NULL
 WHERE workspace_id = app_workspace_id() AND id = ANY ($1) AND status = 'waiting';
