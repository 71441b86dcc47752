import Foundation
import Synchronization

/// Keyed sharing of result work inside one service: the first request for a key starts a job,
/// the others wait for the same outcome; each waiter may give up (its deadline, its
/// cancellation) without stopping the job for the rest, and the job is cancelled when its last
/// waiter gives up.
///
/// PictorCore's own sharing (its `SharedWorkPool`) is internal to the pipeline; this is the
/// small part of it the service needs around the encode, which happens after the pipeline's
/// stages.
final class ResultJobs<Value: Sendable>: Sendable {
    private final class Job: Sendable {
        struct State {
            var outcome: Value?
            var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
            var nextWaiter = 0
            var task: Task<Void, Never>?
            var abandoned = false
            /// Waiters that gave up before they were registered.
            var gaveUp: Set<Int> = []
        }
        let state = Mutex(State())
    }

    private let jobs = Mutex<[String: Job]>([:])

    /// Jobs running now.
    var count: Int { jobs.withLock { $0.count } }

    /// Callers waiting for a job now (for tests: wait until requests have joined).
    var waiterCount: Int {
        let running = jobs.withLock { Array($0.values) }
        return running.reduce(0) { total, job in total + job.state.withLock { $0.waiters.count } }
    }

    /// How a call got its value.
    enum Admission {
        /// This call started the job.
        case started
        /// This call joined a job already running.
        case joined
        /// `limit` jobs were running: nothing was started.
        case refused
    }

    /// The value of the job for `key`, starting it with `work` when none runs and fewer than
    /// `limit` do; `nil` when refused, when `timeout` seconds pass first, or when the calling
    /// task is cancelled.
    func value(
        for key: String, limit: Int, timeout: Double, admitted: (Admission) -> Void,
        work: @escaping @Sendable () async -> Value
    ) async -> Value? {
        let (job, isNew): (Job?, Bool) = jobs.withLock { jobs in
            if let running = jobs[key], !running.state.withLock({ $0.abandoned }) { return (running, false) }
            guard jobs.count < limit else { return (nil, false) }
            let job = Job()
            jobs[key] = job
            return (job, true)
        }
        guard let job else {
            admitted(.refused)
            return nil
        }
        admitted(isNew ? .started : .joined)
        if isNew {
            let task = Task { [self] in
                let value = await work()
                finish(job, key: key, with: value)
            }
            job.state.withLock { $0.task = task }
        }
        return await wait(for: job, key: key, timeout: timeout)
    }

    private func wait(for job: Job, key: String, timeout: Double) async -> Value? {
        let id = job.state.withLock { s in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        let timer = Task { [self] in
            try? await Task.sleep(for: .seconds(timeout))
            leave(job, key: key, waiter: id)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: Value?? = job.state.withLock { s in
                    if let outcome = s.outcome { return .some(outcome) }
                    if s.gaveUp.contains(id) || Task.isCancelled { return .some(nil) }
                    s.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            leave(job, key: key, waiter: id)
        }
    }

    /// A waiter gives up: it gets `nil`; the last one cancels the job and forgets it, so the
    /// next request starts afresh.
    private func leave(_ job: Job, key: String, waiter id: Int) {
        let (continuation, task): (CheckedContinuation<Value?, Never>?, Task<Void, Never>?) = job.state.withLock { s in
            guard let continuation = s.waiters.removeValue(forKey: id) else {
                if s.outcome == nil { s.gaveUp.insert(id) }
                return (nil, nil)
            }
            guard s.waiters.isEmpty, s.outcome == nil else { return (continuation, nil) }
            s.abandoned = true
            return (continuation, s.task)
        }
        continuation?.resume(returning: nil)
        if let task {
            task.cancel()
            jobs.withLock { jobs in
                if jobs[key] === job { jobs[key] = nil }
            }
        }
    }

    private func finish(_ job: Job, key: String, with value: Value) {
        jobs.withLock { jobs in
            if jobs[key] === job { jobs[key] = nil }
        }
        let waiters = job.state.withLock { s in
            s.outcome = value
            let waiters = s.waiters.values
            s.waiters = [:]
            return Array(waiters)
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }
}
