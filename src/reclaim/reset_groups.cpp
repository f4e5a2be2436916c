// reset_group_of (reset_plan.hpp): which GPUs a vendor resets together.
#include <map>
#include <set>
#include <string>

#include "model/nvidia_architecture.hpp"
#include "reclaim/reset_plan.hpp"

namespace gpukill::reclaim {

std::vector<unsigned> reset_group_of(const Snapshot& snapshot, const ResetFacts& facts,
                                     unsigned gpu) {
    // A bipartite graph: GPUs and the ends they are attached to ("bus:" a PCI device at
    // either end of a pre-Ampere NVLink, "hive:" an XGMI hive). GPUs sharing an end reset
    // together, and so does everything reachable from them.
    std::map<std::string, std::vector<unsigned>> attached;
    std::map<unsigned, std::vector<std::string>> ends;
    for (const Gpu& candidate : snapshot.gpus) {
        const GpuReading& r = candidate.reading;
        std::vector<std::string>& mine = ends[candidate.index];
        if (r.vendor == Vendor::nvidia && r.nvml_architecture &&
            nvlink_peers_reset_together(*r.nvml_architecture) && r.nvlink_peer_bus_ids &&
            !r.nvlink_peer_bus_ids->empty()) {
            if (r.pci_bus_id) mine.push_back("bus:" + *r.pci_bus_id);
            for (const std::string& peer : *r.nvlink_peer_bus_ids) mine.push_back("bus:" + peer);
        }
        if (auto hive = facts.xgmi_hives.find(candidate.index); hive != facts.xgmi_hives.end()) {
            mine.push_back("hive:" + hive->second);
        }
        for (const std::string& end : mine) attached[end].push_back(candidate.index);
    }
    std::set<unsigned> reached{gpu};
    std::vector<unsigned> frontier{gpu};
    while (!frontier.empty()) {
        const unsigned current = frontier.back();
        frontier.pop_back();
        for (const std::string& end : ends[current]) {
            for (unsigned peer : attached[end]) {
                if (reached.insert(peer).second) frontier.push_back(peer);
            }
        }
    }
    return {reached.begin(), reached.end()};
}

}  // namespace gpukill::reclaim
