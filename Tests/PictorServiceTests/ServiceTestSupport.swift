import PictorCore
@testable import PictorService

/// Parsers and helpers shared by the service tests.
enum Fixture {
    /// imgproxy's documentation key and salt (hex), the first pair of every signed test.
    static let key1 = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt1 = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
    /// A second pair, for rotation.
    static let key2 = "0123456789abcdef0123456789abcdef"
    static let salt2 = "fedcba9876543210"

    /// `http://example.com/images/curiosity.jpg` in base64url, as imgproxy's documentation splits it.
    static let curiositySplit = "aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn"
    static let curiosity = "http://example.com/images/curiosity.jpg"

    static func unsigned(
        presets: String = "", onlyPresets: Bool = false, limits: ServiceLimits = ServiceLimits()
    ) throws -> ProcessingURLParser {
        try ProcessingURLParser(
            signature: .disabled, presets: PresetTable(parsing: presets), onlyPresets: onlyPresets, limits: limits)
    }

    static func signed(_ pairs: [(String, String)] = [(key1, salt1)]) throws -> ProcessingURLParser {
        try ProcessingURLParser(signature: SignaturePolicy(hexKeys: pairs.map(\.0), hexSalts: pairs.map(\.1)))
    }

    /// Options with the defaults changed by `change`.
    static func options(_ change: (inout ProcessingOptions) -> Void = { _ in }) -> ProcessingOptions {
        var options = ProcessingOptions()
        change(&options)
        return options
    }
}

extension ProcessingURLParser {
    /// The error `parse(path)` throws, or `nil` when it parses.
    func refusal(_ path: String) -> ServiceError? {
        do {
            _ = try parse(path)
            return nil
        } catch {
            return error
        }
    }

    /// The options of `/insecure/{options}/plain/http://a.example/x.jpg`.
    func options(_ options: String) throws -> ProcessingOptions {
        try parse("/insecure/\(options)/plain/http://a.example/x.jpg").options
    }
}
