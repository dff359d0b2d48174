-- An NVSwitch of an HGX tray that counts an uncorrectable ECC error in its internal memory has
-- corrupted, or will drop, NVLink traffic of every GPU behind it: a GPU operator is paged for it as
-- for a GPU's (migration 0025). The readings are the Redfish driver's
-- (bmc/redfish/normalize_switches.hpp); an admin can change or remove the rule per model
-- (docs/alerts.md).
INSERT INTO alert_sensor_rules (kind, warning, critical, hysteresis)
SELECT v.kind, v.warning, v.critical, 0
  FROM (VALUES ('nvswitch_ecc_uncorrectable', NULL::double precision, 1::double precision),
               ('nvswitch_pcie_fatal_errors', 1, NULL)) AS v (kind, warning, critical)
 WHERE NOT EXISTS (SELECT 1 FROM alert_sensor_rules r WHERE r.kind = v.kind AND r.model IS NULL);
