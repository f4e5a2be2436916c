// `list` as an engine call: the whole host read (and recorded, when asked), then
// narrowed to what the request names: the vendor, the GPU (index, UUID or PCI bus id,
// numbered across the whole host) and the processes every match selector takes. The
// same selectors and the same matcher as kill's plan: "which processes would `--gpu 1
// --not-image X` take" is answered here without planning anything. Records nothing but
// the usage history.
//
// A process that lists once and exits (`gpukill list`) calls list_once: the host's
// running agent answers over its local channel when it can, which costs a rescan of what
// changed since its last sample instead of a sweep of every process.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "engine/list_request.hpp"
#include "model/result.hpp"
#include "model/snapshot.hpp"

namespace gpukill::engine {

// Errors: invalid_input (a bad pattern, a short container id, an unknown vendor),
// not_found (no such GPU). A snapshot recorded before an error stays recorded.
Result<ListOutcome> list(Engine& engine, const ListRequest& request);

// The same narrowing over a snapshot already taken (a watch frame, a saved snapshot).
Result<Snapshot> narrow(const Snapshot& snapshot, const ListRequest& request);

// Whether a one-shot listing asks the host's agent first (`gpukill list`), or never
// (`--no-agent`).
enum class AgentUse { ask_first, never };

// How long a one-shot listing waits for the agent before sweeping itself: longer than
// any answer with the holder tracker, shorter than a sweep of a busy host.
inline constexpr double kAgentListSeconds = 1.0;

// A listing by a process that lists once and exits. With ask_first, the agent serving
// config.state_dir answers (engine/local_channel.hpp: root's, or this user's own agent)
// when one runs there, reads the roots and NVML library `config` names, and has every
// capability deciding whose open files a process may read that this process has (so it
// sees at least the holders a sweep here would); its snapshot is then narrowed exactly as list()
// narrows (source agent) and not recorded (the agent records its own samples). Otherwise an Engine
// is opened from `config` and list() sweeps (source sweep), recording as the request asks;
// agent_note says why an agent that runs did not answer. Errors: Engine::open's and list's (the
// same for either source).
Result<ListOutcome> list_once(EngineConfig config, const ListRequest& request, AgentUse use);

// The `list --json` document of an outcome: the snapshot's (docs/JSON.md), and `source`.
nlohmann::ordered_json list_document(const ListOutcome& outcome);

// The whole host as another process of it lists it, for an agent answering others'
// listings over its local channel: this process's own device files included (an agent
// keeps NVML open, and anyone else's sweep shows it as the observer it is). Not recorded.
Snapshot snapshot_for_local_list(Engine& engine);

// The global index of the one GPU `selector` (index, UUID or PCI bus id) names.
// Errors: not_found.
Result<unsigned> resolve_gpu(const Snapshot& snapshot, std::string_view selector);

}  // namespace gpukill::engine
