// Asio compiled once for the whole program (BOOST_ASIO_SEPARATE_COMPILATION), instead of in every
// translation unit that includes it: the biggest saving in build time on two cores.
#include <boost/asio/impl/src.hpp>
