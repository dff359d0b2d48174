-- One GPU catalogue across owned and rented capacity. A BMC says "NVIDIA H100 80GB HBM3", EC2
-- says "H100" for a p5.48xlarge, an OpenStack flavor says "h100:8": the same card under three
-- names, counted as three models until now. gpu_models holds the canonical models; every string a
-- driver gives (the GPU's own name, or a cloud instance type, which often says more than the GPU
-- name the provider reports) is an alias of one. The hardware summary's gpu_model becomes the
-- canonical name and gpu_model_raw keeps what the driver said; a string no alias maps keeps its
-- raw name as gpu_model, so nothing is lost, and GET /api/v1/gpu-models/unmapped lists it.

CREATE TABLE gpu_models (
  name        text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 200),
  vendor      text NOT NULL CHECK (length(vendor) BETWEEN 1 AND 100),
  family      text NOT NULL CHECK (length(family) BETWEEN 1 AND 100),
  model       text NOT NULL CHECK (length(model) BETWEEN 1 AND 100),
  memory_gib  numeric CHECK (memory_gib > 0 AND memory_gib < 100000),
  form_factor text NOT NULL CHECK (form_factor IN ('SXM', 'PCIe', 'OAM', 'other')),
  updated_by  text,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- The key strings are matched by: case and runs of white space do not tell two names apart.
CREATE FUNCTION gpu_alias_key(s text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT lower(regexp_replace(regexp_replace(s, '^\s+|\s+$', '', 'g'), '\s+', ' ', 'g'))
$$;

-- kind 'gpu': a GPU's name as a BMC, an IPMI FRU or a provider gives it; kind 'instance_type': a
-- cloud instance type or flavor, which is tried first for cloud nodes. An alias ending in '*'
-- is a prefix ("g5.*": every size of the family); the longest matching prefix wins, and an exact
-- alias beats every prefix.
CREATE TABLE gpu_model_aliases (
  kind       text NOT NULL CHECK (kind IN ('gpu', 'instance_type')),
  alias      text NOT NULL CHECK (length(alias) BETWEEN 1 AND 200 AND alias !~ '^\s*\*?\s*$'),
  alias_key  text GENERATED ALWAYS AS (gpu_alias_key(alias)) STORED,
  is_prefix  boolean GENERATED ALWAYS AS (right(alias, 1) = '*') STORED,
  model      text NOT NULL REFERENCES gpu_models (name) ON UPDATE CASCADE ON DELETE CASCADE,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, alias_key)
);
CREATE INDEX gpu_model_aliases_model ON gpu_model_aliases (model);

-- The canonical model a driver's string resolves to, or NULL when none does.
CREATE FUNCTION resolve_gpu_model(raw text, node_source text, node_model text) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  found text;
  k text;
BEGIN
  IF raw IS NULL THEN
    RETURN NULL;
  END IF;
  IF node_source = 'cloud' AND node_model IS NOT NULL THEN
    k := gpu_alias_key(node_model);
    SELECT a.model INTO found FROM gpu_model_aliases a
     WHERE a.kind = 'instance_type'
       AND (a.alias_key = k
            OR (a.is_prefix AND left(k, length(a.alias_key) - 1) = left(a.alias_key, -1)))
     ORDER BY a.is_prefix, length(a.alias_key) DESC LIMIT 1;
    IF found IS NOT NULL THEN
      RETURN found;
    END IF;
  END IF;
  k := gpu_alias_key(raw);
  SELECT m.name INTO found FROM gpu_models m WHERE gpu_alias_key(m.name) = k;
  IF found IS NOT NULL THEN
    RETURN found;
  END IF;
  SELECT a.model INTO found FROM gpu_model_aliases a
   WHERE a.kind = 'gpu'
     AND (a.alias_key = k
          OR (a.is_prefix AND left(k, length(a.alias_key) - 1) = left(a.alias_key, -1)))
   ORDER BY a.is_prefix, length(a.alias_key) DESC LIMIT 1;
  RETURN found;
END $$;

-- The hardware summary with gpu_model canonical and gpu_model_raw the driver's string. A summary
-- written before this migration has no gpu_model_raw: its gpu_model is the raw string.
CREATE FUNCTION canonical_gpu_hardware(hw jsonb, node_source text, node_model text)
RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
  raw text;
