#include "cli/check_command.hpp"

#include <fmt/format.h>

#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/json_result.hpp"
#include "engine/health_check.hpp"
#include "engine/outcome_codes.hpp"
#include "model/json_text.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::cli {
int run_check(const GlobalOptions& global, const engine::CheckRequest& request, bool json) {
    auto engine = open_engine(global);
    // An engine that cannot open (a named NVML library that does not load) cannot see.
    if (!engine) return check_exit::unknown;
    auto checked = engine::health_check(**engine, request);
    if (!checked) return report_error(checked.error());
    const engine::CheckOutcome& outcome = *checked;
    if (json) {
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
