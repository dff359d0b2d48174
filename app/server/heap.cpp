#include "app/server/heap.hpp"

#include <malloc.h>

namespace ironhold::app {

void release_free_heap() {
  malloc_trim(0);
}

}  // namespace ironhold::app
