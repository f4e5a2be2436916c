#include "agent/api.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engine/audit_json.hpp"
#include "engine/audit_queries.hpp"
#include "engine/guard_test.hpp"
#include "engine/health_check.hpp"
#include "engine/kill.hpp"
#include "engine/list.hpp"
#include "engine/request_codec.hpp"
#include "engine/reset.hpp"
#include "engine/rogue_scan.hpp"
#include "model/bounded_json.hpp"
#include "model/human_format.hpp"
#include "model/json_text.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::agent {
namespace {

using json = nlohmann::ordered_json;
using Params = std::multimap<std::string, std::string>;

ApiResponse api_ok(const json& document) {
    return ApiResponse{200, json_text(document, -1) + "\n"};
}

// The query string as the request's table reads it: every parameter must be a field of
// `Request` (a misspelt filter must not widen an answer silently), read as the command
// line's option of the same field would be.
template <class Request>
Result<Request> api_query(const ApiRequest& request) {
    engine::NamedValues values(request.params.begin(), request.params.end());
    return engine::request_from_text<Request>(values, engine::Spelling::field);
}

template <class Request>
Result<Request> api_body(const ApiRequest& request) {
    if (!request.params.empty()) {
        return fail(ErrorCategory::invalid_input,
                    fmt::format("unknown query parameter '{}': the request is the JSON body",
                                printable(request.params.begin()->first)));
    }
    json parsed = parse_json_bounded(request.body, {.max_bytes = request.body.size()})
                      .value_or(json::value_t::discarded);
    if (parsed.is_discarded()) {
        return fail(ErrorCategory::invalid_input, "the request body is not JSON");
    }
    return engine::request_from_json<Request>(parsed);
}

// What the audit records say was asked: the method, the path and the request as read.
template <class Request>
std::string api_command(const ApiRequest& request, const Request& parsed) {
    return fmt::format("{} {} {}", request.method, request.path,
                       json_text(engine::request_to_json(parsed), -1));
}

ApiResponse api_version() {
    return api_ok(json{{"schema_version", kApiSchemaVersion}, {"version", GPUKILL_VERSION}});
}

// As `gpukill list --json`, narrowed by list's fields given as query parameters.
ApiResponse api_snapshot(AgentCore& core, const ApiRequest& request) {
    auto parsed = api_query<engine::ListRequest>(request);
    if (!parsed) return error_response(parsed.error());
    auto listed = core.with_engine([&](engine::Engine& e) { return engine::list(e, *parsed); });
    if (!listed) return error_response(listed.error());
    return api_ok(to_json(listed->snapshot));
}

// Plan (a dry run; plan_id refused) or execute (plan_id required: plan first).
template <class Request>
Result<Request> api_action_request(const ApiRequest& request, bool execute, std::string_view noun) {
    auto parsed = api_body<Request>(request);
    if (!parsed) return parsed;
    if (execute) {
        if (!parsed->expected_plan_id) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("plan_id is required: POST /v1/{}/plan first and send its "
                                    "plan_id",
                                    noun));
        }
        if (parsed->dry_run) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("dry_run does not apply to /v1/{}/execute; POST /v1/{}/plan",
                                    noun, noun));
        }
    } else {
        if (parsed->expected_plan_id) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("plan_id applies to /v1/{}/execute only", noun));
        }
        parsed->dry_run = true;
    }
    parsed->command = api_command(request, *parsed);
    return parsed;
}

ApiResponse api_kill(AgentCore& core, const ApiRequest& request, bool execute) {
    auto parsed = api_action_request<engine::KillRequest>(request, execute, "kill");
    if (!parsed) return error_response(parsed.error());
    // Planned under the engine lock; carried out with the lock taken only for what uses
    // the engine, so that a kill waiting out its timeout leaves the agent serving.
    auto outcome = core.with_engine(
        [&](engine::Engine& e) { return engine::plan_kill(e, *parsed, request.actor); });
    if (!outcome) return error_response(outcome.error());
    if (execute) {
        outcome = core.execute_kill(*outcome, request.actor);
        core.count_kill(*outcome);
    }
    return api_ok(engine::kill_report_json(outcome->report()));
}

