#include "sys/heap_in_use.hpp"

#include <malloc.h>

#if defined(__SANITIZE_ADDRESS__)
#include <cstddef>
// From the sanitizers' allocator interface (compiler-rt's sanitizer/allocator_interface.h,
// which GCC does not install); libasan exports it.
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace gpukill {

std::uint64_t heap_bytes_in_use() {
#if defined(__SANITIZE_ADDRESS__)
    // The sanitizer's allocator answers malloc here; glibc's mallinfo2 would count only
    // what the sanitizer's own runtime took from glibc.
    return __sanitizer_get_current_allocated_bytes();
#else
    const struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#endif
}

}  // namespace gpukill
