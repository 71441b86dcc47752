import Foundation
import Testing
@testable import PictorDiskCache

/// The directory scan behind recovery and `verify()`: every name, once, however many there are.
@Suite struct EntryFilesScanTests {
    /// A thousand entry names: more than one `readdir` buffer of glibc's (32 kB, about 370
    /// records of a 64-character name), so a record ends within a few bytes of a buffer's end.
    /// A scan that copies a record's whole `d_name` (256 bytes) there reads past the buffer;
    /// AddressSanitizer stops it (scripts/sanitize.sh address), a plain build reads heap bytes
    /// after the name's NUL and drops them.
    @Test func aDirectoryOfSeveralReaddirBuffersListsEveryNameOnce() throws {
        let directory = TestDirectory()
        let files = EntryFiles(directory: directory.path)
        #expect(files.createDirectories() == nil)
        let names = (0..<1_000).map { i in String(repeating: "0", count: 60) + String(format: "%04x", i) }
        for name in names {
            #expect(FileManager.default.createFile(atPath: files.path(for: name), contents: Data([1])))
        }
        let scanned = files.scanEntries().map(\.digest)
        #expect(scanned.count == names.count)
        #expect(Set(scanned) == Set(names))
    }
}
