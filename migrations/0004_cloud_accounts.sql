-- Cloud accounts (OpenStack projects, EC2 and BCC accounts per region): enrolled once, synced on a
-- schedule. Every instance an account holds is a node with source = 'cloud', driver = the
-- provider and provider_id = the instance id. Deleting an account retires its nodes and marks the
-- account deleted; both rows stay, so the nodes' history keeps its account.

CREATE TABLE cloud_accounts (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name               text NOT NULL
                     CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$'
                            AND name !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'),
  provider           text NOT NULL CHECK (provider IN ('openstack', 'ec2', 'bcc')),
  endpoint           text,              -- Keystone auth URL, or an EC2/BCC endpoint override
  region             text NOT NULL DEFAULT '',
  options            jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(options) = 'object'),
  -- The credentials, AES-256-GCM under the master key like BMC credentials; the account id is the
  -- additional authenticated data. Write-only in the API.
  key_id             text NOT NULL,
  sealed             bytea NOT NULL,    -- nonce (12) || ciphertext || tag (16)
  sync_interval_s    integer NOT NULL DEFAULT 300 CHECK (sync_interval_s BETWEEN 30 AND 86400),
  -- The sync schedule, leased like the poll schedule so several instances share the accounts.
  next_sync          timestamptz NOT NULL DEFAULT now(),
  lease_owner        text,
  lease_expires      timestamptz,
  last_sync_started  timestamptz,
  last_sync_at       timestamptz,       -- the last successful full listing
  last_sync_duration_ms double precision,
  last_error         text,              -- a stable code (auth_failed, unreachable, ...) or NULL
  last_error_message text,
  sync_failures      integer NOT NULL DEFAULT 0,  -- consecutive; reset by a success
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  deleted_at         timestamptz
);
CREATE UNIQUE INDEX cloud_accounts_name_active ON cloud_accounts (name) WHERE deleted_at IS NULL;
CREATE INDEX cloud_accounts_due ON cloud_accounts (next_sync) WHERE deleted_at IS NULL;

ALTER TABLE nodes ADD COLUMN cloud_account_id uuid REFERENCES cloud_accounts (id);
-- One node in service per instance of an account; a retired one keeps its provider_id.
CREATE UNIQUE INDEX nodes_cloud_instance ON nodes (cloud_account_id, provider_id)
  WHERE retired_at IS NULL AND cloud_account_id IS NOT NULL;
CREATE INDEX nodes_cloud_account ON nodes (cloud_account_id) WHERE cloud_account_id IS NOT NULL;
