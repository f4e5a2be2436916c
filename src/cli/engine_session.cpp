#include "cli/engine_session.hpp"

#include <cstdlib>

#include "cli/diagnostics.hpp"

namespace gpukill::cli {
namespace {

std::optional<std::string> environment(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
}

}  // namespace

engine::EngineConfig engine_config(const GlobalOptions& global) {
    return engine::EngineConfig{.roots = global.roots,
                                .nvml_library = global.nvml_library,
                                .state_dir = global.state_dir,
                                .config_dir = global.config_dir,
                                .nvidia_smi = environment("GPUKILL_NVIDIA_SMI"),
                                .path_env = environment("PATH"),
                                .environment = process_environment(),
                                .clock = {},
                                .open_gpus = true};
}

std::expected<std::unique_ptr<engine::Engine>, int> open_engine(const GlobalOptions& global,
                                                                bool gpus) {
    engine::EngineConfig config = engine_config(global);
    config.open_gpus = gpus;
    auto opened = engine::Engine::open(std::move(config));
    if (!opened) return std::unexpected(report_error(opened.error()));
    return std::move(*opened);
}

Actor command_line_actor(Interface interface) {
    return engine::local_actor(interface);
}

Actor command_line_actor_named(const std::string& interface) {
    if (interface != "fleet") return command_line_actor();
    Actor actor = engine::local_actor(Interface::fleet);
    // SSH_CLIENT is "ADDRESS PORT LOCALPORT", set by sshd; as trustworthy as the account.
    if (auto client = environment("SSH_CLIENT")) {
        const std::size_t space = client->find(' ');
        const std::size_t second = client->find(' ', space == std::string::npos ? 0 : space + 1);
        if (space != std::string::npos) {
            actor.remote =
                client->substr(0, space) + ":" +
                client->substr(space + 1, second == std::string::npos ? std::string::npos
                                                                      : second - space - 1);
        }
    }
    return actor;
}

}  // namespace gpukill::cli
