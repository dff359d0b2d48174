// Beast compiled once for the whole program (BOOST_BEAST_SEPARATE_COMPILATION): the web server
// and the BMC HTTP client (bmc/http/) both parse HTTP with it.
#include <boost/beast/src.hpp>
