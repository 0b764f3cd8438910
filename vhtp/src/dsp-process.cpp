// Starting a DSP process and its control socket's requests (dsp-process.h).
#include "dsp-process.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "error.h"

extern char ** environ;

namespace vhtp {

namespace {

// The executable beside this library's file (ggml-vhtp-dsp).
std::string dsp_executable() {
    Dl_info info{};
    std::string dir = ".";
    if (dladdr(reinterpret_cast<void *>(&dsp_executable), &info) && info.dli_fname) {
        char * real = realpath(info.dli_fname, nullptr);
        dir         = real ? real : info.dli_fname;
        free(real);
        const size_t slash = dir.rfind('/');
        dir                = slash == std::string::npos ? "." : dir.substr(0, slash);
    }
    return dir + "/ggml-vhtp-dsp";
}

// The host's environment for the DSP process (GGML_HEXAGON_* included), but for LD_PRELOAD
// entries other than sanitizer runtimes: a preloaded library that loads ggml's backends (as the
// tests' libload-all-backends.so does) would open sessions from inside the DSP.
std::vector<std::string> dsp_environment() {
    std::vector<std::string> env;
    for (char ** e = environ; *e; e++) {
        if (strncmp(*e, "LD_PRELOAD=", 11) != 0) {
            env.emplace_back(*e);
            continue;
        }
        std::string kept, list = *e + 11;
        for (size_t start = 0; start <= list.size();) {
            size_t end = list.find_first_of(": ", start);
            end        = end == std::string::npos ? list.size() : end;
            const std::string lib = list.substr(start, end - start);
            if (lib.find("clang_rt") != std::string::npos || lib.find("libasan") != std::string::npos ||
                lib.find("libtsan") != std::string::npos || lib.find("libubsan") != std::string::npos) {
                kept += (kept.empty() ? "" : ":") + lib;
            }
            start = end + 1;
        }
        if (!kept.empty()) {
            env.push_back("LD_PRELOAD=" + kept);
        }
    }
    return env;
}

}  // namespace

bool dsp_spawn(int ctl_fd, int state_fd, int board_fd, pid_t * pid, char * err, size_t err_len) {
    // The child gets them as descriptors 3, 4 and 5 (dup2 clears CLOEXEC), from copies numbered
    // 10 or more, so that no dup2 overwrites another's source.
    const int ctl_hi   = fcntl(ctl_fd, F_DUPFD_CLOEXEC, 10);
    const int state_hi = fcntl(state_fd, F_DUPFD_CLOEXEC, 10);
    const int board_hi = fcntl(board_fd, F_DUPFD_CLOEXEC, 10);
    const std::string exe = dsp_executable();
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, ctl_hi, 3);
    posix_spawn_file_actions_adddup2(&fa, state_hi, 4);
    posix_spawn_file_actions_adddup2(&fa, board_hi, 5);
    char                a0[] = "ggml-vhtp-dsp";
    char *              argv[] = { a0, nullptr };
    std::vector<std::string> env_store = dsp_environment();
    std::vector<char *> envp;
    for (std::string & e : env_store) {
        envp.push_back(&e[0]);
    }
    envp.push_back(nullptr);
    const int rc = ctl_hi < 0 || state_hi < 0 || board_hi < 0 ? errno
                                              : posix_spawn(pid, exe.c_str(), &fa, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&fa);
    ::close(ctl_hi);
    ::close(state_hi);
    ::close(board_hi);
    if (rc != 0) {
        set_error(err, err_len, "cannot start the DSP process %s: %s (GGML_HEXAGON_INPROC=1 runs the sessions "
                  "in this process)", exe.c_str(), strerror(rc));
        return false;
    }
    return true;
}

bool dsp_control_request(int sock, pid_t pid, const dsp_request & req, const int * fds, uint32_t n_fds,
                         dsp_reply & rep) {
    if (sock < 0) {
        return false;
    }
    iovec  iov = { const_cast<dsp_request *>(&req), sizeof(req) };
    msghdr m{};
    m.msg_iov    = &iov;
    m.msg_iovlen = 1;
    std::vector<char> ctl(CMSG_SPACE(sizeof(int) * (n_fds ? n_fds : 1)));
    if (n_fds) {
        m.msg_control    = ctl.data();
        m.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
        cmsghdr * c      = CMSG_FIRSTHDR(&m);
        c->cmsg_level    = SOL_SOCKET;
        c->cmsg_type     = SCM_RIGHTS;
        c->cmsg_len      = CMSG_LEN(sizeof(int) * n_fds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * n_fds);
    }
    if (sendmsg(sock, &m, MSG_NOSIGNAL) != (ssize_t) sizeof(req)) {
        return false;
    }
    ssize_t n;
    do {
        n = recv(sock, &rep, sizeof(rep), 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && pid > 0) {
        kill(pid, SIGKILL);  // no answer within the socket's timeout: stuck; the caller restarts it
    }
    return n == (ssize_t) sizeof(rep);
}

std::string dsp_signal_text(int sig) {
    const char * abbrev = sigabbrev_np(sig);
    return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

}  // namespace vhtp
