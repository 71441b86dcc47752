import CBenchReference
import Foundation
import PictorCore
import PictorVips

/// Decoding against the C floors in the same process (performance.md §1.5):
/// - I2/I4: Pictor's default decoders' (``ImageDecoderRegistry/vips``) 256-px thumbnail + ``VipsEncoder`` JPEG (q 80) against
///   `vips_thumbnail_buffer` + `vips_jpegsave_buffer` (Q 80) called from C, same bytes in memory;
/// - I1: full-size JPEG decode to RGBA against `tjDecompress2`;
/// - I3: the 3000-px JPEG thumbnail time ÷ full decode + resize (``VipsRenderer/resize(_:to:)``)
///   of the same files, both Pictor.
/// libvips is one library per process, so both sides share its thread pool and settings.
struct LibvipsBenchmarks {
    let options: Options
    let report: Report
    var plan: RunPlan { options.quick ? .quick : .full }

    /// Set name, target and goal: I2 ≥ 1.0× libvips (JPEG), I4 ≥ 0.9× libvips (PNG, WebP).
    var sets: [(name: String, target: String, goal: Goal)] {
        var all: [(String, String, Goal)] = [
            ("jpeg1024", "I2", .speedupAtLeast(1.0)), ("jpeg3000", "I2", .speedupAtLeast(1.0)),
            ("png1024", "I4", .speedupAtLeast(0.9)), ("webp1024", "I4", .speedupAtLeast(0.9)),
        ]
        if !options.quick { all += [("png3000", "I4", .speedupAtLeast(0.9)), ("webp3000", "I4", .speedupAtLeast(0.9))] }
        return all
    }

    static let fullDecodeIDs = ["decode.full.jpeg1024.vs-tjdecompress", "decode.full.jpeg3000.vs-tjdecompress"]
    static let shrinkID = "decode.thumbnail256.jpeg3000.vs-full-decode-resize"

    func run() {
        let thumbIDs = sets.map { "decode.thumbnail256-encode.\($0.name).vs-libvips" }
        let ids = thumbIDs + Self.fullDecodeIDs + [Self.shrinkID]
        guard ids.contains(where: options.selects) else { return }
        print("decoding: against libvips and libjpeg-turbo in-process")
        func skipAll(_ reason: String) { for id in ids where options.selects(id) { report.skip(id, reason) } }
        if let reason = TestImages.prepare(options) { return skipAll(reason) }
        guard cbench_vips_start() == 0 else { return skipAll("libvips failed to start in C") }
        thumbnails()
        fullDecodes()
        shrinkOnLoad()
    }

    private static func blobs(_ set: String) -> [Data] {
        TestImages.files(set).compactMap { FileManager.default.contents(atPath: $0) }
    }

    /// One pass over `blobs` with `body`, returning its wall time in ns and counting failures.
    private static func pass(_ blobs: [Data], failures: inout Int, _ body: (Data) -> Bool) -> Double {
        let start = nowNanoseconds()
        for blob in blobs where !body(blob) { failures += 1 }
        return Double(nowNanoseconds() - start)
    }

    private func thumbnails() {
        let decoder = ImageDecoderRegistry.vips, encoder = VipsEncoder()
        let thumb = ImageDecodingOptions(thumbnail: ThumbnailOptions(width: 256, height: 256))
        for set in sets {
            let id = "decode.thumbnail256-encode.\(set.name).vs-libvips"
            guard options.selects(id) else { continue }
            let blobs = Self.blobs(set.name)
            guard !blobs.isEmpty else { report.skip(id, "no test images"); continue }
            var failures = 0
            let result = Interleave.comparePasses(plan: plan, items: blobs.count, candidate: {
                Self.pass(blobs, failures: &failures) { blob in
                    guard let image = try? decoder.decode(blob, options: thumb),
                          let jpeg = try? encoder.encode(image, as: .jpeg, quality: 80) else { return false }
                    blackHole(jpeg); return true
                }
            }, reference: {
                Self.pass(blobs, failures: &failures) { blob in
                    blob.withUnsafeBytes { cbench_vips_thumbnail_jpeg($0.baseAddress, $0.count, 256, 80) } > 0
                }
            })
            if failures > 0 { report.note("\(id): \(failures) decodes failed") }
            report.add(.comparison(
                id: id, targetID: set.target,
                figure: "256-px thumbnail + JPEG q80 encode, \(set.name.dropLast(4).uppercased()) \(set.name.suffix(4)) px (\(blobs.count) files), in-process",
                result: result, referenceName: "libvips vips_thumbnail_buffer + jpegsave_buffer (C)", goal: set.goal, throughput: true))
        }
    }

    private func fullDecodes() {
        let decoder = ImageDecoderRegistry.vips
        for (id, set) in zip(Self.fullDecodeIDs, ["jpeg1024", "jpeg3000"]) where options.selects(id) {
            let blobs = Self.blobs(set)
            guard !blobs.isEmpty else { report.skip(id, "no test images"); continue }
            var failures = 0
            let result = Interleave.comparePasses(plan: plan, items: blobs.count, candidate: {
                Self.pass(blobs, failures: &failures) { blob in
                    guard let image = try? decoder.decode(blob, options: ImageDecodingOptions()) else { return false }
                    blackHole(image); return true
                }
            }, reference: {
                Self.pass(blobs, failures: &failures) { blob in
                    blob.withUnsafeBytes { cbench_tj_decode_rgba($0.baseAddress, $0.count) } > 0
                }
            })
            if failures > 0 { report.note("\(id): \(failures) decodes failed") }
            report.add(.comparison(
                id: id, targetID: "I1",
                figure: "Full-size decode to RGBA, JPEG \(set.suffix(4)) px (\(blobs.count) files), VipsDecoder",
                result: result, referenceName: "tjDecompress2 → RGBA (C)", goal: .speedupAtLeast(0.9), throughput: true))
        }
    }

    /// I3: thumbnail time ÷ (full decode + resize) time on the same 3000-px JPEGs.
    private func shrinkOnLoad() {
        guard options.selects(Self.shrinkID) else { return }
        let blobs = Self.blobs("jpeg3000")
        guard !blobs.isEmpty else { return report.skip(Self.shrinkID, "no test images") }
        let decoder = ImageDecoderRegistry.vips, renderer = VipsRenderer()
        let size = ThumbnailOptions(width: 256, height: 256)
        let thumb = ImageDecodingOptions(thumbnail: size)
        var failures = 0
        let result = Interleave.comparePasses(plan: plan, items: blobs.count, candidate: {
            Self.pass(blobs, failures: &failures) { blob in
                guard let image = try? decoder.decode(blob, options: thumb) else { return false }
                blackHole(image); return true
            }
        }, reference: {
            Self.pass(blobs, failures: &failures) { blob in
                guard let full = try? decoder.decode(blob, options: ImageDecodingOptions()),
                      let small = try? renderer.resize(full, to: size) else { return false }
                blackHole(small); return true
            }
        })
        if failures > 0 { report.note("\(Self.shrinkID): \(failures) decodes failed") }
        report.add(.comparison(
            id: Self.shrinkID, targetID: "I3",
            figure: "256-px thumbnail of a 3000-px JPEG (\(blobs.count) files) ÷ full decode + resize, both Pictor",
            result: result, referenceName: "VipsDecoder full + VipsRenderer.resize", goal: .timeAtMost(0.25)))
    }
}
