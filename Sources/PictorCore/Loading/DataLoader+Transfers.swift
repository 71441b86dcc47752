import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension DataLoader {
    /// Adds a caller to the transfer for `key`, starting one when none is in flight.
    func join(key: TransferKey, request: URLRequest, subscriberID: Int, subscriber: Subscriber) {
        let (cancelled, joined) = state.withLock { s -> (Bool, Int?) in
            if Task.isCancelled { return (true, nil) }
            if configuration.isCoalescingEnabled, let id = s.byKey[key] {
                s.transfers[id]?.subscribers[subscriberID] = subscriber
                s.subscriberTransfer[subscriberID] = id
                return (false, id)
            }
            let id = s.nextID
            s.nextID += 1
            var transfer = TransferState(key: key)
            transfer.subscribers[subscriberID] = subscriber
            s.subscriberTransfer[subscriberID] = id
            if configuration.isCoalescingEnabled { s.byKey[key] = id }
            transfer.task = Task { [self] in await run(id, request: request) }
            s.transfers[id] = transfer
            return (false, id)
        }
        if cancelled { return subscriber.continuation.resume(throwing: CancellationError()) }
        guard let id = joined else { return }
        // Follow this caller's priority while the transfer waits for a slot.
        subscriber.priority.onChange { [weak self] _ in self?.refreshPriority(of: id) }
        refreshPriority(of: id)
    }

    /// Re-reads the transfer's priority (the highest of its callers) into the scheduler.
    func refreshPriority(of id: Int) {
        scheduler.reprioritize(id, to: priority(of: id))
    }

    /// Removes a cancelled caller; cancels the transfer when it was the last one.
    func leave(_ subscriberID: Int) {
        let (subscriber, task, subscriberTransferID) = state.withLock { s -> (Subscriber?, Task<Void, Never>?, Int?) in
            guard let id = s.subscriberTransfer.removeValue(forKey: subscriberID),
                  let subscriber = s.transfers[id]?.subscribers.removeValue(forKey: subscriberID) else { return (nil, nil, nil) }
            guard s.transfers[id]?.subscribers.isEmpty == true else { return (subscriber, nil, id) }
            let transfer = s.transfers.removeValue(forKey: id)
            if let key = transfer?.key, s.byKey[key] == id { s.byKey[key] = nil }
            return (subscriber, transfer?.task, nil)
        }
        subscriber?.continuation.resume(throwing: CancellationError())
        if let task { task.cancel() } else if let id = subscriberTransferID { refreshPriority(of: id) }
    }

    /// The highest priority among the transfer's callers.
    func priority(of id: Int) -> RequestPriority {
        state.withLock { s in s.transfers[id]?.subscribers.values.map(\.priority.value).max() } ?? .veryLow
    }

    /// Sends progress (with an empty chunk) to every current caller of the transfer.
    func report(_ progress: TransferProgress, for id: Int) {
        let callbacks = state.withLock { s in s.transfers[id]?.subscribers.values.map(\.didReceiveChunk) ?? [] }
        for callback in callbacks { callback(Data(), progress) }
    }

    /// Runs the transfer in a scheduler slot and hands the result to every caller.
    func run(_ id: Int, request: URLRequest) async {
        let result: Result<(Data, URLResponse), any Error>
        do {
            try await scheduler.acquire(id: id) { [weak self] in self?.priority(of: id) ?? .veryLow }
            do {
                result = .success(try await performWithRetries(id, request: request))
            } catch {
                result = .failure(error)
            }
            scheduler.release()
        } catch {
            result = .failure(error)
        }
        let subscribers = state.withLock { s -> [Subscriber] in
            guard let transfer = s.transfers.removeValue(forKey: id) else { return [] }
            if s.byKey[transfer.key] == id { s.byKey[transfer.key] = nil }
            for subscriberID in transfer.subscribers.keys { s.subscriberTransfer[subscriberID] = nil }
            return Array(transfer.subscribers.values)
        }
        for subscriber in subscribers { subscriber.continuation.resume(with: result) }
    }
}
