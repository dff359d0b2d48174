-- Network discovery runs (POST /api/v1/discovery) and what each found. A run has the shape of a
-- task (kind, parameters, state, requested_by, lease, times) so that the general task table can
-- absorb it later. Credentials given to enroll are held in memory by the instance running the run
-- and never written here.

CREATE TABLE discovery_runs (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  state            text NOT NULL DEFAULT 'queued'
                   CHECK (state IN ('queued', 'running', 'succeeded', 'failed')),
  parameters       jsonb NOT NULL CHECK (jsonb_typeof(parameters) = 'object'),
  address_count    integer NOT NULL CHECK (address_count > 0),
  probed           integer NOT NULL DEFAULT 0,
  found            integer NOT NULL DEFAULT 0,
  enrolled         integer NOT NULL DEFAULT 0,
  already_enrolled integer NOT NULL DEFAULT 0,
  errors           integer NOT NULL DEFAULT 0,
  error            text,             -- why a failed run failed
  requested_by     text NOT NULL,    -- the token's name
  requested_by_id  text,
  request_id       text,
  -- The instance running it renews the lease; a run whose lease ran out was interrupted (the
  -- instance stopped or died) and is marked failed by whoever sees it next.
  lease_owner      text,
  lease_expires    timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  started_at       timestamptz,
  finished_at      timestamptz
);
CREATE INDEX discovery_runs_created ON discovery_runs (created_at DESC, id DESC);
CREATE INDEX discovery_runs_open ON discovery_runs (lease_expires) WHERE state IN ('queued', 'running');

-- One row per address that answered as a BMC or failed in a way worth reporting.
CREATE TABLE discovery_results (
  run_id    uuid NOT NULL REFERENCES discovery_runs (id) ON DELETE CASCADE,
  seq       integer NOT NULL,  -- the address's position in the sweep
  address   text NOT NULL,
  port      integer NOT NULL CHECK (port BETWEEN 1 AND 65535),
  driver    text CHECK (driver IN ('redfish', 'ipmi')),
  endpoint  text,
  status    text NOT NULL CHECK (status IN ('found', 'enrolled', 'already_enrolled', 'error')),
  node_id   uuid,              -- no foreign key: purging a node must not rewrite a run
  node_name text,
  detail    text NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, seq)
);

-- "Already enrolled" is a node in service with the same canonical endpoint.
CREATE INDEX nodes_endpoint_active ON nodes (endpoint) WHERE retired_at IS NULL;
