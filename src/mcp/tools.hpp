// The MCP tools: each a typed request read from the call's arguments, one engine call,
// and the engine's JSON document as structuredContent (the same document the command
// line's --json prints). Read-only tools never signal and never write; the action tools
// (plan_kill, execute_kill_plan, reset_gpu) act only through the engine's plans.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "mcp/plan_store.hpp"
#include "model/actor.hpp"

namespace gpukill::mcp {

struct ToolAnnotations {
    bool read_only = true;
    bool destructive = false;
    bool idempotent = true;
    bool open_world = false;  // gpukill acts on this host only
};

struct ToolContext {
    engine::Engine& engine;
    const Actor& actor;
    PlanStore& plans;
    std::string command;  // "mcp tools/call NAME": what the audit records say was asked
    std::function<bool()> interrupted;  // ServerOptions::interrupted: ends an action's waits
};

// A tool's answer. An error (is_error) carries the engine's one-line reason as text and
// no structured content; a success carries the document and a short text summary.
struct ToolResult {
    std::optional<nlohmann::ordered_json> structured;
    std::string text;
    bool is_error = false;
};

ToolResult tool_error(std::string reason);

struct Tool {
    std::string name;
    std::string title;
    std::string description;
    nlohmann::ordered_json input_schema;
    nlohmann::ordered_json output_schema;
    ToolAnnotations annotations;
    bool action = false;  // listed only with --allow-actions
    std::function<ToolResult(ToolContext&, const nlohmann::json& arguments)> run;
};

std::vector<Tool> read_tools();
std::vector<Tool> action_tools();

// The tools/list entry: name, title, description, inputSchema, outputSchema, annotations.
nlohmann::ordered_json tool_listing(const Tool& tool);

// Arguments allowed by the schema's properties, and nothing else: the first one it does
// not name, if any.
std::optional<std::string> unknown_argument(const nlohmann::json& arguments,
                                            const nlohmann::ordered_json& input_schema);

// Schema helpers: {"type": "object", "properties": ..., "required": ...,
// "additionalProperties": false}.
nlohmann::ordered_json object_schema(nlohmann::ordered_json properties,
                                     std::vector<std::string> required = {});

// Read-tool helpers shared by the resources: the snapshot document and one GPU's
// explanation.
nlohmann::ordered_json snapshot_document(engine::Engine& engine);
std::optional<nlohmann::ordered_json> explain_document(engine::Engine& engine,
                                                       const std::string& gpu, std::string& error);

}  // namespace gpukill::mcp
