-- What a GPU operator is paged for (issue 31), on the readings the Redfish driver makes of a GPU's
-- health (bmc/redfish/normalize_gpu.hpp): an uncorrectable ECC error, an HBM row the GPU could not
-- remap, a PCIe link running narrower or slower than it can. Rules like the temperature ones of
-- migration 0016, so an admin can change or remove them per model (docs/alerts.md).
INSERT INTO alert_sensor_rules (kind, warning, critical, hysteresis)
SELECT v.kind, v.warning, v.critical, 0
  FROM (VALUES ('gpu_ecc_uncorrectable', NULL::double precision, 1::double precision),
               ('gpu_row_remap_failure', NULL, 1),
               ('gpu_pcie_link_downgrade', 1, NULL)) AS v (kind, warning, critical)
 WHERE NOT EXISTS (SELECT 1 FROM alert_sensor_rules r WHERE r.kind = v.kind AND r.model IS NULL);

-- A GPU that fell off the bus is missing from the next inspection's count. The count an owned
-- server had when it was first inspected with GPUs is kept, and an alert (gpu_missing) holds while
-- fewer answer. Set once by the trigger; NULL for nodes without GPUs and for cloud instances,
-- whose GPU count is their instance type's.
ALTER TABLE nodes ADD COLUMN gpus_expected integer CHECK (gpus_expected > 0);

CREATE OR REPLACE FUNCTION nodes_canonical_gpu() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.hardware := canonical_gpu_hardware(NEW.hardware, NEW.source, NEW.model);
  IF NEW.gpus_expected IS NULL AND NEW.source = 'bmc'
     AND jsonb_typeof(NEW.hardware -> 'gpu_count') = 'number'
     AND (NEW.hardware ->> 'gpu_count')::numeric > 0 THEN
    NEW.gpus_expected := (NEW.hardware ->> 'gpu_count')::numeric::integer;
  END IF;
  RETURN NEW;
END $$;

UPDATE nodes SET gpus_expected = (hardware ->> 'gpu_count')::numeric::integer
 WHERE source = 'bmc' AND retired_at IS NULL AND jsonb_typeof(hardware -> 'gpu_count') = 'number'
   AND (hardware ->> 'gpu_count')::numeric > 0;
