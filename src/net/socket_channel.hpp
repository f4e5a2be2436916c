// One non-blocking TCP connection, plain or TLS (OpenSSL), as the listener and the
// client use it: every call returns at once, saying whether it moved bytes or which
// readiness (readable, writable) it waits for. Writes never raise SIGPIPE (MSG_NOSIGNAL,
// also under TLS, through a socket BIO of our own), so no process-wide signal setting
// is needed.
//
// TlsContext holds the certificates: a server's (certificate chain, private key, and a
// CA that client certificates must chain to for mTLS) or a client's (the CA to verify
// the server against, else the system's store; the server's name or address checked
// against its certificate).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "model/result.hpp"

using SSL_CTX = struct ssl_ctx_st;
using SSL = struct ssl_st;

namespace gpukill::net {

class TlsContext {
  public:
    // Errors (invalid_input): a file that does not load, a key that does not match.
    static Result<TlsContext> server(const std::string& certificate_file,
                                     const std::string& key_file,
                                     const std::optional<std::string>& client_ca_file);
    static Result<TlsContext> client(const std::optional<std::string>& ca_file);
    SSL_CTX* get() const { return context_.get(); }

  private:
    struct Free {
        void operator()(SSL_CTX* context) const;
    };
    std::shared_ptr<SSL_CTX> context_;
};

enum class IoWait { none, readable, writable };

// What one call did: `bytes` moved (> 0), or it must wait (`wait`), or the peer
// closed (`closed`: end of stream), or it failed (`failed`, with `error`).
struct IoStep {
    std::size_t bytes = 0;
    IoWait wait = IoWait::none;
    bool closed = false;
    bool failed = false;
    std::string error;
};

class SocketChannel {
  public:
    SocketChannel() = default;
    // Takes `fd` (made non-blocking here). With `tls`, a TLS session in the given role;
    // `server_name` (client role) is checked against the server's certificate and sent
    // as SNI when it is a name.
    static Result<SocketChannel> open(int fd, const TlsContext* tls, bool server_role,
                                      const std::string& server_name = "");
    SocketChannel(SocketChannel&& other) noexcept;
    SocketChannel& operator=(SocketChannel&& other) noexcept;
    SocketChannel(const SocketChannel&) = delete;
    SocketChannel& operator=(const SocketChannel&) = delete;
    ~SocketChannel();

    int fd() const { return fd_; }
    bool tls() const { return ssl_ != nullptr; }
    // The TLS handshake (no-op for plain): done when it returns bytes == 1.
    IoStep handshake();
    bool handshake_done() const { return handshaken_; }
    // For a client: whether the server's certificate failed verification (and why).
    std::optional<std::string> verification_failure() const;
    IoStep read(char* into, std::size_t size);
    IoStep write(const char* from, std::size_t size);
    // Decrypted bytes OpenSSL holds that the socket will not signal again.
    bool pending() const;
    // No more writes (a FIN after what was written); reads go on.
    void shutdown_write();
    void close();

  private:
    SocketChannel(int fd, SSL* ssl) : fd_(fd), ssl_(ssl) {}
    IoStep tls_step(int result, const char* what);

    int fd_ = -1;
    SSL* ssl_ = nullptr;
    bool handshaken_ = false;
};

}  // namespace gpukill::net
