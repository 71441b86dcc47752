import Foundation
import PictorCore

extension SourceGuard {
    /// Whether a redirect to `target` may be followed: the rules of ``check(_:)`` (scheme,
    /// allowed prefixes, credentials, literal private addresses and `localhost`), applied to each
    /// hop as to the source itself, so that an allowed origin cannot send the service elsewhere.
    public func allowsRedirect(to target: URL) -> Bool {
        (try? check(target.absoluteString)) != nil
    }
}

extension ImageService.Configuration {
    /// The loader the service fetches through: `loader`, when it is a
    /// ``/PictorCore/DataLoader``, as a loader over the same transport (its connections and
    /// its connect-address policy) whose configuration is `loader`'s with
    /// - every redirect hop's target checked by ``sourceGuard``
    ///   (``/PictorCore/DataLoader/Configuration/redirectFilter``; a refused hop is a 403);
    /// - ``/PictorCore/DataLoader/Configuration/maximumResponseSize`` lowered to
    ///   ``maxSourceBytes``, so the transport stops a larger body as soon as its
    ///   `Content-Length`, or the bytes received, pass the limit.
    ///
    /// Any other ``/PictorCore/DataLoading`` is returned as it is: it applies its own rules.
    func servingLoader(_ loader: any DataLoading) -> any DataLoading {
        guard let loader = loader as? DataLoader else { return loader }
        var configuration = loader.configuration
        let sourceGuard = self.sourceGuard
        let previous = configuration.redirectFilter
        configuration.redirectFilter = { target in
            sourceGuard.allowsRedirect(to: target) && (previous?(target) ?? true)
        }
        let limit = Int64(max(0, maxSourceBytes))
        configuration.maximumResponseSize = min(configuration.maximumResponseSize ?? limit, limit)
        return DataLoader(transport: loader.transport, configuration: configuration)
    }
}
