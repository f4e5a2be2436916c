#include "cli/ledger.hpp"

#include <unistd.h>

#include <charconv>

#include "state/holder_lock.hpp"
#include "state/proc_identity.hpp"
#include "state/size.hpp"

namespace gpusim {

namespace {

// The next id from DIR/gpusim/next_id; ids are never reused, so a lock byte never is either.
Result<std::uint64_t> take_id(const Root& root, const StateLock& /*held*/) {
    auto text = read_file(root.id_counter());
    if (!text) return std::unexpected(text.error());
    std::uint64_t id = 0;
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), id);
    if (error != std::errc{} || id == 0) {
        return fail(kExitFailure, "corrupt gpusim state: " + root.id_counter().string());
    }
    auto written = write_file_atomic(root.id_counter(), std::to_string(id + 1) + "\n");
    if (!written) return std::unexpected(written.error());
    return id;
}

Result<void> check_capacity(const GpuSpec& spec, const GpuUsage& usage, unsigned gpu,
                            std::uint64_t bytes) {
    const std::uint64_t used = spec.memory_reserved_bytes + usage.used_bytes();
    const std::uint64_t free = used < spec.memory_total_bytes ? spec.memory_total_bytes - used : 0;
    if (bytes > free) {
        return fail(kExitDevice, "CUDA out of memory: tried to allocate " + format_size(bytes) +
                                     " on GPU " + std::to_string(gpu) + " (" +
                                     format_size(spec.memory_total_bytes) + " total, " +
                                     format_size(free) + " free)");
    }
    return {};
}

// Survey, collect and check capacity under the state lock: what every registration starts with.
Result<GpuUsage> survey_for_write(const Root& root, const StateLock& held, unsigned gpu,
                                  const GpuSpec& spec, std::uint64_t bytes) {
    auto usage = survey_gpu(root, gpu);
    if (!usage) return std::unexpected(usage.error());
    collect_dead(root, gpu, *usage, held);
    auto fits = check_capacity(spec, *usage, gpu, bytes);
    if (!fits) return std::unexpected(fits.error());
    return usage;
}

}  // namespace

Result<const GpuSpec*> usable_gpu(const SimConfig& config, unsigned gpu) {
    if (gpu >= config.gpus.size()) {
        return fail(kExitDevice, "invalid device ordinal: GPU " + std::to_string(gpu) +
                                     " does not exist (the host has " +
                                     std::to_string(config.gpus.size()) + " GPUs)");
    }
    if (config.gpus[gpu].lost) {
        return fail(kExitDevice, "GPU " + std::to_string(gpu) + " has fallen off the bus");
    }
    return &config.gpus[gpu];
}

Result<AllocationRecord> register_allocation(const Root& root, const SimConfig& config,
                                             int holders_fd, unsigned gpu, std::uint64_t bytes,
                                             unsigned util_percent) {
    auto spec = usable_gpu(config, gpu);
    if (!spec) return std::unexpected(spec.error());
    const auto self = read_proc_stat(::getpid());
    if (!self) return fail(kExitFailure, "cannot read /proc/self/stat");

    auto lock = StateLock::acquire(root);
    if (!lock) return std::unexpected(lock.error());
    auto usage = survey_for_write(root, *lock, gpu, **spec, bytes);
    if (!usage) return std::unexpected(usage.error());
    auto id = take_id(root, *lock);
    if (!id) return std::unexpected(id.error());

    // Lock first, record second: a record is never visible without its holder lock.
    auto held = hold_byte(holders_fd, *id);
    if (!held) return std::unexpected(held.error());
    AllocationRecord record{*id, gpu, ::getpid(), self->start_time_ticks, bytes, util_percent};
    auto written = write_allocation(root, record);
    if (!written) return std::unexpected(written.error());
    return record;
}

Result<LeakRecord> register_leak(const Root& root, const SimConfig& config, unsigned gpu,
                                 std::uint64_t bytes) {
    auto spec = usable_gpu(config, gpu);
    if (!spec) return std::unexpected(spec.error());
    auto lock = StateLock::acquire(root);
    if (!lock) return std::unexpected(lock.error());
    auto usage = survey_for_write(root, *lock, gpu, **spec, bytes);
    if (!usage) return std::unexpected(usage.error());
    auto id = take_id(root, *lock);
    if (!id) return std::unexpected(id.error());
    LeakRecord record{*id, gpu, bytes};
    auto written = write_leak(root, record);
    if (!written) return std::unexpected(written.error());
    return record;
}

Result<ResetOutcome> reset_gpu(const Root& root, const SimConfig& config, unsigned gpu,
                               bool force) {
    if (gpu >= config.gpus.size()) {
        return fail(kExitDevice,
                    "invalid device ordinal: GPU " + std::to_string(gpu) + " does not exist");
    }
    auto lock = StateLock::acquire(root);
    if (!lock) return std::unexpected(lock.error());
    auto usage = survey_gpu(root, gpu);
    if (!usage) return std::unexpected(usage.error());

    std::size_t in_use = 0;
    for (const AllocationState& allocation : usage->allocations) in_use += allocation.held;
    if (in_use > 0 && !force) {
        return fail(kExitDevice, "GPU " + std::to_string(gpu) +
                                     " is in use: " + std::to_string(in_use) +
                                     " allocation(s) still held by processes (use --force)");
    }
    ResetOutcome outcome;
    outcome.freed_bytes = usage->used_bytes();
    for (const AllocationState& allocation : usage->allocations) {
        ::unlink(allocation_path(root, gpu, allocation.record.id).c_str());
        outcome.allocations_dropped += allocation.held;
    }
    for (const LeakRecord& leak : usage->leaks) {
        ::unlink(leak_path(root, gpu, leak.id).c_str());
        ++outcome.leaks_dropped;
    }
    return outcome;
}

}  // namespace gpusim
