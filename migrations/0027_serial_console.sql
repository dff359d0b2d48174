-- The serial consoles of owned servers (IPMI Serial-over-LAN, a BMC's SSH console): who had
-- which node's console, when, for how long, whether they could type; and what the host printed,
-- kept for --console-log-days so that an operator can read what a node printed before it died.
-- ("Console sessions" of migration 0009 are the browser's sign-in sessions, another thing.)
CREATE TABLE serial_console_sessions (
  id          bigserial PRIMARY KEY,
  node_id     uuid NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  project     text NOT NULL,
  principal   text NOT NULL,          -- the user or token that opened it
  writer      boolean NOT NULL,       -- could type (one writer per node at a time)
  protocol    text NOT NULL,          -- "ipmi-sol", "ssh"
  opened_at   timestamptz NOT NULL DEFAULT now(),
  closed_at   timestamptz,
  end_reason  text,
  bytes_in    bigint NOT NULL DEFAULT 0,  -- typed by this viewer
  bytes_out   bigint NOT NULL DEFAULT 0   -- shown to this viewer
);
CREATE INDEX serial_console_sessions_node ON serial_console_sessions (node_id, opened_at DESC);

-- Output in the order it came, a chunk per row (a line or a burst); `seq` orders chunks of one
-- node, `at` is when the console received them.
CREATE TABLE serial_console_log (
  node_id  uuid NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  seq      bigserial,
  at       timestamptz NOT NULL DEFAULT now(),
  data     bytea NOT NULL CHECK (length(data) BETWEEN 1 AND 65536),
  PRIMARY KEY (node_id, seq)
);
CREATE INDEX serial_console_log_at ON serial_console_log (at);
