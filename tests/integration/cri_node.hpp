// A Kubernetes node's container runtime state as the tests lay it out: for each container,
// the OCI bundle containerd or CRI-O writes under the host's run directory (its
// config.json with the annotations the runtime sets; tests/fixtures/cri/README.md says
// from which sources), and the cgroup the kubelet's systemd driver names for it, for
// TestCgroup. Container runtimes cannot start containers in this sandbox; the processes
// moved into these cgroups are real gpusim workloads.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace gpukill::testing {

struct CriContainer {
    std::string runtime = "containerd";  // or "cri-o"
    std::string id;                      // 64 lower-case hex digits
    std::string image;                   // as the runtime writes it
    std::string pod;
    std::string pod_namespace;
    std::string pod_uid;  // a UUID with dashes
    std::string container;
};

// Two hex digits for `tag`, so each tag gives its own id.
inline std::string cri_tag_hex(char tag) {
    const auto byte = static_cast<unsigned char>(tag);
    return {"0123456789abcdef"[byte >> 4], "0123456789abcdef"[byte & 15]};
}

// 64 hex digits unique to this test process and `tag`: tests running at once never share
// a container's cgroup.
inline std::string cri_container_id(char tag) {
    std::string id = cri_tag_hex(tag) + std::to_string(::getpid());
    while (id.size() < 64) id += "0123456789abcdef"[(id.size() * 7) % 16];
    return id;
}

// A pod UID unique to this test process and `tag`.
inline std::string cri_pod_uid(char tag) {
    std::string pid = std::to_string(::getpid());
    pid.insert(0, 12 - std::min<std::size_t>(pid.size(), 12), '0');
    return "5e6f7a" + cri_tag_hex(tag) + "-1111-2222-3333-" + pid;
}

// The config.json `c`'s runtime would write: the OCI essentials and its annotations.
inline nlohmann::json cri_config(const CriContainer& c) {
    std::string underscored = c.pod_uid;
    for (char& ch : underscored) {
        if (ch == '-') ch = '_';
    }
    const bool containerd = c.runtime == "containerd";
    nlohmann::json annotations;
    if (containerd) {
        annotations = {{"io.kubernetes.cri.container-type", "container"},
                       {"io.kubernetes.cri.sandbox-id", std::string(64, 'f')},
                       {"io.kubernetes.cri.sandbox-name", c.pod},
                       {"io.kubernetes.cri.sandbox-namespace", c.pod_namespace},
                       {"io.kubernetes.cri.sandbox-uid", c.pod_uid},
                       {"io.kubernetes.cri.container-name", c.container},
                       {"io.kubernetes.cri.image-name", c.image}};
    } else {
        annotations = {{"io.container.manager", "cri-o"},
                       {"io.kubernetes.cri-o.ContainerID", c.id},
                       {"io.kubernetes.cri-o.ContainerType", "container"},
                       {"io.kubernetes.cri-o.Image", c.image},
                       {"io.kubernetes.cri-o.ImageName", c.image},
                       {"io.kubernetes.pod.name", c.pod},
                       {"io.kubernetes.pod.namespace", c.pod_namespace},
                       {"io.kubernetes.pod.uid", c.pod_uid},
                       {"io.kubernetes.container.name", c.container}};
    }
    return {{"ociVersion", "1.1.0"},
            {"process", {{"args", {"/bin/sh"}}, {"cwd", "/"}, {"user", {{"uid", 0}, {"gid", 0}}}}},
            {"root", {{"path", "rootfs"}}},
            {"annotations", annotations},
            {"linux",
             {{"cgroupsPath", "kubepods-besteffort-pod" + underscored +
                                  ".slice:" + (containerd ? "cri-containerd:" : "crio:") + c.id}}}};
}

// Where `c`'s bundle config.json lies under `rundir`.
inline std::string cri_config_path(const std::string& rundir, const CriContainer& c) {
    return c.runtime == "containerd"
               ? rundir + "/containerd/io.containerd.runtime.v2.task/k8s.io/" + c.id +
                     "/config.json"
               : rundir + "/containers/storage/overlay-containers/" + c.id +
                     "/userdata/config.json";
}

// Writes `c`'s bundle under `rundir` (directories 0700 as the runtimes make them);
// returns its config.json's path.
inline std::string write_cri_bundle(const std::string& rundir, const CriContainer& c) {
    const std::string path = cri_config_path(rundir, c);
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    std::filesystem::create_directories(dir);
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all);
    std::ofstream out(path);
    out << cri_config(c).dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + path);
    return path;
}

// The cgroup the kubelet's systemd driver gives `c` (cgroup v2's path; the same names
// below a v1 hierarchy): kubepods.slice/kubepods-besteffort.slice/
// kubepods-besteffort-pod<uid with '_'>.slice/cri-containerd-<id>.scope (crio-<id>.scope).
inline std::string cri_cgroup(const CriContainer& c) {
    std::string underscored = c.pod_uid;
    for (char& ch : underscored) {
        if (ch == '-') ch = '_';
    }
    return "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + underscored +
           ".slice/" + (c.runtime == "containerd" ? "cri-containerd-" : "crio-") + c.id + ".scope";
}

}  // namespace gpukill::testing
