#include "cli/guard_run.hpp"

#include <pthread.h>
#include <signal.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/watch.hpp"
#include "engine/guard.hpp"
#include "engine/outcome_codes.hpp"
#include "model/human_format.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::cli {
namespace {

// Each event as one stdout line, after the local time it was said at.
void print_event(const engine::GuardEvent& event) {
    const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
    fmt::print("{} {}\n", format_local_time(now), event.text);
    std::fflush(stdout);
}

}  // namespace

int run_guard_loop(const GlobalOptions& global, const GuardOptions& options,
                   const std::vector<std::string>& argv) {
    auto engine = open_engine(global);
    if (!engine) return engine.error();
    auto opened = engine::Guard::open(
        **engine, engine::GuardSetup{.policy_path = options.policy, .command = shell_join(argv)},
        command_line_actor(Interface::guard), print_event, std::chrono::system_clock::now());
    if (!opened) return report_error(opened.error());
    engine::Guard& guard = **opened;
    // SIGHUP reloads the policy: held from before the start line, so one sent as soon
    // as the loop says it runs is not the default action (exit) but a reload.
    sigset_t hangup;
    sigemptyset(&hangup);
    sigaddset(&hangup, SIGHUP);
    if (!options.once) pthread_sigmask(SIG_BLOCK, &hangup, nullptr);
    guard.start();
    const auto cycle = [&] {
        guard.reload_if_changed();
        guard.cycle(std::chrono::system_clock::now());
    };
    if (options.once) {
        cycle();
        return exit_code::ok;
    }
    const double interval = static_cast<double>(guard.policy().check_interval.count());
    return watch_until_interrupted(WatchOptions{.interval_seconds = interval,
                                                .clear_screen = false,
                                                .on_hangup = [&] { (void)guard.reload_policy(); }},
                                   [&](std::string&) {
                                       cycle();
                                       return exit_code::ok;
                                   });
}

}  // namespace gpukill::cli
