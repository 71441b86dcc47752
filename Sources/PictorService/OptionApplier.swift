import PictorCore

/// Applies options to a ``ProcessingOptions`` value one at a time, as imgproxy's
/// `applyURLOption` does: later options override earlier ones, meta-options (`resize`, `size`)
/// set several fields, and `preset` applies the named presets' options in place.
///
/// It counts every option it applies, nested presets' included, against
/// ``ServiceLimits/maxAppliedOptions``: presets naming presets could otherwise multiply.
struct OptionApplier {
    let presets: PresetTable
    let limits: ServiceLimits
    private(set) var appliedCount = 0
    /// Every preset applied, in order, as imgproxy's `UsedPresets`.
    private(set) var usedPresets: [String] = []

    init(presets: PresetTable, limits: ServiceLimits) {
        self.presets = presets
        self.limits = limits
    }

    mutating func apply(_ option: OptionSegment, to o: inout ProcessingOptions, chain: [Substring] = []) throws(ServiceError) {
        appliedCount += 1
        guard appliedCount <= limits.maxAppliedOptions else {
            throw ServiceError(.tooManyOptions, reason: "presets expand to more than \(limits.maxAppliedOptions) options")
        }
        let name = option.name
        let args = option.arguments
        switch name {
        case "resize", "rs": try resize(name, args, &o)
        case "size", "s": try size(name, args, &o)
        case "resizing_type", "rt": o.resizingType = try resizingType(name, single(name, args))
        case "width", "w": o.width = try dimension(name, single(name, args))
        case "height", "h": o.height = try dimension(name, single(name, args))
        case "enlarge", "el": o.enlarge = try ArgumentParsing.bool(single(name, args), option: name)
        case "extend", "ex": try extend(name, args, &o.extend)
        case "gravity", "g": try gravity(name, args[...], allowsSmart: true, &o.gravity)
        case "dpr":
            o.dpr = try ArgumentParsing.number(
                single(name, args), option: name, expected: "a number above 0, at most \(NumberText.format(limits.maxDPR))"
            ) { $0 > 0 && $0 <= limits.maxDPR }
        case "quality", "q": o.quality = try ArgumentParsing.integer(single(name, args), option: name, in: 0...100)
        case "format", "f", "ext": o.format = try Self.format(single(name, args), option: name)
        case "background", "bg": o.background = try background(name, args)
        case "strip_metadata", "sm": o.stripMetadata = try ArgumentParsing.bool(single(name, args), option: name)
        case "cachebuster", "cb":
            let value = try single(name, args)
            o.cacheBuster = value.isEmpty ? nil : String(value)
        case "preset", "pr": try applyPresets(args, to: &o, chain: chain)
        default:
            throw ServiceError(.unknownOption, reason: "unknown option \(SafeText.quote(name))")
        }
    }

    /// Applies each named preset in turn. A preset already being applied further up `chain`
    /// is skipped, as imgproxy skips recursive use (with a warning) rather than failing.
    mutating func applyPresets(_ names: [Substring], to o: inout ProcessingOptions, chain: [Substring]) throws(ServiceError) {
        for name in names {
            guard let options = presets.options(named: name) else {
                throw ServiceError(.unknownPreset, reason: "unknown preset \(SafeText.quote(name))")
            }
            if chain.contains(name) { continue }
            usedPresets.append(String(name))
            for option in options {
                try apply(option, to: &o, chain: chain + [name])
            }
        }
    }

    /// The output format for an imgproxy format name or extension: `jpeg`/`jpg`, `png`,
    /// `webp`, `avif`, `gif`, `heic`, `jxl`, `tiff`, `bmp`, `ico`, `svg` (imgproxy's registry,
    /// case-sensitive as there).
    static func format(_ name: Substring, option: Substring) throws(ServiceError) -> ImageFormat {
        switch name {
        case "jpg", "jpeg": return .jpeg
        case "png": return .png
        case "webp": return .webp
        case "avif": return .avif
        case "gif": return .gif
        case "heic": return .heic
        case "jxl": return .jxl
        case "tiff": return .tiff
        case "bmp": return .bmp
        case "ico": return .ico
        case "svg": return .svg
        default:
            throw ServiceError(.invalidFormat, reason: "unknown image format \(SafeText.quote(name)) in \(SafeText.quote(option))")
        }
    }

    // MARK: - Options with several arguments

    /// `resize:type:width:height:enlarge:extend:gravity:x:y`, every argument optional.
    private func resize(_ name: Substring, _ args: [Substring], _ o: inout ProcessingOptions) throws(ServiceError) {
        try atMost(8, name, args)
        if !args[0].isEmpty { o.resizingType = try resizingType(name, args[0]) }
        if args.count > 1 { try size(name, Array(args.dropFirst()), &o) }
    }

