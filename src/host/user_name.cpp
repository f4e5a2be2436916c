// user_name: uid -> account name through NSS (getpwuid_r, reentrant). Names are cached
// because a process table holds the same few uids thousands of times and each NSS
// lookup may read /etc/passwd or ask a directory service. An entry lives kNameLifetime:
// a long-running caller (the guard loop, later the agent) sees an account created,
// renamed or removed after it started, and a host cycling through many uids cannot
// grow the cache past kMaxNames.
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "host/proc_reader.hpp"

namespace gpukill {
namespace {

struct Lookup {
    std::string name;
    bool definitive = false;  // found, or NSS said there is no such account
};

Lookup lookup(uid_t uid) {
    const long suggested = ::sysconf(_SC_GETPW_R_SIZE_MAX);
    std::vector<char> buffer(suggested > 0 ? static_cast<std::size_t>(suggested) : 1024);
    while (true) {
        passwd entry{};
        passwd* result = nullptr;
        const int rc = ::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &result);
        if (rc == ERANGE && buffer.size() < (1U << 20)) {
            buffer.resize(buffer.size() * 2);
            continue;
        }
        if (rc == 0 && result != nullptr && result->pw_name != nullptr) {
            return {result->pw_name, true};
        }
        // No account: show the number. An NSS failure (rc != 0, e.g. a directory service
        // down) also shows the number but is not remembered, so a later call can succeed.
        return {std::to_string(uid), rc == 0};
    }
}

using Clock = std::chrono::steady_clock;
constexpr std::chrono::minutes kNameLifetime{5};
constexpr std::size_t kMaxNames = 4096;

struct CachedName {
    std::string name;
    Clock::time_point looked_up;
};

struct NameCache {
    std::mutex mutex;
    std::unordered_map<uid_t, CachedName> names;
};

NameCache& cache() {
    static NameCache instance;  // guarded by its own mutex
    return instance;
}

}  // namespace

std::string user_name(uid_t uid) {
    auto& c = cache();
    const Clock::time_point now = Clock::now();
    {
        std::lock_guard lock(c.mutex);
        if (auto it = c.names.find(uid);
            it != c.names.end() && now - it->second.looked_up < kNameLifetime) {
            return it->second.name;
        }
    }
    // Look up outside the lock: NSS may be slow, and two threads racing is harmless.
    Lookup found = lookup(uid);
    if (!found.definitive) return found.name;
    std::lock_guard lock(c.mutex);
    if (c.names.size() >= kMaxNames) c.names.clear();  // rare; the next lookups refill it
    c.names.insert_or_assign(uid, CachedName{found.name, now});
    return found.name;
}

}  // namespace gpukill
