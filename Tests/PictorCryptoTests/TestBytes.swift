import Foundation
import PictorCrypto

/// Bytes from a hex literal (spaces allowed); traps on a typo in a test vector.
func hex(_ text: String) -> [UInt8] {
    Hex.decode(text.filter { !$0.isWhitespace })!
}

/// A fresh private temporary directory for one test.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("pictor-crypto-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
