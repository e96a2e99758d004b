-- Up Migration
-- History and the audit trail, shared. Each daemon still writes its own history.jsonl and audit.jsonl
-- first (the record it keeps when the store cannot be reached), then copies every line here, and
-- again after the store was away: so every daemon's `askbridge history`, `askbridge audit` and page
-- show the lines of all. The two tables of the first schema were never written to; they are made
-- again with what a copy needs: which daemon wrote a line, and a key that makes copying it twice a
-- no-op.

DROP TABLE askbridge.history;
DROP TABLE askbridge.audit;

-- history: the finished asks of every daemon, each line as its history.jsonl has it (src/history-file.ts).
--   daemon     the daemon that wrote it (daemons.id)
--   digest     the SHA-256 of the line's text in that file: the same line copied again is not added
--   at         its finishedAt, the order history is read in
CREATE TABLE askbridge.history (
  seq bigserial PRIMARY KEY,
  daemon text NOT NULL,
  digest text NOT NULL,
  at timestamptz NOT NULL,
  line jsonb NOT NULL,
  UNIQUE (daemon, digest)
);
CREATE INDEX history_at ON askbridge.history (at DESC, seq DESC);

-- audit: every daemon's audit trail, each line exactly as src/audit-file.ts sealed it (its text is
-- what the hash chain and the MAC cover, so it is kept as text, not re-serialised JSON).
--   trail      the SHA-256 of the trail's first line: one trail's lines, whichever daemon copied them
--   seq        the line's own sequence number in its trail
--   daemon     the daemon that copied it (daemons.id)
--   at         the line's own time, the order the trails are read in together
CREATE TABLE askbridge.audit (
  trail text NOT NULL,
  seq bigint NOT NULL,
  daemon text NOT NULL,
  at timestamptz NOT NULL,
  line text NOT NULL,
  PRIMARY KEY (trail, seq)
);
CREATE INDEX audit_at ON askbridge.audit (at, trail, seq);

-- Down Migration
DROP TABLE askbridge.audit;
DROP TABLE askbridge.history;
CREATE TABLE askbridge.history (
  seq bigserial PRIMARY KEY,
  at timestamptz NOT NULL,
  line jsonb NOT NULL
);
CREATE TABLE askbridge.audit (
  seq bigint PRIMARY KEY,
  line text NOT NULL
);
