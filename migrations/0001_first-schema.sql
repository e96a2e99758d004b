-- Up Migration
-- The shared store's first schema. Everything askbridge keeps lives in the schema "askbridge" (made
-- by `askbridge store migrate`), so a database can hold other things beside it and pg_dump
-- --schema=askbridge copies exactly askbridge's part. The table "askbridge.migrations" beside these
-- records which of these files ran; a daemon compares it with the files it ships and refuses a
-- database newer than itself.

-- asks: every ask, waiting or finished, as the daemon holding its hook or relay keeps it.
--   daemon        which daemon holds its hook (daemons.id): only that one can hand its answer back
--   record        what the waiting files keep today (src/daemon/asks/pending-files.ts, PendingRecord),
--                 enough to make the ask again after a restart
--   view          the AskView every page, chat and terminal shows (src/protocol.ts)
--   outcome       null while it waits; set once by a conditional UPDATE (... WHERE outcome IS NULL),
--                 so the first decision wins across daemons
--   settled_at    when that outcome was written; delivered_at: when its hook or relay got it
CREATE TABLE askbridge.asks (
  id uuid PRIMARY KEY,
  daemon text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  record jsonb NOT NULL,
  view jsonb NOT NULL,
  outcome jsonb,
  settled_at timestamptz,
  delivered_at timestamptz
);
-- The waiting ones are read at every start and every page's first load: a small partial index.
CREATE INDEX asks_waiting ON askbridge.asks (expires_at) WHERE outcome IS NULL;

-- documents: the small JSON state that is one file each in the state directory today (people,
-- devices, grants, Telegram chats, away, push subscriptions), one row per file by its name.
-- version grows by one on each write, so a writer can refuse to overwrite a change it has not seen.
CREATE TABLE askbridge.documents (
  name text PRIMARY KEY,
  body jsonb NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- history: the finished asks, one line each as history.jsonl keeps them (src/history-file.ts), in
-- the order they were written.
CREATE TABLE askbridge.history (
  seq bigserial PRIMARY KEY,
  at timestamptz NOT NULL,
  line jsonb NOT NULL
);

-- audit: the audit trail, each line exactly as src/audit-file.ts seals it (its text is what the hash
-- chain covers, so it is kept as text, not re-serialised JSON); seq is the line's own sequence number.
CREATE TABLE askbridge.audit (
  seq bigint PRIMARY KEY,
  line text NOT NULL
);

-- daemons: which daemons use this store and when each was last seen alive (for doctor and status).
CREATE TABLE askbridge.daemons (
  id text PRIMARY KEY,
  url text NOT NULL,
  started_at timestamptz NOT NULL,
  seen_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE askbridge.daemons;
DROP TABLE askbridge.audit;
DROP TABLE askbridge.history;
DROP TABLE askbridge.documents;
DROP TABLE askbridge.asks;
