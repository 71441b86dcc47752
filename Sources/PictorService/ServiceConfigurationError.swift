import Foundation

/// A mistake in the service's own configuration (presets text, signing keys), found when the
/// configuration is loaded rather than on a request. Its text may quote the configuration,
/// which is the operator's, never a request's.
public struct ServiceConfigurationError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// Where: `"presets line 3"`, `"preset 'thumb'"`, `"key 2"`.
    public let location: String
    /// What is wrong, e.g. `"expected name=option/option"`.
    public let message: String

    /// Creates an error.
    public init(location: String, message: String) {
        self.location = location
        self.message = message
    }

    /// `"<location>: <message>"`.
    public var description: String { "\(location): \(message)" }

    /// The ``description``, so that `localizedDescription` logs the message.
    public var errorDescription: String? { description }
}
