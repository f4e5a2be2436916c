#include "net/socket_channel.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

namespace gpukill::net {
namespace {

// OpenSSL's own socket BIO writes with write(2), which raises SIGPIPE on a connection
// the peer reset; this one sends with MSG_NOSIGNAL.
int bio_fd(BIO* bio) {
    return static_cast<int>(reinterpret_cast<std::intptr_t>(BIO_get_data(bio)));
}

int bio_write(BIO* bio, const char* data, int size) {
    BIO_clear_retry_flags(bio);
    const ssize_t n = ::send(bio_fd(bio), data, static_cast<std::size_t>(size), MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        BIO_set_retry_write(bio);
    }
    return static_cast<int>(n);
}

int bio_read(BIO* bio, char* data, int size) {
    BIO_clear_retry_flags(bio);
    const ssize_t n = ::recv(bio_fd(bio), data, static_cast<std::size_t>(size), 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        BIO_set_retry_read(bio);
    }
    return static_cast<int>(n);
}

long bio_ctrl(BIO*, int command, long, void*) {
    return command == BIO_CTRL_FLUSH ? 1 : 0;
}

int bio_create(BIO* bio) {
    BIO_set_init(bio, 1);
    return 1;
}

const BIO_METHOD* socket_method() {
    static BIO_METHOD* method = [] {
        BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "gpukill socket");
        BIO_meth_set_write(m, bio_write);
        BIO_meth_set_read(m, bio_read);
        BIO_meth_set_ctrl(m, bio_ctrl);
        BIO_meth_set_create(m, bio_create);
        return m;
    }();
    return method;
}

std::string openssl_error(const char* what) {
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0) return what;
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    return fmt::format("{}: {}", what, text);
}

void common_settings(SSL_CTX* context) {
    SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
    auto options = SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION;
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
    options |= SSL_OP_IGNORE_UNEXPECTED_EOF;  // a peer that just closes: end of stream
#endif
    SSL_CTX_set_options(context, options);
    SSL_CTX_set_mode(context, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE |
                                  SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

bool is_ip_literal(const std::string& name) {
    unsigned char buffer[sizeof(in6_addr)];
    return inet_pton(AF_INET, name.c_str(), buffer) == 1 ||
           inet_pton(AF_INET6, name.c_str(), buffer) == 1;
}

}  // namespace

void TlsContext::Free::operator()(SSL_CTX* context) const {
    SSL_CTX_free(context);
}

Result<TlsContext> TlsContext::server(const std::string& certificate_file,
                                      const std::string& key_file,
                                      const std::optional<std::string>& client_ca_file) {
    TlsContext tls;
    tls.context_ = std::shared_ptr<SSL_CTX>(SSL_CTX_new(TLS_server_method()), Free{});
    SSL_CTX* context = tls.context_.get();
    if (context == nullptr) return fail(ErrorCategory::internal, openssl_error("TLS"));
    common_settings(context);
    if (SSL_CTX_use_certificate_chain_file(context, certificate_file.c_str()) != 1) {
        return fail(ErrorCategory::invalid_input,
                    openssl_error(("TLS certificate " + certificate_file).c_str()));
    }
    if (SSL_CTX_use_PrivateKey_file(context, key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(context) != 1) {
        return fail(ErrorCategory::invalid_input, openssl_error(("TLS key " + key_file).c_str()));
    }
    if (client_ca_file) {
        STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(client_ca_file->c_str());
        if (names == nullptr ||
            SSL_CTX_load_verify_locations(context, client_ca_file->c_str(), nullptr) != 1) {
            if (names != nullptr) sk_X509_NAME_pop_free(names, X509_NAME_free);
            return fail(ErrorCategory::invalid_input,
                        openssl_error(("TLS client CA " + *client_ca_file).c_str()));
        }
        SSL_CTX_set_client_CA_list(context, names);
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
    }
    return tls;
}

Result<TlsContext> TlsContext::client(const std::optional<std::string>& ca_file) {
    TlsContext tls;
    tls.context_ = std::shared_ptr<SSL_CTX>(SSL_CTX_new(TLS_client_method()), Free{});
    SSL_CTX* context = tls.context_.get();
    if (context == nullptr) return fail(ErrorCategory::internal, openssl_error("TLS"));
    common_settings(context);
    const bool loaded = ca_file
                            ? SSL_CTX_load_verify_locations(context, ca_file->c_str(), nullptr) == 1
                            : SSL_CTX_set_default_verify_paths(context) == 1;
    if (!loaded) {
        return fail(ErrorCategory::invalid_input,
                    openssl_error(ca_file ? ("CA file " + *ca_file).c_str() : "the system's CAs"));
    }
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nullptr);
    return tls;
}

Result<SocketChannel> SocketChannel::open(int fd, const TlsContext* tls, bool server_role,
                                          const std::string& server_name) {
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
        const int error = errno;
        ::close(fd);
        return fail("cannot make a socket non-blocking", error);
    }
    if (tls == nullptr) return SocketChannel(fd, nullptr);
    SSL* ssl = SSL_new(tls->get());
    BIO* bio = ssl != nullptr ? BIO_new(socket_method()) : nullptr;
    if (bio == nullptr) {
        if (ssl != nullptr) SSL_free(ssl);
        ::close(fd);
        return fail(ErrorCategory::internal, openssl_error("TLS session"));
    }
    BIO_set_data(bio, reinterpret_cast<void*>(static_cast<std::intptr_t>(fd)));
    SSL_set_bio(ssl, bio, bio);
    SocketChannel channel(fd, ssl);
    if (server_role) {
        SSL_set_accept_state(ssl);
        return channel;
    }
    SSL_set_connect_state(ssl);
    if (!server_name.empty()) {
        const bool checked =
            is_ip_literal(server_name)
                ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), server_name.c_str()) == 1
                : SSL_set_tlsext_host_name(ssl, server_name.c_str()) == 1 &&
                      SSL_set1_host(ssl, server_name.c_str()) == 1;
        if (!checked) {
            return fail(ErrorCategory::invalid_input,
                        openssl_error(("TLS server name " + server_name).c_str()));
        }
    }
    return channel;
}

