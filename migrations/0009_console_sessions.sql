-- Console sign-in: a browser trades an API token for a session whose secret lives only in an
-- HttpOnly cookie (stored here as its SHA-256). The session acts with its token's role, and ends
-- when the token is revoked or expires, when it is signed out, after its idle time, or at its
-- absolute end. Mutating requests made with the cookie must carry the session's CSRF token.

CREATE TABLE console_sessions (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  secret_hash  bytea NOT NULL UNIQUE,
  csrf_token   text NOT NULL,
  token_id     uuid NOT NULL REFERENCES api_tokens (id) ON DELETE CASCADE,
  peer         text,
  user_agent   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  ended_at     timestamptz
);
CREATE INDEX console_sessions_token ON console_sessions (token_id);
