#include "cli/check_command.hpp"

#include <fmt/format.h>

#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/json_result.hpp"
#include "engine/health_check.hpp"
#include "engine/outcome_codes.hpp"
#include "model/byte_size.hpp"
#include "model/json_text.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::cli {
int run_check(const GlobalOptions& global, const CheckOptions& options) {
    engine::CheckRequest request;
    if (options.unaccounted_threshold) {
        auto bytes = parse_byte_size(*options.unaccounted_threshold);
        if (!bytes) return usage_error("--unaccounted-threshold: " + bytes.error().what);
        request.unaccounted_memory_bytes = *bytes;
    }
    if (options.idle && !options.allowed_users.empty()) {
        return usage_error("give --idle or --allow-user, not both");
    }
    if (options.idle || !options.allowed_users.empty()) {
        request.allowed_users =
            std::set<std::string>(options.allowed_users.begin(), options.allowed_users.end());
    }
    request.rogue = !options.no_rogue;
    request.orphans = !options.no_orphans;
    auto engine = open_engine(global);
    // An engine that cannot open (a named NVML library that does not load) cannot see.
    if (!engine) return check_exit::unknown;
    const engine::CheckOutcome outcome = engine::health_check(**engine, request);
    if (options.json) {
        print_json_result(check_json(outcome));
    } else {
        fmt::print("{}\n", terminal_safe(outcome.summary));
    }
    switch (outcome.verdict) {
        case engine::CheckVerdict::clean:
            return exit_code::ok;
        case engine::CheckVerdict::problem:
            return check_exit::problem;
        case engine::CheckVerdict::unknown:
            return check_exit::unknown;
    }
    return check_exit::unknown;
}

}  // namespace gpukill::cli
