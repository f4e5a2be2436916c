// Which GPU holders are observers: processes that hold NVIDIA device files the way a
// monitoring client does, with no context on any GPU. Pure: decided from the snapshot's
// facts, never from a process's name, command line or environment.
//
// The facts, and where they come from:
//   - The driver lists every process with a context on a GPU, with the memory it uses
//     (NVML reference, nvmlDeviceGetComputeRunningProcesses: "information only about
//     compute running processes (e.g. CUDA application which have active context)", and
//     usedGpuMemory is "all of the memory used by the application"; the graphics and MPS
//     lists likewise). A process absent from every list has no context and no GPU memory.
//   - NVML and the tools built on it open the control node /dev/nvidiactl and the GPU
//     nodes /dev/nvidiaN (major 195) and nothing else. The CUDA driver also opens the
//     unified-memory node /dev/nvidia-uvm for every context. NVIDIA's container library
//     says as much: a container given only the "utility" capability (nvidia-smi, NVML)
//     gets the major-195 nodes, and /dev/nvidia-uvm and /dev/nvidia-uvm-tools are mounted
//     only for "compute" (libnvidia-container, src/nvc_mount.c, nvc_driver_mount: "Only
//     compute libraries require specific devices (e.g. UVM)").
//   - nvidia-persistenced "holds the NVIDIA character device files open ... does not
//     actually use any device resources itself" (NVIDIA Linux driver README, "Using the
//     nvidia-persistenced Utility"). nv-hostengine (DCGM), dcgm-exporter and the device
//     plugin reach the GPUs through NVML; nvtop and nvidia-smi list only the driver's
//     processes, so NVML clients never appear in them.
//   - /dev/nvidia-caps/nvidia-capN are MIG capabilities; the "monitor" one is what
//     monitoring tools hold (libnvidia-container, nvc_mig_monitor_global_caps_mount).
//
// So a holder is an observer when all of these hold:
//   1. every node it holds is /dev/nvidiactl, a /dev/nvidiaN or a /dev/nvidia-caps node:
//      no /dev/nvidia-uvm (a CUDA client: a trainer's forked DataLoader worker holds it,
//      inherited, and keeps the trainer's memory once the trainer dies), no DRM, kfd or
//      accel node (their drivers keep no comparable list);
//   2. no driver list names it on any GPU;
//   3. the driver's list of every GPU it holds was read (a GPU whose list is unknown says
//      nothing about who has a context on it).
// Anything else is a workload. A monitor that loads the CUDA driver holds /dev/nvidia-uvm
// and is therefore a workload here (nvidia-persistenced with --uvm-persistence-mode, and
// DCGM's profiling metrics, which need the "compute" capability per dcgm-exporter's
// Dockerfile): it stays on the protected list, but is counted. docs/JSON.md, "role".
#pragma once

#include <vector>

#include "model/snapshot.hpp"

namespace gpukill {

ProcessRole process_role(const SnapshotProcess& process, const std::vector<Gpu>& gpus);

// Sets every process's role, then each GPU's process_count (workloads tied to it) and
// observer_count.
void assign_roles(Snapshot& snapshot);

}  // namespace gpukill
