// The match selectors: which GPU holders a request is about. One struct that the kill
// request and the list request both inherit, so "which processes would `--gpu 1
// --not-image X` take" has the same fields, the same words and the same answer as the
// plan (engine/request_tables.cpp describes them once for both).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpukill::engine {

struct MatchSelectors {
    std::optional<std::string> gpu;        // an index, UUID or PCI bus id
    std::optional<std::string> filter;     // a pattern searched in name and command line
    std::optional<std::string> user;       // exact user name or numeric uid
    std::optional<std::string> container;  // container id (prefix of at least 4) or pod UID
    std::optional<std::string> slurm_job;  // Slurm job id, from the process's cgroup
    // The pod's Kubernetes namespace and the pod's name, exactly, as the runtime's bundle
    // (or the kubelet's pod log directory) names them.
    std::optional<std::string> pod_namespace;
    std::optional<std::string> pod;
    std::optional<std::string> image;      // a pattern on the container's image
    std::optional<std::string> not_image;  // in a container whose image is known, not matching
    std::optional<std::uint64_t> min_memory_bytes;  // driver-reported memory on any GPU
    bool orphaned = false;                          // re-parented after its parent died
    bool unlisted = false;  // holds a device file, absent from the driver list

    // A selector other than --gpu narrows the processes (--gpu alone narrows the GPUs).
    bool selects_processes() const {
        return filter || user || container || slurm_job || pod_namespace || pod || image ||
               not_image || min_memory_bytes || orphaned || unlisted;
    }
};

}  // namespace gpukill::engine
