// A unix-socket server that replays the Docker Engine API's documented answers
// (https://docs.docker.com/reference/api/engine/, "ContainerInspect" and "SystemPing"):
// GET /_ping -> "OK"; GET /containers/{id}/json -> the inspect document of a container
// it was told about (200), or {"message": "No such container: ID"} (404). Container
// runtimes cannot start containers on the test machines (crun cannot set rlimits in the
// sandbox), so the runtime's API is replayed from its documented JSON instead.
//
// Header-only, for the unit and integration tests. One thread; one request per
// connection (the client sends Connection: close). `chunked` answers with
// Transfer-Encoding: chunked, as dockerd does for some endpoints.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace gpukill::testing {

class DockerApiReplay {
  public:
    DockerApiReplay(std::string socket_path, bool chunked = false)
        : path_(std::move(socket_path)), chunked_(chunked) {
        fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        if (path_.size() >= sizeof(address.sun_path)) throw std::runtime_error("path too long");
        std::memcpy(address.sun_path, path_.c_str(), path_.size() + 1);
        ::unlink(path_.c_str());
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
            ::listen(fd_, 16) != 0) {
            throw std::runtime_error("cannot listen on " + path_);
        }
        thread_ = std::thread([this] { serve(); });
    }
    ~DockerApiReplay() {
        stopping_ = true;
        ::shutdown(fd_, SHUT_RDWR);
        thread_.join();
        ::close(fd_);
        ::unlink(path_.c_str());
    }
    DockerApiReplay(const DockerApiReplay&) = delete;
    DockerApiReplay& operator=(const DockerApiReplay&) = delete;

    // A container the replayed daemon knows: its full id and the image it was created
    // from ("python:3.11").
    void add_container(const std::string& id, const std::string& image, const std::string& name) {
        std::lock_guard lock(mutex_);
        containers_[id] = inspect_document(id, image, name);
    }
    int requests() const { return requests_; }
    const std::string& path() const { return path_; }

    // The documented ContainerInspect answer, trimmed to the fields a reader relies on.
    static std::string inspect_document(const std::string& id, const std::string& image,
                                        const std::string& name) {
        return R"({"Id":")" + id +
               R"(","Created":"2026-01-02T03:04:05.000000000Z","Path":"python","Args":["train.py"],"State":{"Status":"running","Running":true,"Paused":false,"Restarting":false,"OOMKilled":false,"Dead":false,"Pid":4242,"ExitCode":0,"Error":"","StartedAt":"2026-01-02T03:04:06.000000000Z","FinishedAt":"0001-01-01T00:00:00Z"},"Image":"sha256:6b2a1f0e5c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7","Name":"/)" +
               name +
               R"(","RestartCount":0,"Driver":"overlay2","Platform":"linux","HostConfig":{"NetworkMode":"bridge","Runtime":"nvidia","DeviceRequests":[{"Driver":"","Count":-1,"DeviceIDs":null,"Capabilities":[["gpu"]],"Options":{}}]},"Config":{"Hostname":"4fa6e0f0c678","User":"","Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Cmd":["python","train.py"],"Image":")" +
               image +
               R"(","WorkingDir":"/workspace","Entrypoint":null,"Labels":{"com.example.team":"ml"}}})";
    }

  private:
    void serve() {
        while (!stopping_) {
            const int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (client < 0) {
                if (stopping_) return;
                continue;
            }
            answer(client);
            ::close(client);
        }
    }

    void answer(int client) {
        std::string request;
        char buffer[4096];
        while (request.find("\r\n\r\n") == std::string::npos && request.size() < 65536) {
            const ssize_t n = ::recv(client, buffer, sizeof(buffer), 0);
            if (n <= 0) return;
            request.append(buffer, static_cast<std::size_t>(n));
        }
        ++requests_;
        const std::size_t space = request.find(' ');
        const std::size_t end = request.find(' ', space + 1);
        const std::string target = request.substr(space + 1, end - space - 1);
        int status = 404;
        std::string body = R"({"message":"page not found"})";
        if (target == "/_ping") {
            status = 200;
            body = "OK";
        } else if (target.starts_with("/containers/") && target.ends_with("/json")) {
            const std::string id = target.substr(12, target.size() - 12 - 5);
            std::lock_guard lock(mutex_);
            if (auto found = containers_.find(id); found != containers_.end()) {
                status = 200;
                body = found->second;
            } else {
                body = R"({"message":"No such container: )" + id + R"("})";
            }
        }
        std::string head = "HTTP/1.1 " + std::to_string(status) +
                           (status == 200 ? " OK" : " Not Found") +
                           "\r\nApi-Version: 1.45\r\nContent-Type: application/json\r\n"
                           "Server: Docker/26.1.0 (linux)\r\n";
        std::string out;
        if (chunked_) {
            const std::size_t half = body.size() / 2;
            char size1[32], size2[32];
            std::snprintf(size1, sizeof(size1), "%zx", half);
            std::snprintf(size2, sizeof(size2), "%zx", body.size() - half);
            out = head + "Transfer-Encoding: chunked\r\n\r\n" + size1 + "\r\n" +
                  body.substr(0, half) + "\r\n" + size2 + "\r\n" + body.substr(half) +
                  "\r\n0\r\n\r\n";
        } else {
            out = head + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
        }
        std::size_t sent = 0;
        while (sent < out.size()) {
            const ssize_t n = ::send(client, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
            if (n <= 0) return;
            sent += static_cast<std::size_t>(n);
        }
    }

    std::string path_;
    bool chunked_;
    int fd_ = -1;
    std::atomic<bool> stopping_{false};
    std::atomic<int> requests_{0};
    std::mutex mutex_;
    std::map<std::string, std::string> containers_;
    std::thread thread_;
};

}  // namespace gpukill::testing
