// The MCP resources and prompts.
//
// Resources (application/json, the engine's documents):
//   gpukill://snapshot          the whole host, as `gpukill list --json`
//   gpukill://gpu/{index}       one GPU explained (explain_gpu's document)
//   gpukill://audit/actions     the action log of the last 24 hours
// Prompts: free_gpu {gpu}, explain_gpu_memory {gpu}.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/engine.hpp"

namespace gpukill::mcp {

nlohmann::json resource_listing(engine::Engine& engine);
nlohmann::json resource_templates();
// One resources/read content entry ({uri, mimeType, text}); empty with `error` for an
// unknown URI.
std::optional<nlohmann::json> resource_contents(engine::Engine& engine, const std::string& uri,
                                                std::string& error);

// completion/complete: the GPU indices that start with what was typed, for the prompts'
// and the GPU template's `gpu`/`index` argument; no values for anything else.
nlohmann::json completion_values(engine::Engine& engine, const nlohmann::json& params);

nlohmann::json prompt_listing();
// {description, messages}; empty with `error` for an unknown prompt or a missing argument.
std::optional<nlohmann::json> prompt_messages(const std::string& name,
                                              const nlohmann::json& arguments, std::string& error);

}  // namespace gpukill::mcp
