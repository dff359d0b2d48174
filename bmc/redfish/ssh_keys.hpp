#pragma once
// SSH host keys as operators compare them: the fingerprint OpenSSH prints (`ssh-keygen -lf`,
// the "key fingerprint is" line of `ssh`): "SHA256:" and the unpadded base64 of the SHA-256 of
// the public key blob. The SSH serial console pins it; the simulator shows its own.
#include <libssh/libssh.h>

#include <string>

namespace ironhold::bmc::redfish {

// Empty when libssh cannot hash the key.
std::string ssh_key_fingerprint(const ssh_key key);

// Makes libssh ready once per process (its crypto backend); thread-safe.
void ensure_libssh_initialized();

}  // namespace ironhold::bmc::redfish
