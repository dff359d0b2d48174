// Asio's SSL support compiled once for the whole program (BOOST_ASIO_SEPARATE_COMPILATION); the
// simulators use it today, the service's own TLS later.
#include <boost/asio/ssl/impl/src.hpp>
