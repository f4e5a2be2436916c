// The one signal-and-verify path: every interface that ends processes (kill, guard
// enforcement, reset --force) carries out a plan here, so the same binding, escalation,
// interruption, verification and records hold for all of them.
//
//   execute_plan (each round of signals recorded before it is sent and after) -> record
//   the execution -> (unless interrupted, and only when a target ended) verify_release,
//   which an interrupt also ends -> note unreaped zombies -> record the verification
#pragma once

#include <functional>
#include <vector>

#include "model/host_roots.hpp"
#include "model/kill_plan.hpp"
#include "model/snapshot.hpp"
#include "reclaim/execute.hpp"
#include "reclaim/verify.hpp"

namespace gpukill::reclaim {

struct ActOptions {
    ExecuteOptions execute;
    VerifyOptions verify;
};

// Where the GPUs are read during verification: `gpus` is the cheap reading of memory
// (discover_gpus), `full` a whole snapshot (discover) to judge a soft lock.
struct ActReaders {
    std::function<Snapshot()> gpus;
    std::function<Snapshot()> full;
};

// Receives the records of each step as it completes, so a caller that is interrupted
// or fails later has already written what was done; each signal is recorded before it is
// sent (SignalRecorder), so even a caller killed right after a send has.
struct ActRecorder {
    SignalRecorder signals;
    std::function<void(const ExecuteResult&)> executed;
    std::function<void(const std::vector<GpuRelease>&)> verified;
};

struct ActOutcome {
    ExecuteResult executed;
    // Empty when nothing ended or when interrupted before verification; what was seen
    // so far when interrupted during it.
    std::vector<GpuRelease> releases;
    bool interrupted = false;  // options.execute.interrupted answered true
};

// True when the target exited, whatever ended it.
bool ended(const TargetResult& result);

ActOutcome act_and_verify(const KillPlan& plan, const HostRoots& roots, const ActOptions& options,
                          const ActReaders& readers, const ActRecorder& recorder);

}  // namespace gpukill::reclaim
