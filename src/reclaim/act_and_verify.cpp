#include "reclaim/act_and_verify.hpp"

#include <algorithm>

namespace gpukill::reclaim {

bool ended(const TargetResult& result) {
    return result.outcome == Outcome::exited || result.outcome == Outcome::terminated ||
           result.outcome == Outcome::killed;
}

ActOutcome act_and_verify(const KillPlan& plan, const HostRoots& roots, const ActOptions& options,
                          const ActReaders& readers, const ActRecorder& recorder) {
    const auto interrupted = [&] {
        return options.execute.interrupted && options.execute.interrupted();
    };
    ActOutcome outcome;
    outcome.executed = execute_plan(plan, roots, options.execute, recorder.signals);
    if (recorder.executed) recorder.executed(outcome.executed);
    outcome.interrupted = interrupted();
    if (outcome.interrupted) return outcome;

    const bool any_ended =
        std::any_of(outcome.executed.targets.begin(), outcome.executed.targets.end(), ended);
    // Nothing ended, nothing can come back: do not wait out the verify timeout.
    if (any_ended) {
        std::vector<pid_t> target_pids;
        for (const TargetResult& result : outcome.executed.targets) {
            target_pids.push_back(result.target.identity.pid);
        }
        VerifyOptions verify = options.verify;
        verify.interrupted = interrupted;  // Ctrl-C while verifying ends it too
        outcome.releases = verify_release(plan, target_pids, readers.gpus, verify, readers.full);
    }
    note_unreaped_zombies(outcome.executed.targets, roots);
    if (recorder.verified) recorder.verified(outcome.releases);
    outcome.interrupted = interrupted();
    return outcome;
}

}  // namespace gpukill::reclaim
