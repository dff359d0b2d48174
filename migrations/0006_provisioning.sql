-- Reprovisioning owned servers over PXE. A reprovision task opens a session for its node; the
-- node's installer finds it by MAC address (GET /api/v1/provisioning/ipxe?mac=...), and the
-- script it gets carries a one-time call-back token. Only the token's SHA-256 is kept, and only
-- the last script's token is valid; the installer's call-back (POST /api/v1/provisioning/callback)
-- ends the session, which the task is waiting on.
CREATE TABLE provisioning_sessions (
  task_id        uuid PRIMARY KEY REFERENCES tasks (id) ON DELETE CASCADE,
  node_id        uuid NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  node_name      text NOT NULL,
  macs           text[] NOT NULL CHECK (cardinality(macs) > 0),  -- "aa:bb:cc:dd:ee:ff"
  image          text NOT NULL,
  -- waiting: no script fetched yet; booted: a script was served (its token is valid);
  -- succeeded / failed: the installer called back; closed: the task ended without that.
  state          text NOT NULL DEFAULT 'waiting'
                 CHECK (state IN ('waiting', 'booted', 'succeeded', 'failed', 'closed')),
  token_hash     bytea,
  script_fetches integer NOT NULL DEFAULT 0,
  script_fetched_at timestamptz,
  fetched_by     text,            -- the MAC the script was asked for, and from which address
  called_back_at timestamptz,
  message        text,            -- what the installer said, or why the session closed
  report         jsonb,           -- the installer's call-back body, less the token
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL
);
-- One open session per node (the node lock allows one reprovision at a time anyway), found by
-- any of its MAC addresses, and by its token.
CREATE UNIQUE INDEX provisioning_open_node ON provisioning_sessions (node_id)
  WHERE state IN ('waiting', 'booted');
CREATE INDEX provisioning_open_macs ON provisioning_sessions USING gin (macs)
  WHERE state IN ('waiting', 'booted');
CREATE UNIQUE INDEX provisioning_token ON provisioning_sessions (token_hash)
  WHERE token_hash IS NOT NULL;
