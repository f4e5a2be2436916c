#include "model/snapshot.hpp"

namespace gpukill {

bool looks_orphaned(const ProcessInfo& info) {
    return info.ppid == 1 && info.pid != info.sid && !info.kernel_thread;
}

}  // namespace gpukill
