-- The SSH host key of a BMC's SSH serial console ("SHA256:" + unpadded base64, as OpenSSH prints
-- it), pinned at the first console session like the BMC's TLS certificate (tls_fingerprint): a BMC
-- that later presents another key gets no password. Cleared by a repin and by a change of endpoint.
ALTER TABLE nodes ADD COLUMN ssh_host_key text
  CHECK (ssh_host_key ~ '^SHA256:[A-Za-z0-9+/]{43}$');
