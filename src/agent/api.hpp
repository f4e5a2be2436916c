// The agent's versioned JSON API (/v1/...), as functions from a parsed request to a
// status and a body: the HTTP server (http_server.hpp) authenticates and authorises,
// then calls these. docs/API.md documents every endpoint. Every document is the one the
// command line prints for the same question (list --json, kill --json, reset --json,
// check --json, audit --actions --json, audit --rogue --json); errors are
// {"schema_version":1,"error":{"category","message"}} with the status of the category.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/agent_core.hpp"
#include "model/actor.hpp"
#include "model/result.hpp"

namespace gpukill::agent {

inline constexpr int kApiSchemaVersion = 1;

struct ApiRequest {
    std::string method;                              // "GET", "POST"
    std::string path;                                // "/v1/kill/plan"
    std::multimap<std::string, std::string> params;  // the query string
    std::string body;
    Actor actor;  // agent, the token's name, the peer's address
};

struct ApiResponse {
    int status = 200;
    std::string body;  // JSON, one line and a newline
};

// The status an error category is answered with: invalid_input 400, not_found 404,
// conflict 409, refused 422, permission 403, unavailable 503, unsupported 501,
// internal 500.
int http_status_for(ErrorCategory category);

// The error document; `category` as ErrorCategory spells it, or "unauthenticated".
ApiResponse error_response(int status, std::string_view category, std::string_view message);
ApiResponse error_response(const Error& error);

// The endpoint `method` and `path` name, and whether it needs the act scope (the
// rest need read); false when there is no such endpoint.
struct Endpoint {
    const char* method;
    const char* path;
    bool act;
};
const std::vector<Endpoint>& api_endpoints();

// One /v1 request (an endpoint of api_endpoints()).
ApiResponse handle_api(AgentCore& core, const ApiRequest& request);

}  // namespace gpukill::agent
