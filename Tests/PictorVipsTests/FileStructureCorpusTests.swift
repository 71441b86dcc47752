import Foundation
@testable import PictorCore
import Testing

/// The structural truncation check (used on bytes delivered without decoding) against real
/// files: no whole corpus image is called truncated, and each cut in half is.
@Suite(.enabled(if: Corpus.isAvailable), .timeLimit(.minutes(5)))
struct FileStructureCorpusTests {
    static let irregular: Set<String> = [
        "pillow/junk_jpeg_header.jpg", "pillow/photoshop-200dpi-broken.jpg", "pillow/sugarshack_bad_mpo_header.jpg",
    ]

    @Test func noWholeCorpusImageIsCalledTruncatedAndEachHalfIs() throws {
        var checked = 0
        for row in try Corpus.rows() where row.expect == .ok {
            let data = try Corpus.data(row.path)
            guard let format = ImageFormat.sniff(data), [.jpeg, .png, .gif, .webp].contains(format) else { continue }
            #expect(!FileStructure.isTruncated(data, format: format), "\(row.path)")
            // Files whose segments do not chain (junk or a bad length in the header; decoders
            // tolerate them) are left to the decoder when cut: the check only says "truncated"
            // when it is sure.
            if Self.irregular.contains(row.path) { continue }
            let half = data.prefix(data.count / 2)
            #expect(FileStructure.isTruncated(Data(half), format: format), "half of \(row.path)")
            checked += 1
        }
        #expect(checked > 100)
    }

    @Test func aJPEGWithBytesAfterItsEndIsWholeAndOneCutInItsScanIsNot() {
        let head: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 0x3F, 0]
        let scan: [UInt8] = [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56]   // stuffed FF and a restart marker
        #expect(!FileStructure.isTruncated(Data(head + scan + [0xFF, 0xD9]), format: .jpeg))
        #expect(!FileStructure.isTruncated(Data(head + scan + [0xFF, 0xD9] + [UInt8](repeating: 0, count: 500)), format: .jpeg))
        #expect(FileStructure.isTruncated(Data(head + scan), format: .jpeg))
        // A progressive JPEG: several scans, the last one closed
        #expect(!FileStructure.isTruncated(Data(head + scan + head.dropFirst(2) + scan + [0xFF, 0xD9]), format: .jpeg))
        #expect(FileStructure.isTruncated(Data(head + scan + [0xFF, 0xD9] + head.dropFirst(2) + scan), format: .jpeg))
    }
}
