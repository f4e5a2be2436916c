// The heap this process has allocated and not yet freed, in bytes, as the allocator
// linked into it counts: glibc's malloc (every arena, mmapped chunks included) or, in a
// sanitizer build, the sanitizer's allocator, which replaces malloc there.
//
// Unlike the resident set, this moves only when memory is held: an allocator keeps freed
// pages resident and grows its free lists to each new high-water mark, so a resident set
// rises a little over hours with nothing leaking; a leak is heap that stays in use.
#pragma once

#include <cstdint>

namespace gpukill {

std::uint64_t heap_bytes_in_use();

}  // namespace gpukill
