#include "agent/api.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "detect/config_file.hpp"
#include "detect/rogue_json.hpp"
#include "engine/audit_json.hpp"
#include "engine/audit_queries.hpp"
#include "engine/health_check.hpp"
#include "engine/kill.hpp"
#include "engine/request_json.hpp"
#include "engine/reset.hpp"
#include "engine/rogue_scan.hpp"
#include "model/bounded_json.hpp"
#include "model/byte_size.hpp"
#include "model/human_format.hpp"
#include "model/json_text.hpp"
#include "model/pattern.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::agent {
namespace {

using json = nlohmann::ordered_json;
using Params = std::multimap<std::string, std::string>;

constexpr double kApiMaxHours = 24.0 * 36'500;  // as `gpukill audit`: a century

ApiResponse api_ok(const json& document) {
    return ApiResponse{200, json_text(document, -1) + "\n"};
}

// Query parameters other than `known` are refused: a misspelt filter must not widen
// an answer silently.
Result<void> api_only_params(const Params& params, std::initializer_list<const char*> known) {
    for (const auto& [name, value] : params) {
        if (std::none_of(known.begin(), known.end(), [&](const char* k) { return name == k; })) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("unknown query parameter '{}'", printable(name)));
        }
    }
    return {};
}

std::optional<std::string> api_single(const Params& params, const char* name) {
    auto found = params.find(name);
    if (found == params.end()) return std::nullopt;
    return found->second;
}

Result<bool> api_flag_param(const Params& params, const char* name, bool fallback) {
    auto value = api_single(params, name);
    if (!value) return fallback;
    if (*value == "true" || *value == "1" || value->empty()) return true;
    if (*value == "false" || *value == "0") return false;
    return fail(ErrorCategory::invalid_input, fmt::format("{}: expected true or false", name));
}

Result<double> api_hours_param(const Params& params) {
    auto value = api_single(params, "hours");
    if (!value) return 24.0;
    double hours = 0;
    const auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), hours);
    if (ec != std::errc() || end != value->data() + value->size() || !std::isfinite(hours) ||
        hours <= 0 || hours > kApiMaxHours) {
        return fail(ErrorCategory::invalid_input,
                    fmt::format("hours must be more than 0 and at most {:.0f}", kApiMaxHours));
    }
    return hours;
}

Result<json> api_parse_body(const std::string& body) {
    json parsed =
        parse_json_bounded(body, {.max_bytes = body.size()}).value_or(json::value_t::discarded);
    if (parsed.is_discarded()) {
        return fail(ErrorCategory::invalid_input, "the request body is not JSON");
    }
    if (!parsed.is_object()) {
        return fail(ErrorCategory::invalid_input, "the request body must be a JSON object");
    }
    return parsed;
}

std::int64_t api_now_ms(AgentCore& core) {
    return core.with_engine([](engine::Engine& e) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(e.now().time_since_epoch())
            .count();
    });
}

ApiResponse api_version() {
    return api_ok(json{{"schema_version", kApiSchemaVersion}, {"version", GPUKILL_VERSION}});
}

ApiResponse api_snapshot(AgentCore& core, const ApiRequest& request) {
    if (auto checked = api_only_params(request.params, {}); !checked)
        return error_response(checked.error());
    const Snapshot snapshot = core.with_engine([](engine::Engine& e) { return e.list().snapshot; });
    return api_ok(to_json(snapshot));
}

// A kill request from the body. `execute`: the plan_id is required (plan first);
// otherwise it is refused, and the request is a dry run.
Result<engine::KillRequest> api_kill_request(const ApiRequest& request, bool execute) {
    auto body = api_parse_body(request.body);
    if (!body) return std::unexpected(body.error());
    auto parsed = engine::kill_request_from_json(*body);
    if (!parsed) return parsed;
    if (execute) {
        if (!parsed->expected_plan_id) {
            return fail(ErrorCategory::invalid_input,
                        "plan_id is required: POST /v1/kill/plan first and send its plan_id");
        }
        if (parsed->dry_run) {
            return fail(ErrorCategory::invalid_input,
                        "dry_run does not apply to /v1/kill/execute; POST /v1/kill/plan");
        }
    } else {
        if (parsed->expected_plan_id) {
            return fail(ErrorCategory::invalid_input, "plan_id applies to /v1/kill/execute only");
        }
        parsed->dry_run = true;
    }
    parsed->command = fmt::format("{} {} {}", request.method, request.path,
                                  json_text(engine::kill_request_to_json(*parsed), -1));
    return parsed;
}

