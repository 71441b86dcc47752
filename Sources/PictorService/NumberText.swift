/// The one spelling of a number in canonical options and in reasons.
enum NumberText {
    /// Integral values without a fraction (`2`, `0` for `-0`), others in Swift's shortest
    /// round-tripping form (`1.5`, `1e-05`); every output parses back to the same value.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return "\(value)"
    }
}
