// dcgm-exporter's names for NVIDIA GPUs (`gpukill agent --dcgm-names`), pure: the families
// of its default counters (etc/default-counters.csv in NVIDIA/dcgm-exporter) that NVML
// gives, in its units and with its labels, so NVIDIA's Grafana dashboard (grafana.com
// 12239) and alerts written for dcgm-exporter work unchanged. docs/METRICS.md lists them
// and what is left out (DCGM's profiling fields, vGPU licensing).
//
// dcgm-exporter declares some of these `counter` without the `_total` suffix that
// OpenMetrics requires and promtool asks for. Their names are what dashboards query, so
// they are kept, and declared `gauge`: a valid exposition in both formats, stored by
// Prometheus with a known type, and rate() and increase() work on them as before.
#pragma once

#include "agent/exposition.hpp"
#include "model/snapshot.hpp"

namespace gpukill::agent {

// The labels dcgm-exporter puts on a GPU's series, less the host's (the exposition adds
// it): gpu, UUID, pci_bus_id, device, modelName. Every per-GPU family carries them.
Labels gpu_labels(const Gpu& gpu);

// dcgm-exporter's families for the NVIDIA GPUs of `snapshot`, declared in `out`. With
// the Kubernetes labels of its --kubernetes mode (NVIDIA/dcgm-exporter
// internal/pkg/transformation: `pod`, `namespace`, `container`, the names of the pod
// and of the container in it): on every series of a GPU that one pod's container uses;
// where several share a GPU, DCGM_FI_DEV_FB_USED also once per container with the
// memory its processes hold, beside the GPU's own unnamed series.
void dcgm_metrics(Exposition& out, const Snapshot& snapshot);

// dcgm-exporter's spelling of a PCI bus id (NVML's: "00000000:3B:00.0") from gpukill's
// normalised one ("0000:3b:00.0").
std::string nvml_pci_bus_id(std::string_view normalised);

}  // namespace gpukill::agent