BEGIN
  IF hw IS NULL OR jsonb_typeof(hw) <> 'object' THEN
    RETURN hw;
  END IF;
  raw := CASE WHEN hw ? 'gpu_model_raw' THEN hw ->> 'gpu_model_raw' ELSE hw ->> 'gpu_model' END;
  IF raw IS NULL THEN
    RETURN hw || '{"gpu_model": null, "gpu_model_raw": null}'::jsonb;
  END IF;
  RETURN hw || jsonb_build_object('gpu_model',
                                  coalesce(resolve_gpu_model(raw, node_source, node_model), raw),
                                  'gpu_model_raw', raw);
END $$;

-- No path writes a hardware summary without it being resolved: inspections, cloud syncs and
-- imports all pass here. A catalogue change re-resolves the nodes with
-- canonical_gpu_hardware() itself (GpuCatalogueStore).
CREATE FUNCTION nodes_canonical_gpu() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.hardware := canonical_gpu_hardware(NEW.hardware, NEW.source, NEW.model);
  RETURN NEW;
END $$;
CREATE TRIGGER nodes_canonical_gpu BEFORE INSERT OR UPDATE OF hardware, model, source ON nodes
  FOR EACH ROW EXECUTE FUNCTION nodes_canonical_gpu();

-- The seed: data-centre GPUs and the names NVIDIA's own tools and BMCs give them (the product
-- name NVML reports, which BMCs repeat as Processors' Model), and the instance types of public
-- clouds whose GPU is known from the provider's documentation. Ambiguous names ("NVIDIA H100",
-- which is an SXM5 or a PCIe card) are deliberately not aliased: they stay unmapped until an
-- admin says which one a site's flavor or FRU means.
INSERT INTO gpu_models (name, vendor, family, model, memory_gib, form_factor) VALUES
  ('NVIDIA B200 SXM 180GB',     'NVIDIA', 'Blackwell',    'B200',     180, 'SXM'),
  ('NVIDIA H200 SXM 141GB',     'NVIDIA', 'Hopper',       'H200',     141, 'SXM'),
  ('NVIDIA H200 NVL 141GB',     'NVIDIA', 'Hopper',       'H200 NVL', 141, 'PCIe'),
  ('NVIDIA H100 SXM5 80GB',     'NVIDIA', 'Hopper',       'H100',      80, 'SXM'),
  ('NVIDIA H100 PCIe 80GB',     'NVIDIA', 'Hopper',       'H100',      80, 'PCIe'),
  ('NVIDIA H100 NVL 94GB',      'NVIDIA', 'Hopper',       'H100 NVL',  94, 'PCIe'),
  ('NVIDIA H800 SXM5 80GB',     'NVIDIA', 'Hopper',       'H800',      80, 'SXM'),
  ('NVIDIA H20 SXM 96GB',       'NVIDIA', 'Hopper',       'H20',       96, 'SXM'),
  ('NVIDIA A100 SXM4 80GB',     'NVIDIA', 'Ampere',       'A100',      80, 'SXM'),
  ('NVIDIA A100 SXM4 40GB',     'NVIDIA', 'Ampere',       'A100',      40, 'SXM'),
  ('NVIDIA A100 PCIe 80GB',     'NVIDIA', 'Ampere',       'A100',      80, 'PCIe'),
  ('NVIDIA A100 PCIe 40GB',     'NVIDIA', 'Ampere',       'A100',      40, 'PCIe'),
  ('NVIDIA A800 SXM4 80GB',     'NVIDIA', 'Ampere',       'A800',      80, 'SXM'),
  ('NVIDIA A10 24GB',           'NVIDIA', 'Ampere',       'A10',       24, 'PCIe'),
  ('NVIDIA A10G 24GB',          'NVIDIA', 'Ampere',       'A10G',      24, 'PCIe'),
  ('NVIDIA L40S 48GB',          'NVIDIA', 'Ada Lovelace', 'L40S',      48, 'PCIe'),
  ('NVIDIA L4 24GB',            'NVIDIA', 'Ada Lovelace', 'L4',        24, 'PCIe'),
  ('NVIDIA T4 16GB',            'NVIDIA', 'Turing',       'T4',        16, 'PCIe'),
  ('NVIDIA V100 SXM2 32GB',     'NVIDIA', 'Volta',        'V100',      32, 'SXM'),
  ('NVIDIA V100 SXM2 16GB',     'NVIDIA', 'Volta',        'V100',      16, 'SXM'),
  ('AMD Instinct MI300X 192GB', 'AMD',    'CDNA 3',       'MI300X',   192, 'OAM');

