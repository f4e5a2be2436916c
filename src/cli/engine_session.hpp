// The engine as the command line opens it: its configuration from the global options
// and the process environment, and the person running gpukill as the actor.
#pragma once

#include <memory>

#include "cli/global_options.hpp"
#include "engine/engine.hpp"
#include "model/actor.hpp"

namespace gpukill::cli {

engine::EngineConfig engine_config(const GlobalOptions& global);

// Engine::open, its error printed ("gpukill: ...") and mapped to its exit code. Without
// `gpus` the engine only records (configuration changes).
std::expected<std::unique_ptr<engine::Engine>, int> open_engine(const GlobalOptions& global,
                                                                bool gpus = true);

// {cli, this user's account name}; guard run acts as {guard, ...}.
Actor command_line_actor(Interface interface = Interface::cli);

// --actor: "fleet" when a fleet controller runs this command over SSH (the actor's
// remote is the SSH client's address, from SSH_CLIENT), else the command line's.
Actor command_line_actor_named(const std::string& interface);

}  // namespace gpukill::cli
