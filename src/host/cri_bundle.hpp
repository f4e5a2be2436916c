// Which image a Kubernetes container runs, and in which pod, read from the OCI bundle
// its runtime wrote on the node: no daemon is asked. containerd's CRI is gRPC, CRI-O's
// too; both already wrote the answer into the container's `config.json`, as annotations
// the kubelet's request filled in.
//
// Where the bundles are, below the host's run directory (HostRoots::rundir, /run):
//   containerd 1.7, 2.x  containerd/io.containerd.runtime.v2.task/k8s.io/<id>/config.json
//       The runtime v2 task plugin keeps each task's bundle in its state directory
//       (/run/containerd/io.containerd.runtime.v2.task), one directory per containerd
//       namespace; the CRI plugin works in "k8s.io" (containerd/containerd:
//       core/runtime/v2/bundle.go NewBundle, defaults/defaults_linux.go DefaultStateDir,
//       internal/cri/constants/constants.go; runtime/v2/bundle.go in v1.7).
//   CRI-O 1.28+          containers/storage/overlay-containers/<id>/userdata/config.json
//       containers/storage's run directory for a container (runroot /run/containers/storage,
//       "<driver>-containers/<id>/userdata"; the overlay driver is the default), where
//       CRI-O saves the spec beside the one in its data directory (cri-o/cri-o:
//       server/container_create.go, vendor/go.podman.io/storage/store.go
//       ContainerRunDirectory).
//
// The annotations (annotations.go of each: containerd internal/cri/annotations,
// pkg/cri/annotations in 1.7; CRI-O internal/annotations, and the kubelet's container
// labels that CRI-O copies into the spec, k8s.io/kubelet/pkg/types/labels.go):
//   containerd  io.kubernetes.cri.image-name, .sandbox-name, .sandbox-namespace,
//               .sandbox-uid, .container-name, .container-type ("container"/"sandbox")
//   CRI-O       io.kubernetes.cri-o.ImageName (else io.kubernetes.cri-o.Image, the name as
//               the pod asked for it), io.kubernetes.pod.name, io.kubernetes.pod.namespace,
//               io.kubernetes.pod.uid, io.kubernetes.container.name,
//               io.kubernetes.cri-o.ContainerType
// Both runtimes write these after any annotation a pod passes through, so a pod cannot
// set them: they are the kubelet's and the runtime's records, not the workload's.
// containerd 2.x writes the image as the pod spec names it ("python:3.11"), 1.7 and
// CRI-O the full reference; gpukill completes it (full_image_reference) so both read
// "docker.io/library/python:3.11".
//
// Reading is confined: the runtime's directory is opened, and the bundle's config.json
// is opened beneath it (open_beneath), so no symbolic link or ".." leads out of it; only a
// regular file of at most `max_bytes` is read, and only JSON within bounded_json's depth
// is parsed. A bundle that is missing says nothing (not this runtime's container); one
// that is refused (a link out, too large, not a complete JSON document) is an error with
// the reason. Either way the image stays unknown: `--image` and `--not-image` match only
// a known image, so nothing is killed on a guess.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "model/process.hpp"
#include "model/result.hpp"

namespace gpukill {

enum class CriRuntime { containerd, cri_o };
const char* to_string(CriRuntime runtime);

// Below the host's run directory: the directory holding each runtime's bundles.
inline constexpr std::string_view kContainerdTaskDir =
    "containerd/io.containerd.runtime.v2.task/k8s.io";
inline constexpr std::string_view kCrioContainersDir = "containers/storage/overlay-containers";
// The runtimes' CRI sockets, below the run directory: present with no bundle directory
// readable, they mean "the answer is over gRPC only" (doctor says so).
inline constexpr std::string_view kContainerdSocket = "containerd/containerd.sock";
inline constexpr std::string_view kCrioSocket = "crio/crio.sock";

std::string_view bundle_directory(CriRuntime runtime);
// The config.json of container `id` relative to bundle_directory(runtime).
std::string bundle_config_path(CriRuntime runtime, std::string_view id);

// What the bundle says; each field only when present and valid (Kubernetes' name rules,
// model/kubernetes_names.hpp; an image of printable characters, at most 1024).
struct CriBundleFacts {
    std::optional<std::string> image;  // full_image_reference of what the runtime wrote
    std::optional<std::string> pod_name;
    std::optional<std::string> pod_namespace;
    std::optional<std::string> pod_uid;
    std::optional<std::string> container_name;
    bool sandbox = false;  // the pod's sandbox ("pause") container, not a workload
    friend bool operator==(const CriBundleFacts&, const CriBundleFacts&) = default;
};

// The facts in the annotations of an OCI runtime config (config.json) written by
// `runtime`. Errors (invalid_input): over `max_bytes`, nested too deep, not JSON (cut
// short), or not an object. A config without these annotations gives empty facts. Pure.
Result<CriBundleFacts> parse_cri_bundle(std::string_view config_json, CriRuntime runtime,
                                        std::size_t max_bytes);

// A pod spec is at most 1.5 MB (etcd's request limit), so any real config.json fits.
inline constexpr std::size_t kMaxBundleConfigBytes = 4 << 20;

// The bundle of container `id` (64 hex digits) of `runtime` under `rundir`. Empty when
// the runtime's directory or the bundle is not there. Errors: a name outside
// [0-9a-f]{64} (invalid_input); a link out of the runtime's directory, not a regular
// file, over `max_bytes`, unreadable (refused, permission) or not a complete config
// (invalid_input); each with one line saying which file and why.
Result<std::optional<CriBundleFacts>> read_cri_bundle(
    const std::string& rundir, CriRuntime runtime, std::string_view id,
    std::size_t max_bytes = kMaxBundleConfigBytes);

struct CriBundleOptions {
    std::string rundir = "/run";
    std::chrono::seconds ttl{300};  // a container's bundle never changes while it runs
    std::size_t max_entries = 1024;
    // A bundle that was missing or refused is looked at again after this: a container
    // starting now has its bundle in a moment, and a refusal must not last minutes.
    std::chrono::seconds retry_after{2};
    std::size_t max_bytes = kMaxBundleConfigBytes;
};

// The bundle facts of each container, cached per container id (at most `max_entries`,
// each for `ttl`): a snapshot reads a bundle once per container, not once per process
// or frame. Which runtime's bundle is looked for follows the cgroup (ContainerInfo::
// runtime): "containerd" and "cri-o" their own, "kubernetes" (the cgroupfs driver, which
// does not name the runtime) containerd's then CRI-O's; Docker and Podman containers
// have no CRI bundle.
class CriBundles {
  public:
    explicit CriBundles(CriBundleOptions options);

    struct Lookup {
        std::optional<CriBundleFacts> facts;  // empty: no bundle, or refused
        std::optional<std::string> refusal;   // why the bundle was not read, one line
    };
    Lookup look_up(const ContainerInfo& container, std::chrono::steady_clock::time_point now);
    std::size_t cached() const { return cache_.size(); }

  private:
    struct Entry {
        Lookup lookup;
        std::chrono::steady_clock::time_point expires;
    };
    Lookup read(const std::string& id, const ContainerInfo& container) const;
    void prune(std::chrono::steady_clock::time_point now);

    CriBundleOptions options_;
    std::unordered_map<std::string, Entry> cache_;
};

}  // namespace gpukill
