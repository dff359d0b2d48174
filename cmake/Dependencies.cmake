# Everything comes from Debian 12 packages (scripts/install-deps.sh installs them).
find_package(Boost 1.81.0 EXACT REQUIRED COMPONENTS url CONFIG)
find_package(OpenSSL 3 REQUIRED)
find_package(CURL REQUIRED)
find_package(LibXml2 REQUIRED)  # EC2's Query API answers in XML
find_package(nlohmann_json 3.11 REQUIRED)
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(PQXX REQUIRED IMPORTED_TARGET libpqxx)
# OpenLDAP's client library, for sign-in against an LDAP or Active Directory directory
# (web/auth/ldap_*); its ldap.pc brings lber.
pkg_check_modules(LDAP REQUIRED IMPORTED_TARGET ldap)
# The SSH serial consoles of Redfish BMCs (bmc/redfish/ssh_console), and the simulator's side.
pkg_check_modules(LIBSSH REQUIRED IMPORTED_TARGET libssh)

# Asio and Beast are compiled once, in their own translation units (inventory/util/asio_impl.cpp,
# web/beast_impl.cpp), instead of in every file that includes them.
add_library(ironhold_boost INTERFACE)
target_link_libraries(ironhold_boost INTERFACE Boost::headers Boost::url Threads::Threads)
target_compile_definitions(ironhold_boost INTERFACE
  BOOST_ASIO_SEPARATE_COMPILATION BOOST_BEAST_SEPARATE_COMPILATION
  BOOST_ASIO_NO_DEPRECATED BOOST_ASIO_DISABLE_BOOST_COROUTINE)
