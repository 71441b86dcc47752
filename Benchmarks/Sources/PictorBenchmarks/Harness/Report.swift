import Foundation

/// What a figure is held to.
enum Goal: Codable {
    /// Pictor's time ÷ the reference's time must be at most `k` (lower is better).
    case timeAtMost(Double)
    /// The reference's time ÷ Pictor's time (Pictor's throughput ÷ the reference's) must be at
    /// least `k`.
    case speedupAtLeast(Double)
    /// Pictor's raw value must be at most `k` (for example, an open time in ms, or a scale ratio).
    case valueAtMost(Double)
    /// Pictor's raw value must equal `k` exactly (request and decode counts).
    case exactly(Double)
    /// Measured for information only.
    case none

    var text: String {
        switch self {
        case .timeAtMost(let k): "time ≤ \(fmt(k))× ref"
        case .speedupAtLeast(let k): "throughput ≥ \(fmt(k))× ref"
        case .valueAtMost(let k): "≤ \(fmt(k))"
        case .exactly(let k): "= \(fmt(k))"
        case .none: "—"
        }
    }

    private func fmt(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e6 ? String(format: "%.1f", v) : String(format: "%.2f", v)
    }
}

/// One line of the report.
struct Row: Codable {
    /// Stable identifier (`memory.get-hit.100k.1T.vs-dict`), matched by `--filter`.
    var id: String
    /// The target it checks (`M1`, `D1`, …), empty when informational.
    var targetID: String
    /// Human description of the figure.
    var figure: String
    /// Pictor's figure, formatted with its unit.
    var pictor: String
    /// The reference's figure, formatted, with its name.
    var reference: String
    /// The ratio the goal is checked on (see ``Goal``), `nil` when there is none.
    var ratio: Double?
    /// What the ratio means ("time", "throughput" or the raw value's unit).
    var ratioKind: String
    var goal: Goal
    /// Raw numbers for machines: Pictor's and the reference's median (ns per operation unless
    /// the figure says otherwise).
    var pictorValue: Double?
    var referenceValue: Double?

    /// The ratio as printed: `1.23× time`, `0.85× throughput`, `2.10× scale`, or a raw value with
    /// its unit (`12.3 ms`, `1 requests`).
    var ratioText: String {
        guard let ratio else { return "—" }
        switch ratioKind {
        case "time", "throughput": return String(format: "%.2f× %@", ratio, ratioKind)
        case "scale": return String(format: "%.2f×", ratio)
        default: return ratio == ratio.rounded() && abs(ratio) < 1e9
            ? String(format: "%.0f %@", ratio, ratioKind) : String(format: "%.2f %@", ratio, ratioKind)
        }
    }

    /// `true` met, `false` missed, `nil` when there is no goal or no value.
    var met: Bool? {
        switch goal {
        case .timeAtMost(let k): ratio.map { $0 <= k }
        case .speedupAtLeast(let k): ratio.map { $0 >= k }
        case .valueAtMost(let k): ratio.map { $0 <= k }
        case .exactly(let k): ratio.map { $0 == k }
        case .none: nil
        }
    }

    /// A row from an A/B comparison of times per operation.
    static func comparison(
        id: String, targetID: String, figure: String, result: ABResult, referenceName: String,
        goal: Goal, throughput: Bool = false, unit: (Double) -> String = formatDuration
    ) -> Row {
        let c = result.candidate, r = result.reference
        let ratio: Double, kind: String
        switch goal {
        case .speedupAtLeast: ratio = 1 / result.timeRatio; kind = "throughput"
        default:
            if throughput { ratio = 1 / result.timeRatio; kind = "throughput" }
            else { ratio = result.timeRatio; kind = "time" }
        }
        return Row(id: id, targetID: targetID, figure: figure,
                   pictor: "\(unit(c.median)) (\(unit(c.min))–\(unit(c.max)))",
                   reference: "\(referenceName): \(unit(r.median))",
                   ratio: ratio, ratioKind: kind, goal: goal,
                   pictorValue: c.median, referenceValue: r.median)
    }
}

/// A benchmark that could not run, and why.
struct Skipped: Codable {
    var id: String
    var reason: String
}

/// Collects rows as benchmarks finish, prints them, and writes JSON and Markdown at the end.
final class Report {
    private(set) var rows: [Row] = []
    private(set) var skipped: [Skipped] = []
    private(set) var notes: [String] = []

    func add(_ row: Row) {
        rows.append(row)
        let status = row.met.map { $0 ? "ok" : "MISSED" } ?? ""
        let ratio = row.ratioText
        print("  \(row.id): \(row.pictor) | \(row.reference) | \(ratio) | \(row.goal.text) \(status)")
        fflush(nil)
    }

    func skip(_ id: String, _ reason: String) {
        skipped.append(Skipped(id: id, reason: reason))
        print("  \(id): skipped: \(reason)")
        fflush(nil)
    }

    func note(_ text: String) { notes.append(text) }

    struct Document: Codable {
        var date: String
        var machine: [String: String]
        var quick: Bool
        var rows: [Row]
        var skipped: [Skipped]
        var notes: [String]
    }

    func document(quick: Bool) -> Document {
        Document(date: Machine.startDate, machine: Machine.description, quick: quick,
                 rows: rows, skipped: skipped, notes: notes)
    }

    func writeJSON(to path: String, quick: Bool) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let data = try encoder.encode(document(quick: quick))
        if path == "-" { FileHandle.standardOutput.write(data); print() }
        else { try data.write(to: URL(fileURLWithPath: path, isDirectory: false)) }
    }
}
