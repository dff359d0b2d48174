-- Boot images: ISOs a BMC mounts as virtual media to reinstall a server (a reprovision with
-- "via": "virtual-media"), kept like firmware images (the same upload, chunks, signed URLs), in
-- the same table with a kind of their own so that neither list nor task mixes them up.
ALTER TABLE firmware_images ADD COLUMN kind text NOT NULL DEFAULT 'firmware'
  CHECK (kind IN ('firmware', 'boot'));
DROP INDEX firmware_images_listing;
CREATE INDEX firmware_images_listing ON firmware_images (kind, created_at DESC, id DESC)
  WHERE state = 'ready';