ApiResponse api_kill(AgentCore& core, const ApiRequest& request, bool execute) {
    auto parsed = api_kill_request(request, execute);
    if (!parsed) return error_response(parsed.error());
    auto outcome = core.with_engine([&](engine::Engine& e) {
        return execute ? engine::kill(e, *parsed, request.actor)
                       : engine::plan_kill(e, *parsed, request.actor);
    });
    if (!outcome) return error_response(outcome.error());
    if (execute) core.count_kill(*outcome);
    return api_ok(engine::kill_report_json(outcome->report()));
}

Result<engine::ResetRequest> api_reset_request(const ApiRequest& request, bool execute) {
    auto body = api_parse_body(request.body);
    if (!body) return std::unexpected(body.error());
    auto parsed = engine::reset_request_from_json(*body);
    if (!parsed) return parsed;
    if (execute) {
        if (!parsed->expected_plan_id) {
            return fail(ErrorCategory::invalid_input,
                        "plan_id is required: POST /v1/reset/plan first and send its plan_id");
        }
        if (parsed->dry_run) {
            return fail(ErrorCategory::invalid_input,
                        "dry_run does not apply to /v1/reset/execute; POST /v1/reset/plan");
        }
    } else {
        if (parsed->expected_plan_id) {
            return fail(ErrorCategory::invalid_input, "plan_id applies to /v1/reset/execute only");
        }
        parsed->dry_run = true;
    }
    parsed->command = fmt::format("{} {} {}", request.method, request.path,
                                  json_text(engine::reset_request_to_json(*parsed), -1));
    return parsed;
}

ApiResponse api_reset(AgentCore& core, const ApiRequest& request, bool execute) {
    auto parsed = api_reset_request(request, execute);
    if (!parsed) return error_response(parsed.error());
    auto outcome = core.with_engine(
        [&](engine::Engine& e) { return engine::reset(e, *parsed, request.actor); });
    if (!outcome) return error_response(outcome.error());
    if (execute) core.count_reset(*outcome);
    return api_ok(engine::reset_report_json(outcome->report()));
}

// As `gpukill check`: unaccounted_threshold (a size), allow_user (repeatable), idle,
// rogue and orphans (booleans, default true).
ApiResponse api_check(AgentCore& core, const ApiRequest& request) {
    const Params& params = request.params;
    if (auto checked = api_only_params(
            params, {"unaccounted_threshold", "allow_user", "idle", "rogue", "orphans"});
        !checked) {
        return error_response(checked.error());
    }
    engine::CheckRequest check;
    if (auto threshold = api_single(params, "unaccounted_threshold")) {
        auto bytes = parse_byte_size(*threshold);
        if (!bytes) {
            return error_response(400, "invalid_input",
                                  "unaccounted_threshold: " + bytes.error().what);
        }
        check.unaccounted_memory_bytes = *bytes;
    }
    auto idle = api_flag_param(params, "idle", false);
    auto rogue = api_flag_param(params, "rogue", true);
    auto orphans = api_flag_param(params, "orphans", true);
    for (const auto* flag : {&idle, &rogue, &orphans}) {
        if (!*flag) return error_response(flag->error());
    }
    std::set<std::string> users;
    for (auto [it, end] = params.equal_range("allow_user"); it != end; ++it)
        users.insert(it->second);
    if (*idle && !users.empty()) {
        return error_response(400, "invalid_input", "give idle or allow_user, not both");
    }
    if (*idle || !users.empty()) check.allowed_users = std::move(users);
    check.rogue = *rogue;
    check.orphans = *orphans;
    const engine::CheckOutcome outcome =
        core.with_engine([&](engine::Engine& e) { return engine::health_check(e, check); });
    return api_ok(engine::check_json(outcome));
}

// As `gpukill audit --actions`: hours (default 24), user, process (a regular expression).
ApiResponse api_audit_actions(AgentCore& core, const ApiRequest& request) {
    const Params& params = request.params;
    if (auto checked = api_only_params(params, {"hours", "user", "process"}); !checked) {
        return error_response(checked.error());
    }
    auto hours = api_hours_param(params);
    if (!hours) return error_response(hours.error());
    engine::ActionQuery query;
    engine::AuditScope scope;
    scope.kind = "actions";
    scope.hours = *hours;
    scope.until_unix_ms = api_now_ms(core);
    scope.since_unix_ms =
        scope.until_unix_ms - static_cast<std::int64_t>(std::llround(*hours * 3'600'000.0));
    scope.user = api_single(params, "user");
    scope.process = api_single(params, "process");
    query.since_unix_ms = scope.since_unix_ms;
    query.until_unix_ms = scope.until_unix_ms;
    query.user = scope.user;
    if (scope.process) {
        auto pattern = Pattern::compile(*scope.process);
        if (!pattern)
            return error_response(400, "invalid_input", "process: " + pattern.error().what);
        query.process = std::move(*pattern);
    }
    auto actions =
        core.with_engine([&](engine::Engine& e) { return engine::query_actions(e, query); });
    if (!actions) return error_response(actions.error());
    scope.source = actions->source;
    scope.source_available = actions->available;
    return api_ok(
        engine::actions_json(scope, actions->available ? actions->log : audit::ActionLog{}));
}

