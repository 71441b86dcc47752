/// One processing option as written in a path or a preset: `name:arg1:arg2…`.
struct OptionSegment: Sendable, Hashable {
    var name: Substring
    var arguments: [Substring]

    /// The option in `segment`, or `nil` when the segment has no `:` (imgproxy's rule: the
    /// first such segment starts the source URL). Stops splitting past
    /// ``ServiceLimits/maxArguments`` so a segment of a million `:` costs nothing more.
    static func parse(_ segment: Substring) throws(ServiceError) -> OptionSegment? {
        // Scalars, not Characters: a combining mark after `:` must not hide it (as in the path).
        let scalars = segment.unicodeScalars
        guard let colon = scalars.firstIndex(of: ":") else { return nil }
        let name = Substring(scalars[..<colon])
        var arguments: [Substring] = []
        var rest = scalars[scalars.index(after: colon)...]
        while true {
            guard arguments.count < ServiceLimits.maxArguments else {
                throw .tooManyArguments(name, max: ServiceLimits.maxArguments)
            }
            if let next = rest.firstIndex(of: ":") {
                arguments.append(Substring(rest[..<next]))
                rest = rest[rest.index(after: next)...]
            } else {
                arguments.append(Substring(rest))
                return OptionSegment(name: name, arguments: arguments)
            }
        }
    }
}
