import Foundation
import PictorCLI

/// Targets over the command line's value grammars.
enum CLITargets {
    @Sendable static func grammar(_ b: UnsafeRawBufferPointer) {
        let text = String(decoding: b, as: UTF8.self)
        // `--resize`: a parsed box prints as W, WxH, Wx or xH and parses back equal.
        if let option = try? ResizeOption.parse(text) {
            let printed = option.width == option.height
                ? "\(option.width!)"
                : (option.width.map(String.init) ?? "") + "x" + (option.height.map(String.init) ?? "")
            check((try? ResizeOption.parse(printed)) == option, "--resize '\(text)' prints as '\(printed)', which reads differently")
            if let w = option.width { check((1...65_535).contains(w), "width \(w)") }
            if let h = option.height { check((1...65_535).contains(h), "height \(h)") }
        }
        // `--name`: parsing is deterministic.
        let template = try? NameTemplate.parse(text)
        check((try? NameTemplate.parse(text)) == template, "--name parses differently twice")
    }
}