INSERT INTO gpu_model_aliases (kind, alias, model) VALUES
  ('gpu', 'NVIDIA B200',                'NVIDIA B200 SXM 180GB'),
  ('gpu', 'NVIDIA H200',                'NVIDIA H200 SXM 141GB'),
  ('gpu', 'NVIDIA H200 NVL',            'NVIDIA H200 NVL 141GB'),
  ('gpu', 'NVIDIA H100 80GB HBM3',      'NVIDIA H100 SXM5 80GB'),
  ('gpu', 'H100 80GB HBM3',             'NVIDIA H100 SXM5 80GB'),  -- a DGX H100's HGX baseboard
  ('gpu', 'NVIDIA H100 PCIe',           'NVIDIA H100 PCIe 80GB'),
  ('gpu', 'NVIDIA H100 NVL',            'NVIDIA H100 NVL 94GB'),
  ('gpu', 'NVIDIA H800',                'NVIDIA H800 SXM5 80GB'),
  ('gpu', 'NVIDIA A100-SXM4-80GB',      'NVIDIA A100 SXM4 80GB'),
  ('gpu', 'NVIDIA A100-SXM4-40GB',      'NVIDIA A100 SXM4 40GB'),
  ('gpu', 'NVIDIA A100 80GB PCIe',      'NVIDIA A100 PCIe 80GB'),
  ('gpu', 'NVIDIA A100-PCIE-40GB',      'NVIDIA A100 PCIe 40GB'),
  ('gpu', 'NVIDIA A800-SXM4-80GB',      'NVIDIA A800 SXM4 80GB'),
  ('gpu', 'NVIDIA A10',                 'NVIDIA A10 24GB'),
  ('gpu', 'NVIDIA A10G',                'NVIDIA A10G 24GB'),
  ('gpu', 'NVIDIA L40S',                'NVIDIA L40S 48GB'),
  ('gpu', 'NVIDIA L4',                  'NVIDIA L4 24GB'),
  ('gpu', 'Tesla T4',                   'NVIDIA T4 16GB'),
  ('gpu', 'NVIDIA T4',                  'NVIDIA T4 16GB'),
  ('gpu', 'Tesla V100-SXM2-32GB',       'NVIDIA V100 SXM2 32GB'),
  ('gpu', 'Tesla V100-SXM2-16GB',       'NVIDIA V100 SXM2 16GB'),
  ('gpu', 'AMD Instinct MI300X',        'AMD Instinct MI300X 192GB'),
  ('instance_type', 'p6-b200.48xlarge', 'NVIDIA B200 SXM 180GB'),
  ('instance_type', 'p5en.48xlarge',    'NVIDIA H200 SXM 141GB'),
  ('instance_type', 'p5e.48xlarge',     'NVIDIA H200 SXM 141GB'),
  ('instance_type', 'p5.48xlarge',      'NVIDIA H100 SXM5 80GB'),
  ('instance_type', 'p4de.24xlarge',    'NVIDIA A100 SXM4 80GB'),
  ('instance_type', 'p4d.24xlarge',     'NVIDIA A100 SXM4 40GB'),
  ('instance_type', 'p3dn.24xlarge',    'NVIDIA V100 SXM2 32GB'),
  ('instance_type', 'p3.*',             'NVIDIA V100 SXM2 16GB'),
  ('instance_type', 'g6e.*',            'NVIDIA L40S 48GB'),
  ('instance_type', 'g6.*',             'NVIDIA L4 24GB'),
  ('instance_type', 'g5.*',             'NVIDIA A10G 24GB'),
  ('instance_type', 'g4dn.*',           'NVIDIA T4 16GB');

-- Every node's summary resolved once (the trigger does it; retired nodes keep what they had).
UPDATE nodes SET hardware = hardware
 WHERE retired_at IS NULL AND jsonb_typeof(hardware) = 'object' AND hardware ? 'gpu_model';
