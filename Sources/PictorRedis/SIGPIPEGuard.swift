#if canImport(Glibc)
import Glibc
#endif

/// Keeps hiredis's socket writes from killing the process.
///
/// hiredis writes with `write(2)`, which raises SIGPIPE when the server has closed the
/// connection, and SIGPIPE's default action ends the process. A library must not change the
/// process-wide disposition, so, as libpq does, the calling thread blocks SIGPIPE around the
/// hiredis call; a SIGPIPE that the call raised (and that was not already pending) is then
/// consumed with `sigtimedwait` before the old mask comes back, and the write fails with `EPIPE`.
enum SIGPIPEGuard {
    /// Runs `body` with SIGPIPE blocked on this thread, consuming the SIGPIPE it raised.
    static func run<T>(_ body: () -> T) -> T {
        var pipeOnly = sigset_t()
        sigemptyset(&pipeOnly)
        sigaddset(&pipeOnly, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous)
        let wasPending = isPending()
        let result = body()
        if !wasPending && isPending() {
            var zero = timespec(tv_sec: 0, tv_nsec: 0)
            while sigtimedwait(&pipeOnly, nil, &zero) == -1 && errno == EINTR {}
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        return result
    }

    private static func isPending() -> Bool {
        var pending = sigset_t()
        sigpending(&pending)
        return sigismember(&pending, SIGPIPE) == 1
    }
}
