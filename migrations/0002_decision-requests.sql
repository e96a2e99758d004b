-- Up Migration
-- requests: a decision a person sent to one daemon for an ask another daemon holds (its hook or relay
-- is connected there, so only that one can settle it). The daemon that got it writes the request and
-- tells the holder (NOTIFY askbridge); the holder decides it exactly as if it had been sent there,
-- writes the result, and tells the sender, whose reply to the person is that result. Answered
-- requests are removed by their sender once read; any left behind (a daemon gone in between) are
-- removed after a day by whichever daemon starts.
--   ask          the ask it is for (asks.id)
--   holder       the daemon it is sent to (daemons.id); sender: the daemon that got it
--   body         what the person sent and who they are (src/daemon/asks/person-decisions.ts)
--   result       null until the holder answered; then what the sender replies with
CREATE TABLE askbridge.requests (
  id bigserial PRIMARY KEY,
  ask uuid NOT NULL,
  holder text NOT NULL,
  sender text NOT NULL,
  body jsonb NOT NULL,
  result jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE askbridge.requests;