    /// `size:width:height:enlarge:extend:gravity:x:y`, every argument optional; an empty
    /// `extend` leaves the extend gravity alone, as in imgproxy.
    private func size(_ name: Substring, _ args: [Substring], _ o: inout ProcessingOptions) throws(ServiceError) {
        try atMost(7, name, args)
        if args.count > 0, !args[0].isEmpty { o.width = try dimension(name, args[0]) }
        if args.count > 1, !args[1].isEmpty { o.height = try dimension(name, args[1]) }
        if args.count > 2, !args[2].isEmpty { o.enlarge = try ArgumentParsing.bool(args[2], option: name) }
        if args.count > 3, !args[3].isEmpty { try extend(name, Array(args.dropFirst(3)), &o.extend) }
    }

    /// `extend:enabled:gravity:x:y`; the gravity is any but `sm`.
    private func extend(_ name: Substring, _ args: [Substring], _ e: inout Extend) throws(ServiceError) {
        try atMost(4, name, args)
        e.enabled = try ArgumentParsing.bool(args[0], option: name)
        if args.count > 1 { try gravity(name, args.dropFirst(), allowsSmart: false, &e.gravity) }
    }

    /// `gravity:type:x:y`: `sm` takes no offsets and clears them; `fp` takes exactly two, each
    /// in 0...1; the compass points take up to two, any finite number. An empty or absent
    /// offset keeps the previous one, as imgproxy does.
    private func gravity(_ name: Substring, _ args: ArraySlice<Substring>, allowsSmart: Bool, _ g: inout Gravity) throws(ServiceError) {
        let type = args[args.startIndex]
        guard let kind = Gravity.Kind(rawValue: String(type)), allowsSmart || kind != .smart else {
            let allowed = Gravity.Kind.allCases.filter { allowsSmart || $0 != .smart }.map(\.rawValue).joined(separator: ", ")
            throw .invalidArgument(name, type, expected: allowed)
        }
        let offsets = args.dropFirst()
        switch kind {
        case .smart:
            guard offsets.isEmpty else {
                throw ServiceError(.invalidArgument, reason: "gravity 'sm' takes no offsets in option \(SafeText.quote(name))")
            }
            g = Gravity(.smart)
            return
        case .focusPoint:
            guard offsets.count == 2 else {
                throw ServiceError(.invalidArgument, reason: "gravity 'fp' takes two coordinates in option \(SafeText.quote(name))")
            }
        default:
            try atMost(2, name, Array(offsets), what: "offsets")
        }
        let isFocus = kind == .focusPoint
        let expected = isFocus ? "a number 0...1" : "a number"
        g.kind = kind
        if let x = offsets.first, !x.isEmpty {
            g.xOffset = try ArgumentParsing.number(x, option: name, expected: expected) { !isFocus || (0...1).contains($0) }
        }
        if offsets.count > 1, let y = offsets.last, !y.isEmpty {
            g.yOffset = try ArgumentParsing.number(y, option: name, expected: expected) { !isFocus || (0...1).contains($0) }
        }
    }

    /// `background:rrggbb` (or `rgb`), `background:R:G:B`, or `background:` (no background).
    private func background(_ name: Substring, _ args: [Substring]) throws(ServiceError) -> RGBColor? {
        switch args.count {
        case 1:
            return args[0].isEmpty ? nil : try ArgumentParsing.hexColor(args[0], option: name)
        case 3:
            return RGBColor(
                red: try ArgumentParsing.channel(args[0], option: name),
                green: try ArgumentParsing.channel(args[1], option: name),
                blue: try ArgumentParsing.channel(args[2], option: name)
            )
        default:
            throw ServiceError(.invalidArgument, reason: "option \(SafeText.quote(name)) takes a hex colour or R:G:B")
        }
    }

    // MARK: - Single arguments

    private func resizingType(_ name: Substring, _ argument: Substring) throws(ServiceError) -> ResizingType {
        guard let type = ResizingType(rawValue: String(argument)) else {
            throw .invalidArgument(name, argument, expected: ResizingType.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return type
    }

    private func dimension(_ name: Substring, _ argument: Substring) throws(ServiceError) -> Int {
        try ArgumentParsing.integer(argument, option: name, in: 0...limits.maxDimension)
    }

    private func single(_ name: Substring, _ args: [Substring]) throws(ServiceError) -> Substring {
        try atMost(1, name, args)
        return args[0]
    }

    private func atMost(_ count: Int, _ name: Substring, _ args: [Substring], what: String = "arguments") throws(ServiceError) {
        guard args.count <= count else {
            throw ServiceError(.invalidArgument, reason: "too many \(what) for option \(SafeText.quote(name)) (at most \(count))")
        }
    }
}
