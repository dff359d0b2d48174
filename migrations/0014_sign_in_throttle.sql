-- Sign-in throttling against guessing: failed sign-ins counted per source (the client's address;
-- later also the user name tried), shared by every instance on the database. Five failures within
-- fifteen minutes block the source for 30 s, doubling with each further failure up to 15 minutes;
-- a successful sign-in clears it.
CREATE TABLE sign_in_failures (
  source           text PRIMARY KEY,   -- "peer:203.0.113.7", "user:alice"
  failures         integer NOT NULL DEFAULT 0,
  window_start     timestamptz NOT NULL DEFAULT now(),
  blocked_until    timestamptz
);
CREATE INDEX sign_in_failures_window ON sign_in_failures (window_start);
