// The match selectors (--gpu, --filter, --user, --container, --slurm-job, --namespace,
// --pod, --image, --not-image, --min-memory, --orphaned, --unlisted) compiled once and
// tested against one process. They combine with AND.
// Pure; internal to src/reclaim.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "model/pattern.hpp"
#include "model/result.hpp"
#include "model/snapshot.hpp"
#include "reclaim/select.hpp"

namespace gpukill::reclaim {

struct Matcher {
    Selectors selectors;
    std::optional<Pattern> filter;
    std::optional<Pattern> image;
    std::optional<Pattern> not_image;
    std::optional<uid_t> user_uid;             // --user given as a number
    std::set<unsigned> gpus_with_driver_list;  // --unlisted needs the driver's list to be known
};

// Errors for a --filter the pattern engine refuses ("invalid --filter: ..."), a
// --container shorter than 4 characters (a prefix that short matches by accident), and a
// --namespace or --pod Kubernetes would not accept as a name.
Result<Matcher> compile_matcher(const Selectors& selectors, const Snapshot& snapshot);

// Whether the process matches every match selector given (true when none is). `holder`
// is its snapshot entry (GPU ties), null for a process that holds no GPU. --gpu N takes
// only known ties to GPU N, never an any_amd_gpu one. --filter is searched in comm and in
// the arguments joined by spaces.
bool matches(const Matcher& matcher, const ProcessInfo& info, const SnapshotProcess* holder);

// Whether the process fails --gpu N only because its tie to GPU N is uncertain (it holds
// /dev/kfd, and nothing says which AMD GPU it uses) and matches every other selector: a
// process `kill --gpu N` must leave alone and say so.
bool matches_but_unknown_gpu(const Matcher& matcher, const ProcessInfo& info,
                             const SnapshotProcess* holder);

// Why such a process is left out, one line: "PID 42 (rocm) holds /dev/kfd, ...".
std::string unknown_gpu_reason(const ProcessInfo& info, unsigned gpu);

// "--gpu 0 --user alice": the selectors given, for reason details and messages.
std::string describe_match_selectors(const Selectors& selectors);

}  // namespace gpukill::reclaim
