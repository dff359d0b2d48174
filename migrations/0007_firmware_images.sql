-- Firmware images, kept in PostgreSQL so that every instance can serve them to BMCs. An upload is
-- streamed in 1 MiB chunks as it arrives; the image becomes `ready` once its size and SHA-256 are
-- known (and match what the uploader said). An unfinished upload leaves an `uploading` row that
-- housekeeping removes.
CREATE TABLE firmware_images (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  version     text NOT NULL CHECK (length(version) BETWEEN 1 AND 64),
  component   text NOT NULL CHECK (length(component) BETWEEN 1 AND 64),  -- "BMC", "BIOS", "GPU"
  model       text,                    -- the server model it is for; NULL: any
  state       text NOT NULL DEFAULT 'uploading' CHECK (state IN ('uploading', 'ready')),
  size        bigint NOT NULL DEFAULT 0 CHECK (size >= 0),
  sha256      text,                    -- lower-case hex, once ready
  uploaded_by text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  ready_at    timestamptz,
  CHECK (state = 'uploading' OR (sha256 IS NOT NULL AND size > 0))
);
CREATE INDEX firmware_images_listing ON firmware_images (created_at DESC, id DESC) WHERE state = 'ready';

CREATE TABLE firmware_image_chunks (
  image_id uuid NOT NULL REFERENCES firmware_images (id) ON DELETE CASCADE,
  seq      integer NOT NULL CHECK (seq >= 0),
  data     bytea NOT NULL,
  PRIMARY KEY (image_id, seq)
);
-- Chunks are already compressed firmware: PostgreSQL's compression would only cost time.
ALTER TABLE firmware_image_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
