#pragma once
// Gives the heap's free memory back to the system. glibc's malloc returns a freed page only from
// the top of an arena; a poll sweep's documents, freed in another order than they came, leave
// tens of megabytes free inside the arenas but counted in the RSS (bench/fleet_poll, 10,000 BMCs:
// 497 MiB before malloc_trim, 412 MiB after, with 373 MB in use).
namespace ironhold::app {

// malloc_trim(0): every arena's free pages back to the system. Takes the arenas' locks for some
// milliseconds: call it from the blocking pool, now and then.
void release_free_heap();

}  // namespace ironhold::app
