// `list` as an engine call: the whole host read (and recorded, when asked), then
// narrowed to what the request names: the vendor, the GPU (index, UUID or PCI bus id,
// numbered across the whole host) and the processes every match selector takes. The
// same selectors and the same matcher as kill's plan: "which processes would `--gpu 1
// --not-image X` take" is answered here without planning anything. Records nothing but
// the usage history.
#pragma once

#include <string_view>

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

// The global index of the one GPU `selector` (index, UUID or PCI bus id) names.
// Errors: not_found.
Result<unsigned> resolve_gpu(const Snapshot& snapshot, std::string_view selector);

}  // namespace gpukill::engine
