-- Every export's manifest: what was asked, by whom, and once the body has been sent in full, how
-- many rows it had and the SHA-256 of its bytes, with the audit chain's head at the export (its own
-- audit entry included), so that an auditor can later prove what was exported.
CREATE TABLE export_manifests (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind             text NOT NULL CHECK (kind IN ('assets', 'firmware')),
  format           text NOT NULL CHECK (format IN ('csv', 'json', 'ndjson')),
  parameters       jsonb NOT NULL DEFAULT '{}',
  requested_by     text NOT NULL,
  requested_by_id  text,
  requested_at     timestamptz NOT NULL DEFAULT now(),
  state            text NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'complete', 'failed')),
  completed_at     timestamptz,
  rows             bigint,
  sha256           text CHECK (sha256 IS NULL OR sha256 ~ '^[0-9a-f]{64}$'),
  failure          text,
  audit_head_seq   bigint NOT NULL,
  audit_head_mac   text NOT NULL
);
CREATE INDEX export_manifests_requested ON export_manifests (requested_at);
