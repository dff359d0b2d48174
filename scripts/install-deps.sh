#!/usr/bin/env bash
# Installs what Ironhold needs to build, test and run on Debian 12, and nothing that is already there.
# Idempotent; prints what it does. Run as root (or through sudo).
set -euo pipefail

say() { printf 'install-deps: %s\n' "$*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then exec sudo -E "$0" "$@"; fi
  say "must run as root (apt-get)"; exit 1
fi

# Debian packages, in two groups. Boost is pinned to 1.81: its packages conflict with the default
# 1.74 ones, so never ask for an unversioned libboost-*-dev.
#
# What configuring and compiling needs:
build_packages=(
  build-essential cmake pkg-config ninja-build
  # mold links the sanitized test executables in seconds where ld.bfd/gold take most of a minute each.
  mold
  libboost1.81-dev libboost-url1.81-dev
  libssl-dev libcurl4-openssl-dev nlohmann-json3-dev libpqxx-dev catch2
  # EC2 answers in XML (libxml2).
  libxml2-dev
  # The SSH serial consoles of Redfish BMCs, and the simulator's SSH server.
  libssh-dev
  # Sign-in against an LDAP or Active Directory directory (OpenLDAP's client library).
  libldap-dev
  ca-certificates
)
# What the service and the tests run, not the compiler: scripts/test.sh installs these while the
# build compiles (Chromium alone is most of the download).
run_packages=(
  postgresql-15 postgresql-client-15
  # PgBouncer, which tests/app/pgbouncer_test.cpp runs Ironhold through in transaction mode (the
  # test starts its own on a free loopback port; the service the package enables has no databases).
  pgbouncer
  # Test peers: OpenIPMI's BMC simulator (ipmi_sim; its start script needs python3), and two
  # reference IPMI clients that Ironhold's own simulator is checked with: ipmitool and FreeIPMI.
  openipmi ipmitool freeipmi-tools python3
  # The reference SSH client the simulator's SSH serial console is checked with (ssh, ssh-keygen,
  # ssh-keyscan).
  openssh-client
  # The openssl tool: an independent signer of the JWTs the OIDC tests verify, and the CA that
  # signs the test directory's certificates.
  openssl
  # A real directory server for the LDAP sign-in tests (slapd; ldapsearch and ldapadd load and
  # read it). Its package enables a system service the tests never use: they start their own.
  slapd ldap-utils
  # Independent clients the cloud simulators and signers are checked with: botocore (SigV4
  # oracle, EC2 client) and openstacksdk.
  python3-botocore python3-openstacksdk
  # The console's browser tests (tests/browser/) drive Debian's headless Chromium (/usr/bin/chromium).
  chromium
)

# `install-deps.sh` installs both groups; `install-deps.sh build` or `install-deps.sh run` one.
case "${1:-all}" in
  all) packages=("${build_packages[@]}" "${run_packages[@]}") ;;
  build) packages=("${build_packages[@]}") ;;
  run) packages=("${run_packages[@]}") ;;
  *) say "usage: $0 [all|build|run]"; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

# Tools are installed only when the machine has none: a node/npm already present is never replaced.
# Node is in the build group: configuring finds it for the browser tests.
need_tool() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
if [ "${1:-all}" != run ]; then
  need_tool node nodejs
  need_tool npm npm
fi

if [ ${#missing[@]} -eq 0 ]; then
  say "all packages present"
  exit 0
fi

say "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# The Debian postgresql package would create and start a system cluster; Ironhold runs its own.
mkdir -p /etc/postgresql-common
if [ ! -f /etc/postgresql-common/createcluster.conf ] || ! grep -q '^create_main_cluster *= *false' /etc/postgresql-common/createcluster.conf; then
  echo 'create_main_cluster = false' >> /etc/postgresql-common/createcluster.conf
fi
# Nor should slapd's package configure a directory and start it on port 389: the LDAP tests run
# their own slapd on loopback.
if printf '%s\n' "${missing[@]}" | grep -qx slapd; then
  echo 'slapd slapd/no_configuration boolean true' | debconf-set-selections
fi
# The package lists are read again unless a run of this script (the build group's, just before)
# already did so in the last ten minutes.
if ! find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -newermt '-10 minutes' 2>/dev/null | grep -q .; then
  apt-get update -q >&2
fi
apt-get install -y -q --no-install-recommends -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}" >&2
say "done"
