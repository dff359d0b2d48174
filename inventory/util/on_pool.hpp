#pragma once
// Blocking work (libpqxx calls) off the event loop: runs on a thread pool and the awaiting
// coroutine resumes on its own executor with the result, or the exception the work threw.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <type_traits>
#include <utility>

namespace ironhold {

namespace on_pool_detail {
template <class Fn>
boost::asio::awaitable<std::invoke_result_t<Fn>> run(Fn fn) {
  co_return fn();
}
}  // namespace on_pool_detail

// Not itself a coroutine: the work is a parameter of run()'s frame, never a temporary inside a
// co_await expression (which GCC 12 mishandles).
template <class Fn>
boost::asio::awaitable<std::invoke_result_t<Fn>> on_pool(boost::asio::thread_pool& pool, Fn fn) {
  return boost::asio::co_spawn(pool.get_executor(), on_pool_detail::run(std::move(fn)),
                               boost::asio::use_awaitable);
}

}  // namespace ironhold