ApiResponse api_reset(AgentCore& core, const ApiRequest& request, bool execute) {
    auto parsed = api_action_request<engine::ResetRequest>(request, execute, "reset");
    if (!parsed) return error_response(parsed.error());
    auto outcome = core.with_engine(
        [&](engine::Engine& e) { return engine::reset(e, *parsed, request.actor); });
    if (!outcome) return error_response(outcome.error());
    if (execute) core.count_reset(*outcome);
    return api_ok(engine::reset_report_json(outcome->report()));
}

ApiResponse api_check(AgentCore& core, const ApiRequest& request) {
    auto parsed = api_query<engine::CheckRequest>(request);
    if (!parsed) return error_response(parsed.error());
    auto outcome =
        core.with_engine([&](engine::Engine& e) { return engine::health_check(e, *parsed); });
    if (!outcome) return error_response(outcome.error());
    return api_ok(engine::check_json(*outcome));
}

ApiResponse api_audit_actions(AgentCore& core, const ApiRequest& request) {
    auto parsed = api_query<engine::ActionsRequest>(request);
    if (!parsed) return error_response(parsed.error());
    auto outcome =
        core.with_engine([&](engine::Engine& e) { return engine::audit_actions(e, *parsed); });
    if (!outcome) return error_response(outcome.error());
    return api_ok(outcome->document());
}

ApiResponse api_audit_usage(AgentCore& core, const ApiRequest& request) {
    auto parsed = api_query<engine::UsageRequest>(request);
    if (!parsed) return error_response(parsed.error());
    auto outcome =
        core.with_engine([&](engine::Engine& e) { return engine::audit_usage(e, *parsed); });
    if (!outcome) return error_response(outcome.error());
    return api_ok(outcome->document());
}

// Findings are recorded in the audit log under the token's name.
ApiResponse api_rogue(AgentCore& core, const ApiRequest& request) {
    auto parsed = api_query<engine::RogueScanRequest>(request);
    if (!parsed) return error_response(parsed.error());
    parsed->command = api_command(request, *parsed);
    auto scanned = core.with_engine(
        [&](engine::Engine& e) { return engine::rogue_scan(e, *parsed, request.actor); });
    if (!scanned) return error_response(scanned.error());
    return api_ok(scanned->document);
}

// As `gpukill guard test`: the policy (its YAML) judged against this host now, or
// against a saved snapshot in the body. Signals nothing, records nothing.
ApiResponse api_guard_test(AgentCore& core, const ApiRequest& request) {
    auto parsed = api_body<engine::GuardTestRequest>(request);
    if (!parsed) return error_response(parsed.error());
    auto tested =
        core.with_engine([&](engine::Engine& e) { return engine::guard_test(e, *parsed); });
    if (!tested) return error_response(tested.error());
    return api_ok(tested->document());
}

ApiResponse api_guard_status(AgentCore& core, const ApiRequest& request) {
    if (!request.params.empty()) {
        return error_response(
            400, "invalid_input",
            fmt::format("unknown query parameter '{}'", printable(request.params.begin()->first)));
    }
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
        {"GET", "/v1/version", false},     {"GET", "/v1/snapshot", false},
        {"POST", "/v1/kill/plan", true},   {"POST", "/v1/kill/execute", true},
        {"POST", "/v1/reset/plan", true},  {"POST", "/v1/reset/execute", true},
        {"GET", "/v1/check", false},       {"GET", "/v1/audit/actions", false},
        {"GET", "/v1/rogue", false},       {"GET", "/v1/guard", false},
        {"POST", "/v1/guard/test", false}, {"GET", "/v1/audit/usage", false},
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
    if (path == "/v1/guard/test") return api_guard_test(core, request);
    if (path == "/v1/audit/usage") return api_audit_usage(core, request);
    return error_response(404, "not_found", "no such endpoint: " + path);
}

}  // namespace gpukill::agent