SocketChannel::SocketChannel(SocketChannel&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      ssl_(std::exchange(other.ssl_, nullptr)),
      handshaken_(other.handshaken_) {}

SocketChannel& SocketChannel::operator=(SocketChannel&& other) noexcept {
    if (this != &other) {
        close();
        fd_ = std::exchange(other.fd_, -1);
        ssl_ = std::exchange(other.ssl_, nullptr);
        handshaken_ = other.handshaken_;
    }
    return *this;
}

SocketChannel::~SocketChannel() {
    close();
}

void SocketChannel::close() {
    if (ssl_ != nullptr) {
        SSL_free(ssl_);
        ssl_ = nullptr;
    }
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

IoStep SocketChannel::tls_step(int result, const char* what) {
    IoStep step;
    const int error = SSL_get_error(ssl_, result);
    switch (error) {
        case SSL_ERROR_WANT_READ:
            step.wait = IoWait::readable;
            break;
        case SSL_ERROR_WANT_WRITE:
            step.wait = IoWait::writable;
            break;
        case SSL_ERROR_ZERO_RETURN:
            step.closed = true;
            break;
        case SSL_ERROR_SYSCALL:
            if (errno == 0 || result == 0) {
                step.closed = true;
            } else {
                step.failed = true;
                step.error = fmt::format("{}: {}", what, std::strerror(errno));
            }
            ERR_clear_error();
            break;
        default:
            step.failed = true;
            step.error = openssl_error(what);
            break;
    }
    return step;
}

IoStep SocketChannel::handshake() {
    if (ssl_ == nullptr || handshaken_) return IoStep{.bytes = 1};
    errno = 0;
    const int result = SSL_do_handshake(ssl_);
    if (result == 1) {
        handshaken_ = true;
        return IoStep{.bytes = 1};
    }
    IoStep step = tls_step(result, "TLS handshake");
    if (step.closed) {
        step.closed = false;
        step.failed = true;
        step.error = "TLS handshake: the peer closed the connection";
    }
    return step;
}

std::optional<std::string> SocketChannel::verification_failure() const {
    if (ssl_ == nullptr) return std::nullopt;
    const long result = SSL_get_verify_result(ssl_);
    if (result == X509_V_OK) return std::nullopt;
    return std::string(X509_verify_cert_error_string(result));
}

IoStep SocketChannel::read(char* into, std::size_t size) {
    if (ssl_ != nullptr) {
        errno = 0;
        const int n = SSL_read(ssl_, into, static_cast<int>(std::min<std::size_t>(size, 1 << 30)));
        if (n > 0) return IoStep{.bytes = static_cast<std::size_t>(n)};
        return tls_step(n, "TLS read");
    }
    const ssize_t n = ::recv(fd_, into, size, 0);
    if (n > 0) return IoStep{.bytes = static_cast<std::size_t>(n)};
    if (n == 0) return IoStep{.closed = true};
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        return IoStep{.wait = IoWait::readable};
    }
    return IoStep{.failed = true, .error = fmt::format("read: {}", std::strerror(errno))};
}

IoStep SocketChannel::write(const char* from, std::size_t size) {
    if (size == 0) return IoStep{};
    if (ssl_ != nullptr) {
        errno = 0;
        const int n = SSL_write(ssl_, from, static_cast<int>(std::min<std::size_t>(size, 1 << 30)));
        if (n > 0) return IoStep{.bytes = static_cast<std::size_t>(n)};
        IoStep step = tls_step(n, "TLS write");
        if (step.closed) {
            step.closed = false;
            step.failed = true;
            step.error = "the peer closed the connection";
        }
        return step;
    }
    const ssize_t n = ::send(fd_, from, size, MSG_NOSIGNAL);
    if (n >= 0) return IoStep{.bytes = static_cast<std::size_t>(n)};
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        return IoStep{.wait = IoWait::writable};
    }
    return IoStep{.failed = true, .error = fmt::format("write: {}", std::strerror(errno))};
}

bool SocketChannel::pending() const {
    return ssl_ != nullptr && SSL_pending(ssl_) > 0;
}

void SocketChannel::shutdown_write() {
    if (ssl_ != nullptr && handshaken_) {
        (void)SSL_shutdown(ssl_);  // close_notify, best effort (non-blocking)
        ERR_clear_error();
    }
    if (fd_ >= 0) ::shutdown(fd_, SHUT_WR);
}

}  // namespace gpukill::net