// As `gpukill audit --rogue`: user, hours (the usage history's window). Findings are
// recorded in the audit log under the token's name.
ApiResponse api_rogue(AgentCore& core, const ApiRequest& request) {
    const Params& params = request.params;
    if (auto checked = api_only_params(params, {"hours", "user"}); !checked) {
        return error_response(checked.error());
    }
    auto hours = api_hours_param(params);
    if (!hours) return error_response(hours.error());
    engine::RogueScanRequest scan{.user = api_single(params, "user"),
                                  .hours = *hours,
                                  .command = request.method + " " + request.path};
    auto scanned = core.with_engine([&](engine::Engine& e) -> Result<engine::RogueScanOutcome> {
        auto config = detect::load_rogue_config(e.config().config_dir, std::nullopt);
        if (!config) return std::unexpected(config.error());
        return engine::rogue_scan(e, scan, *config, request.actor);
    });
    if (!scanned) return error_response(scanned.error());
    return api_ok(detect::report_json(scanned->report, scanned->context));
}

ApiResponse api_guard_status(AgentCore& core, const ApiRequest& request) {
    if (auto checked = api_only_params(request.params, {}); !checked)
        return error_response(checked.error());
    return api_ok(core.guard_status());
}

}  // namespace

int http_status_for(ErrorCategory category) {
    switch (category) {
        case ErrorCategory::invalid_input:
            return 400;
        case ErrorCategory::not_found:
            return 404;
        case ErrorCategory::refused:
            return 422;
        case ErrorCategory::permission:
            return 403;
        case ErrorCategory::conflict:
            return 409;
        case ErrorCategory::unavailable:
            return 503;
        case ErrorCategory::unsupported:
            return 501;
        case ErrorCategory::internal:
            return 500;
    }
    return 500;
}

ApiResponse error_response(int status, std::string_view category, std::string_view message) {
    // One line: a message never carries a newline into a client's log.
    std::string line(message);
    std::replace(line.begin(), line.end(), '\n', ' ');
    const json document{{"schema_version", kApiSchemaVersion},
                        {"error", json{{"category", category}, {"message", line}}}};
    return ApiResponse{status, json_text(document, -1) + "\n"};
}

ApiResponse error_response(const Error& error) {
    return error_response(http_status_for(error.category), to_string(error.category), error.what);
}

const std::vector<Endpoint>& api_endpoints() {
    static const std::vector<Endpoint> endpoints = {
        {"GET", "/v1/version", false},    {"GET", "/v1/snapshot", false},
        {"POST", "/v1/kill/plan", true},  {"POST", "/v1/kill/execute", true},
        {"POST", "/v1/reset/plan", true}, {"POST", "/v1/reset/execute", true},
        {"GET", "/v1/check", false},      {"GET", "/v1/audit/actions", false},
        {"GET", "/v1/rogue", false},      {"GET", "/v1/guard", false},
    };
    return endpoints;
}

ApiResponse handle_api(AgentCore& core, const ApiRequest& request) {
    const std::string& path = request.path;
    if (path == "/v1/version") return api_version();
    if (path == "/v1/snapshot") return api_snapshot(core, request);
    if (path == "/v1/kill/plan") return api_kill(core, request, false);
    if (path == "/v1/kill/execute") return api_kill(core, request, true);
    if (path == "/v1/reset/plan") return api_reset(core, request, false);
    if (path == "/v1/reset/execute") return api_reset(core, request, true);
    if (path == "/v1/check") return api_check(core, request);
    if (path == "/v1/audit/actions") return api_audit_actions(core, request);
    if (path == "/v1/rogue") return api_rogue(core, request);
    if (path == "/v1/guard") return api_guard_status(core, request);
    return error_response(404, "not_found", "no such endpoint: " + path);
}

}  // namespace gpukill::agent
