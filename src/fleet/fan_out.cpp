#include "fleet/fan_out.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace gpukill::fleet {

std::vector<HostReply> fan_out(std::size_t count, const std::function<HostReply(std::size_t)>& task,
                               const FanOutControls& controls) {
    std::vector<HostReply> replies(count);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop_fail{false};
    std::mutex progress_mutex;
    std::size_t done = 0;
    const auto worker = [&] {
        while (true) {
            const std::size_t i = next.fetch_add(1);
            if (i >= count) return;
            HostReply& reply = replies[i];
            if (controls.interrupted && controls.interrupted()) {
                reply.status = HostStatus::not_run;
                reply.exit_code = 130;
                reply.error = "not started: interrupted";
            } else if (stop_fail.load()) {
                reply.status = HostStatus::not_run;
                reply.exit_code = kUnreachableExit;
                reply.error = "not started: --fail-fast after a failure";
            } else {
                try {
                    reply = task(i);
                } catch (const std::exception& e) {
                    // A host's answer that trips gpukill is that host's failure: the
                    // others go on, and the command ends normally (control directories
                    // removed, the report printed).
                    reply = HostReply{};
                    reply.status = HostStatus::failed;
                    reply.exit_code = 1;
                    reply.error = std::string("internal error on this host's answer: ") + e.what();
                }
                if (controls.fail_fast && reply.status != HostStatus::ok) stop_fail.store(true);
            }
            std::lock_guard lock(progress_mutex);
            ++done;
            if (controls.progress) controls.progress(done, count);
        }
    };
    const std::size_t threads =
        std::clamp<std::size_t>(controls.fanout, 1, std::max<std::size_t>(count, 1));
    {
        std::vector<std::jthread> pool;
        pool.reserve(threads);
        for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
    }
    return replies;
}

}  // namespace gpukill::fleet
