#include "cli/doctor.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "cli/engine_session.hpp"
#include "cli/json_result.hpp"
#include "engine/doctor.hpp"
#include "engine/outcome_codes.hpp"
#include "model/json_text.hpp"

namespace gpukill::cli {

int run_doctor(const GlobalOptions& global, bool json) {
    using engine::DoctorCheck;
    const std::vector<DoctorCheck> checks =
        engine::diagnose(engine::gather_doctor_facts(engine_config(global)));
    if (json) {
        print_json_result(engine::doctor_json(checks));
    } else {
        std::string text;
        for (const DoctorCheck& check : checks) {
            text += fmt::format("[{:>4}] {}: {}\n", engine::to_string(check.level), check.name,
                                check.detail);
            if (check.advice) text += fmt::format("       -> {}\n", *check.advice);
        }
        std::fputs(fit_to_width(text, global.output_width).c_str(), stdout);
    }
    return engine::any_check_failed(checks) ? exit_code::failure : exit_code::ok;
}

}  // namespace gpukill::cli
