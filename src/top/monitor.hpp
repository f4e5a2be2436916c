// gpukill top: the interactive monitor over one Engine. Reads a snapshot every interval
// (the engine's list; from the second on, the event-driven holder tracker where it can
// run), shows the GPU and process panels, and acts only through the engine: a signal is
// planned with engine::plan_kill (every target bound to its PID and start time, the same
// refusals as `gpukill kill`), confirmed in a dialog naming each process, carried out
// with engine::execute_kill, and its "memory back" verdict shown per GPU; a GPU left
// soft-locked can be reset through engine::reset after its preflight. Every record names
// the actor given (interface `top`).
//
// One thread: the engine is not thread-safe, and input is polled with a timeout between
// refreshes (no busy loop). The terminal is restored on every way out.
#pragma once

#include <optional>

#include "engine/engine.hpp"
#include "model/actor.hpp"
#include "model/result.hpp"

namespace gpukill::top {

struct TopOptions {
    double interval_seconds = 2.0;  // between reads: 0.1 to 86400
    bool readonly = false;          // every key that changes something is refused
    std::optional<unsigned> gpu;    // start limited to this GPU (g changes it)
};

inline constexpr double kMinIntervalSeconds = 0.1;
inline constexpr double kMaxIntervalSeconds = 86400;

// Until q, Ctrl-C, SIGTERM or SIGHUP. Errors: invalid_input (the interval), unavailable
// (no terminal ncurses can drive).
Result<void> run_top(engine::Engine& engine, const TopOptions& options, const Actor& actor);

}  // namespace gpukill::top
