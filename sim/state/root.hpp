#pragma once
// The layout of a simulated host under DIR (docs/SIMULATOR.md, "State"):
//   DIR/dev/nvidia0..N-1, nvidiactl, nvidia-uvm   regular files standing in for device nodes
//   DIR/gpusim/config.json                         the resolved scenario (immutable)
//   DIR/gpusim/state.lock                          flock: serialises gpusim's writers
//   DIR/gpusim/holders.lock                        OFD byte locks: one byte per allocation
//   DIR/gpusim/next_id                             allocation/leak id counter (under state.lock)
//   DIR/gpusim/allocations/<gpu>/<id>.json         one record per allocation
//   DIR/gpusim/leaks/<gpu>/<id>.json               one record per leak
//   DIR/bin/nvidia-smi                             symlink to gpusim: its nvidia-smi -r path

#include <filesystem>

#include "state/config.hpp"
#include "state/error.hpp"

namespace gpusim {

struct Root {
    std::filesystem::path dir;  // absolute

    std::filesystem::path dev_dir() const { return dir / "dev"; }
    std::filesystem::path device_node(unsigned minor) const;
    std::filesystem::path control_node() const { return dev_dir() / "nvidiactl"; }
    std::filesystem::path uvm_node() const { return dev_dir() / "nvidia-uvm"; }
    std::filesystem::path nvidia_smi_link() const { return dir / "bin" / "nvidia-smi"; }
    std::filesystem::path state_dir() const { return dir / "gpusim"; }
    std::filesystem::path config_file() const { return state_dir() / "config.json"; }
    std::filesystem::path state_lock() const { return state_dir() / "state.lock"; }
    std::filesystem::path holders_lock() const { return state_dir() / "holders.lock"; }
    std::filesystem::path id_counter() const { return state_dir() / "next_id"; }
    std::filesystem::path allocations_dir(unsigned gpu) const;
    std::filesystem::path leaks_dir(unsigned gpu) const;
};

// `dir` made absolute, lexically normal.
Root root_at(const std::filesystem::path& dir);

bool is_initialised(const Root& root);

// Reads DIR/gpusim/config.json. Errors (kExitFailure) say the root is missing or corrupt.
Result<SimConfig> load_config(const Root& root);

}  // namespace gpusim
