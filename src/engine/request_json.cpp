#include "engine/request_json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <string_view>

namespace gpukill::engine {
namespace {

std::unexpected<Error> request_field_error(std::string_view field, std::string_view expected) {
    return fail(ErrorCategory::invalid_input, fmt::format("'{}' must be {}", field, expected));
}

// Every key of `body` is one of `known`: a misspelt field ("forse") must not be dropped
// silently and leave the request meaning something else.
Result<void> request_only_known(const nlohmann::json& body,
                                std::initializer_list<std::string_view> known) {
    if (!body.is_object()) {
        return fail(ErrorCategory::invalid_input, "the request must be a JSON object");
    }
    for (const auto& [key, value] : body.items()) {
        bool found = false;
        for (std::string_view name : known) found = found || key == name;
        if (!found) {
            return fail(ErrorCategory::invalid_input, fmt::format("unknown field '{}'", key));
        }
    }
    return {};
}

Result<void> read_request_bool(const nlohmann::json& body, const char* field, bool& into) {
    const auto it = body.find(field);
    if (it == body.end() || it->is_null()) return {};
    if (!it->is_boolean()) return request_field_error(field, "true or false");
    into = it->get<bool>();
    return {};
}

Result<void> read_request_string(const nlohmann::json& body, const char* field,
                                 std::optional<std::string>& into) {
    const auto it = body.find(field);
    if (it == body.end() || it->is_null()) return {};
    if (!it->is_string()) return request_field_error(field, "a string");
    into = it->get<std::string>();
    return {};
}

Result<void> read_request_seconds(const nlohmann::json& body, const char* field, double& into) {
    const auto it = body.find(field);
    if (it == body.end() || it->is_null()) return {};
    if (!it->is_number()) return request_field_error(field, "a number of seconds");
    const double seconds = it->get<double>();
    if (!std::isfinite(seconds) || !valid_timeout_seconds(seconds)) {
        return request_field_error(field, "between 0 and 3600 seconds");
    }
    into = seconds;
    return {};
}

// A PID as the client wrote it, in the form the plan's gate reads: an integer becomes its
// decimal text (negative and huge values included, for the gate to refuse by name).
Result<std::vector<std::string>> read_request_pids(const nlohmann::json& body) {
    std::vector<std::string> pids;
    const auto it = body.find("pids");
    if (it == body.end() || it->is_null()) return pids;
    if (!it->is_array()) return request_field_error("pids", "an array of PIDs");
    for (const nlohmann::json& pid : *it) {
        if (pid.is_number_unsigned()) {
            pids.push_back(std::to_string(pid.get<std::uint64_t>()));
        } else if (pid.is_number_integer()) {
            pids.push_back(std::to_string(pid.get<std::int64_t>()));
        } else if (pid.is_string()) {
            pids.push_back(pid.get<std::string>());
        } else {
            return request_field_error("pids", "an array of integers or decimal strings");
        }
    }
    return pids;
}

Result<void> read_request_gpu(const nlohmann::json& body, const char* field,
                              std::optional<std::string>& into) {
    const auto it = body.find(field);
    if (it == body.end() || it->is_null()) return {};
    if (it->is_number_unsigned()) {
        into = std::to_string(it->get<std::uint64_t>());
        return {};
    }
    if (!it->is_string()) return request_field_error(field, "a GPU index, UUID or PCI bus id");
    into = it->get<std::string>();
    return {};
}

Result<void> read_plan_id(const nlohmann::json& body, std::optional<std::string>& into) {
    if (auto read = read_request_string(body, "plan_id", into); !read) return read;
    if (into &&
        (into->size() != 16 || into->find_first_not_of("0123456789abcdef") != std::string::npos)) {
        return request_field_error("plan_id", "16 lowercase hex digits");
    }
    return {};
}

void put_if(nlohmann::json& out, const char* field, const std::optional<std::string>& value) {
    if (value) out[field] = *value;
}

}  // namespace

Result<KillRequest> kill_request_from_json(const nlohmann::json& body) {
    auto known = request_only_known(body, {"pids",
                                           "gpu",
                                           "filter",
                                           "user",
                                           "container",
                                           "slurm_job",
                                           "image",
                                           "not_image",
                                           "min_memory_bytes",
                                           "orphaned",
                                           "unlisted",
                                           "tree",
                                           "group",
                                           "batch",
                                           "any_process",
                                           "force",
                                           "dry_run",
                                           "signal",
                                           "timeout_seconds",
                                           "verify_timeout_seconds",
                                           "plan_id"});
    if (!known) return std::unexpected(known.error());

    KillRequest request;
    reclaim::Selectors& selectors = request.selectors;
    auto pids = read_request_pids(body);
    if (!pids) return std::unexpected(pids.error());
    selectors.pid_arguments = std::move(*pids);

    std::optional<std::string> signal;
    for (auto read :
         {read_request_gpu(body, "gpu", request.gpu),
          read_request_string(body, "filter", selectors.filter),
          read_request_string(body, "user", selectors.user),
          read_request_string(body, "container", selectors.container),
          read_request_string(body, "slurm_job", selectors.slurm_job),
          read_request_string(body, "image", selectors.image),
          read_request_string(body, "not_image", selectors.not_image),
          read_request_string(body, "signal", signal),
          read_request_bool(body, "orphaned", selectors.orphaned),
          read_request_bool(body, "unlisted", selectors.unlisted),
          read_request_bool(body, "tree", selectors.tree),
          read_request_bool(body, "group", selectors.group),
          read_request_bool(body, "batch", selectors.batch),
          read_request_bool(body, "any_process", selectors.any_process),
          read_request_bool(body, "force", request.force),
          read_request_bool(body, "dry_run", request.dry_run),
          read_request_seconds(body, "timeout_seconds", request.timeout_seconds),
          read_request_seconds(body, "verify_timeout_seconds", request.verify_timeout_seconds),
          read_plan_id(body, request.expected_plan_id)}) {
        if (!read) return std::unexpected(read.error());
    }
    if (signal) request.signal = *signal;

    if (const auto it = body.find("min_memory_bytes"); it != body.end() && !it->is_null()) {
        if (!it->is_number_unsigned()) {
            return request_field_error("min_memory_bytes", "a non-negative integer");
        }
        selectors.min_memory_bytes = it->get<std::uint64_t>();
    }
    return request;
}

nlohmann::json kill_request_to_json(const KillRequest& request) {
    const reclaim::Selectors& selectors = request.selectors;
    nlohmann::json out = nlohmann::json::object();
    if (!selectors.pid_arguments.empty()) out["pids"] = selectors.pid_arguments;
    put_if(out, "gpu", request.gpu);
    put_if(out, "filter", selectors.filter);
    put_if(out, "user", selectors.user);
    put_if(out, "container", selectors.container);
    put_if(out, "slurm_job", selectors.slurm_job);
    put_if(out, "image", selectors.image);
    put_if(out, "not_image", selectors.not_image);
    if (selectors.min_memory_bytes) out["min_memory_bytes"] = *selectors.min_memory_bytes;
    for (const auto& [field, value] :
         {std::pair{"orphaned", selectors.orphaned}, std::pair{"unlisted", selectors.unlisted},
          std::pair{"tree", selectors.tree}, std::pair{"group", selectors.group},
          std::pair{"batch", selectors.batch}, std::pair{"any_process", selectors.any_process},
          std::pair{"force", request.force}, std::pair{"dry_run", request.dry_run}}) {
        if (value) out[field] = true;
    }
    out["signal"] = request.signal;
    out["timeout_seconds"] = request.timeout_seconds;
    out["verify_timeout_seconds"] = request.verify_timeout_seconds;
    put_if(out, "plan_id", request.expected_plan_id);
    return out;
}

Result<ResetRequest> reset_request_from_json(const nlohmann::json& body) {
    auto known = request_only_known(body, {"gpus", "all", "force", "dry_run", "timeout_seconds",
                                           "verify_timeout_seconds", "plan_id"});
    if (!known) return std::unexpected(known.error());
    ResetRequest request;
    for (auto read :
         {read_request_gpu(body, "gpus", request.gpus), read_request_bool(body, "all", request.all),
          read_request_bool(body, "force", request.force),
          read_request_bool(body, "dry_run", request.dry_run),
          read_request_seconds(body, "timeout_seconds", request.timeout_seconds),
          read_request_seconds(body, "verify_timeout_seconds", request.verify_timeout_seconds),
          read_plan_id(body, request.expected_plan_id)}) {
        if (!read) return std::unexpected(read.error());
    }
    return request;
}

nlohmann::json reset_request_to_json(const ResetRequest& request) {
    nlohmann::json out = nlohmann::json::object();
    put_if(out, "gpus", request.gpus);
    if (request.all) out["all"] = true;
    if (request.force) out["force"] = true;
    if (request.dry_run) out["dry_run"] = true;
    out["timeout_seconds"] = request.timeout_seconds;
    out["verify_timeout_seconds"] = request.verify_timeout_seconds;
    put_if(out, "plan_id", request.expected_plan_id);
    return out;
}

}  // namespace gpukill::engine
