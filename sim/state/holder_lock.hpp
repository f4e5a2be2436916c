#pragma once
// Who still holds an allocation, decided by the kernel.
//
// The driver frees a context's memory when the last descriptor of the open file that created
// it is closed, whichever process closes it: forked DataLoader workers that inherited the
// descriptor keep the memory after their parent dies. Open file description (OFD) locks have
// exactly that lifetime: they belong to the open file description, are shared across fork and
// are released only when its last descriptor is closed. So each allocation locks one byte
// (its id) of DIR/gpusim/holders.lock through a descriptor that the workload and its workers
// keep open; anyone can test the byte from a descriptor of their own. No daemon, no polling.

#include <cstdint>

#include "state/error.hpp"

namespace gpusim {

// Locks byte `offset` of `fd` (opened for writing) for its open file description.
Result<void> hold_byte(int fd, std::uint64_t offset);

// Whether some other open file description holds a holder's lock (hold_byte) on byte
// `offset` of the file behind `fd`. Errors count as held: the memory stays accounted rather
// than vanishing.
bool byte_is_held(int fd, std::uint64_t offset);

// Takes a read lock on byte `offset` for `fd`'s open file description, which succeeds only
// when no holder is left; while it is kept, nobody can become a holder of that byte. False
// when the byte is held or on error. Closing the description releases it.
bool claim_free_byte(int fd, std::uint64_t offset);

}  // namespace gpusim
