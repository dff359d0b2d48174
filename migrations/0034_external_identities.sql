-- People who sign in through the organisation's directory (LDAP or Active Directory) or its
-- identity provider (OIDC) instead of with a password kept here. Their row is made at their first
-- sign-in, named as the directory names them. Their roles follow their directory groups (or
-- their ID token's claim) at every sign-in: the grants marked granted_by 'directory:ldap' or
-- 'directory:oidc' are replaced each time, and grants an admin made by hand stay. Local users,
-- with a password hash, remain for break-glass.
ALTER TABLE users ADD COLUMN source text NOT NULL DEFAULT 'local'
  CHECK (source IN ('local', 'ldap', 'oidc'));
-- The directory's name for the person: the LDAP entry's DN, or the OIDC issuer and subject.
ALTER TABLE users ADD COLUMN external_id text CHECK (length(external_id) <= 2000);
ALTER TABLE users ALTER COLUMN password_hash DROP NOT NULL;
ALTER TABLE users ADD CONSTRAINT users_local_or_external
  CHECK ((source = 'local') = (password_hash IS NOT NULL)
         AND (source = 'local') = (external_id IS NULL));
CREATE UNIQUE INDEX users_external ON users (source, external_id) WHERE external_id IS NOT NULL;

-- Console sign-ins through OIDC under way: the SHA-256 of the state sent to the provider, so that
-- each callback is answered once and within ten minutes. The PKCE verifier and the nonce are
-- derived from the state under a key only this service has, so nothing secret is kept here.
CREATE TABLE oidc_sign_ins (
  state_hash text PRIMARY KEY CHECK (state_hash ~ '^[0-9a-f]{64}$'),
  return_to  text NOT NULL DEFAULT '/' CHECK (length(return_to) <= 500),
  created_at timestamptz NOT NULL DEFAULT now()
);
