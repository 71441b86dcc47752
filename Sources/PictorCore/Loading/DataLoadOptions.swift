import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An async hook that may change a request just before it is sent, for example to add a fresh
/// `Authorization` header. It runs once per caller, before coalescing (so requests that end up
/// with different headers are not merged). Throwing fails that caller's load with the error.
public typealias RequestModifier = @Sendable (URLRequest) async throws -> URLRequest

/// Per-request options of a load, beside the `URLRequest` itself.
public struct DataLoadOptions: Sendable {
    /// The priority of the transfer; it can change while the request waits for a slot.
    /// `.normal` by default.
    public var priority: PriorityHandle
    /// A hook run after the loader's own modifier; `nil` by default.
    public var requestModifier: RequestModifier?

    /// Creates options; defaults: normal priority, no modifier.
    public init(priority: PriorityHandle = PriorityHandle(.normal), requestModifier: RequestModifier? = nil) {
        self.priority = priority
        self.requestModifier = requestModifier
    }
}
