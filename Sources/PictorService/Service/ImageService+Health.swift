import PictorCore
import Synchronization

/// What ``ImageService/health()`` found of the pipeline's tiers.
public struct ServiceHealth: Sendable, Hashable {
    /// A tier the probe looks at.
    public enum Tier: String, Sendable, Hashable {
        /// The disk cache (``/PictorCore/ImagePipeline/Configuration/dataCache``).
        case disk
        /// The fleet tier (``/PictorCore/ImagePipeline/Configuration/sharedCache``).
        case shared
    }

    /// What the probe found of one tier.
    public enum State: Sendable, Hashable {
        /// Usable.
        case ok
        /// Not answering, and bypassed: the pipeline never fails a load for the fleet tier
        /// (each operation is bounded, a failure is a miss, and repeated failures skip the
        /// tier for a while), so images are still served, from the origin. `reason` says why.
        case bypassed(reason: String)
        /// Not usable: results could not be kept. `reason` says why.
        case unusable(reason: String)
    }

    /// One configured tier and its state; a tier that is not configured is not listed.
    public struct TierState: Sendable, Hashable {
        /// The tier.
        public var tier: Tier
        /// What the probe found.
        public var state: State
    }

    /// The configured tiers, the disk tier first.
    public var tiers: [TierState]

    /// Whether no tier is ``State/unusable(reason:)`` (a bypassed fleet tier is healthy).
    public var isHealthy: Bool {
        !tiers.contains { if case .unusable = $0.state { true } else { false } }
    }

    /// The answer's text: `ok` or `unhealthy`, then one line per configured tier, e.g.
    /// `disk: ok`, `disk: unusable: the cache directory is missing`, `shared: bypassed: redis
    /// does not answer (…); images load without the fleet tier`; every line ends in `\n`.
    public var text: String {
        var out = isHealthy ? "ok\n" : "unhealthy\n"
        for entry in tiers {
            switch entry.state {
            case .ok: out += "\(entry.tier.rawValue): ok\n"
            case .bypassed(let reason): out += "\(entry.tier.rawValue): bypassed: \(reason); images load without the fleet tier\n"
            case .unusable(let reason): out += "\(entry.tier.rawValue): unusable: \(reason)\n"
            }
        }
        return out
    }

    /// A report of `tiers`.
    public init(tiers: [TierState]) {
        self.tiers = tiers
    }
}

/// The last probe of the tiers and the one running, so that concurrent callers share one.
struct HealthProbeState: Sendable {
    var last: (health: ServiceHealth, at: ContinuousClock.Instant)?
    var running: Task<ServiceHealth, Never>?
}

extension ImageService {
    /// The state of the pipeline's tiers, probed at most once per
    /// ``Configuration/healthCheckInterval`` (callers in between get the last probe's answer;
    /// callers during a probe wait for it):
    ///
    /// - the disk tier, when configured: ``/PictorCore/ImagePipeline/diskTierHealth`` (for a
    ///   `DiskCache`: enabled, not read-only, its directory present and writable);
    /// - the fleet tier, when configured: ``/PictorCore/ImagePipeline/sharedTierHealth(timeout:)``
    ///   within ``Configuration/healthCheckTimeout`` (for Redis, a `PING`). One that does not
    ///   answer is ``ServiceHealth/State/bypassed(reason:)``, not unusable: the pipeline
    ///   serves images without it.
    public func health() async -> ServiceHealth {
        let now = ContinuousClock.now
        let (recent, task) = healthProbe.withLock { probe -> (ServiceHealth?, Task<ServiceHealth, Never>?) in
            if let last = probe.last, now - last.at < .seconds(configuration.healthCheckInterval) { return (last.health, nil) }
            if let running = probe.running { return (nil, running) }
            let task = Task { await self.probeTiers() }
            probe.running = task
            return (nil, task)
        }
        if let recent { return recent }
        guard let task else { return ServiceHealth(tiers: []) }
        let health = await task.value
        healthProbe.withLock { probe in
            if probe.running == task {
                probe.running = nil
                probe.last = (health, ContinuousClock.now)
            }
        }
        return health
    }

    /// The last probe's answer while it is within ``Configuration/healthCheckInterval``, else
    /// `nil` (then ``health()`` probes): lets a server answer a flood of `/health` requests
    /// without suspending them.
    public var recentHealth: ServiceHealth? {
        let now = ContinuousClock.now
        return healthProbe.withLock { probe in
            guard let last = probe.last, now - last.at < .seconds(configuration.healthCheckInterval) else { return nil }
            return last.health
        }
    }

    private func probeTiers() async -> ServiceHealth {
        var tiers: [ServiceHealth.TierState] = []
        if let disk = pipeline.diskTierHealth {
            switch disk {
            case .usable: tiers.append(.init(tier: .disk, state: .ok))
            case .unusable(let reason): tiers.append(.init(tier: .disk, state: .unusable(reason: reason)))
            }
        }
        if let shared = await pipeline.sharedTierHealth(timeout: .seconds(configuration.healthCheckTimeout)) {
            switch shared {
            case .usable: tiers.append(.init(tier: .shared, state: .ok))
            case .unusable(let reason): tiers.append(.init(tier: .shared, state: .bypassed(reason: reason)))
            }
        }
        return ServiceHealth(tiers: tiers)
    }
}
