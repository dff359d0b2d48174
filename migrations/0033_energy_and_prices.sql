-- The cost report's inputs (GET /api/v1/cost).
--
-- Energy: what each owned server drew from the wall, integrated per hour. A poll that reads the
-- node's input power (InputPower: a chassis total, else its power supplies' input) calls
-- record_node_power(); the power last read holds until the next reading, for at most 15 minutes
-- (a node whose BMC stopped answering has no measured energy for that time, rather than a guess
-- carried over hours). Hours are kept as long as the history is, unlike the sensor readings
-- (30 days by default): a report on last year's energy reads these rows.

CREATE TABLE node_power_latest (
  node_id uuid PRIMARY KEY,
  read_at timestamptz NOT NULL,
  watts   double precision NOT NULL CHECK (watts >= 0),
  source  text NOT NULL
);

CREATE TABLE node_energy_hourly (
  node_id  uuid NOT NULL,
  hour     timestamptz NOT NULL CHECK (hour = date_trunc('hour', hour)),
  joules   double precision NOT NULL CHECK (joules >= 0),  -- watt-seconds measured in the hour
  seconds  double precision NOT NULL CHECK (seconds >= 0 AND seconds <= 3600.001),  -- covered
  PRIMARY KEY (node_id, hour)
);

-- Adds the energy since the node's last reading (at its power then) to the hours it spans, and
-- keeps this reading as the last. A reading older than the last one (a slow transaction
-- committing after a newer one) adds nothing and keeps the newer.
CREATE FUNCTION record_node_power(node uuid, at timestamptz, w double precision, src text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  last node_power_latest;
BEGIN
  SELECT * INTO last FROM node_power_latest WHERE node_id = node FOR UPDATE;
  IF FOUND AND last.read_at >= at THEN
    RETURN;
  END IF;
  IF FOUND AND at - last.read_at <= interval '15 minutes' THEN
    INSERT INTO node_energy_hourly (node_id, hour, joules, seconds)
    SELECT node, h,
           last.watts * extract(epoch FROM least(at, h + interval '1 hour') - greatest(last.read_at, h)),
           extract(epoch FROM least(at, h + interval '1 hour') - greatest(last.read_at, h))
      FROM generate_series(date_trunc('hour', last.read_at), at, interval '1 hour') h
     WHERE least(at, h + interval '1 hour') > greatest(last.read_at, h)
    ON CONFLICT (node_id, hour) DO UPDATE
      SET joules = node_energy_hourly.joules + EXCLUDED.joules,
          seconds = least(3600, node_energy_hourly.seconds + EXCLUDED.seconds);
  END IF;
  INSERT INTO node_power_latest (node_id, read_at, watts, source) VALUES (node, at, w, src)
  ON CONFLICT (node_id) DO UPDATE
    SET read_at = EXCLUDED.read_at, watts = EXCLUDED.watts, source = EXCLUDED.source;
END $$;

-- Prices, as data an admin keeps. Each kind is a list of versions: a price holds from its
-- effective_from (a whole hour, UTC) until the next one for the same key, so that a report over
-- any period prices each hour at what was in force then. Prices are added, and removed when
-- entered by mistake; never changed in place. Every change is audited. All prices share one
-- currency (the first price's; another is refused), so that owned and rented costs add up.

-- An owned server model (nodes.model, as its inventory reports it): what it cost, over how many
-- months it is written off from its enrolment, what hosting it (rack, network, support) costs a
-- month, and its rated draw, for a node with no power readings (its energy is then flagged as
-- estimated).
CREATE TABLE server_prices (
  id                  bigserial UNIQUE,
  model               text NOT NULL CHECK (length(model) BETWEEN 1 AND 200),
  effective_from      timestamptz NOT NULL CHECK (effective_from = date_trunc('hour', effective_from)),
  currency            text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  purchase_price      numeric NOT NULL CHECK (purchase_price >= 0 AND purchase_price < 1e12),
  depreciation_months integer NOT NULL CHECK (depreciation_months BETWEEN 1 AND 240),
  hosting_per_month   numeric NOT NULL CHECK (hosting_per_month >= 0 AND hosting_per_month < 1e12),
  rated_watts         numeric NOT NULL CHECK (rated_watts > 0 AND rated_watts < 1e6),
  created_by          text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (model, effective_from)
);

-- Energy per kWh at a site (nodes.site); site '*' prices every site that has no price of its own.
CREATE TABLE energy_prices (
  id             bigserial UNIQUE,
  site           text NOT NULL CHECK (length(site) BETWEEN 1 AND 200),
  effective_from timestamptz NOT NULL CHECK (effective_from = date_trunc('hour', effective_from)),
  currency       text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  per_kwh        numeric NOT NULL CHECK (per_kwh >= 0 AND per_kwh < 1e6),
  created_by     text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (site, effective_from)
);

-- A cloud instance type's price per hour running, per provider and region (the cloud account's);
-- region '*' prices every region that has no price of its own.
CREATE TABLE instance_prices (
  id             bigserial UNIQUE,
  provider       text NOT NULL CHECK (length(provider) BETWEEN 1 AND 50),
  region         text NOT NULL CHECK (length(region) BETWEEN 1 AND 100),
  instance_type  text NOT NULL CHECK (length(instance_type) BETWEEN 1 AND 200),
  effective_from timestamptz NOT NULL CHECK (effective_from = date_trunc('hour', effective_from)),
  currency       text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  per_hour       numeric NOT NULL CHECK (per_hour >= 0 AND per_hour < 1e9),
  created_by     text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, region, instance_type, effective_from)
);
