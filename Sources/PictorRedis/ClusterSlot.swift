import Foundation

/// Redis Cluster key hashing: which of the 16384 hash slots a key belongs to.
package enum ClusterSlot {
    /// The number of hash slots of a Redis Cluster.
    package static let count = 16384

    /// The hash slot of `key`: CRC16-XMODEM of the key mod 16384, where only the hash tag is
    /// hashed when the key has one — the text between the first `{` and the first `}` after it,
    /// when that text is not empty — so that related keys (`{user1000}.following`,
    /// `{user1000}.followers`) share a slot and can be used in one pipeline or multi-key command.
    package static func hashSlot(for key: Data) -> Int {
        key.withUnsafeBytes { bytes in Int(crc16(hashedPart(of: bytes)) & 0x3FFF) }
    }

    /// The hash slot of the UTF-8 bytes of `key`; see ``hashSlot(for:)-(Data)``.
    package static func hashSlot(for key: String) -> Int {
        hashSlot(for: Data(key.utf8))
    }

    /// CRC16-CCITT as XMODEM computes it (polynomial 0x1021, initial value 0, no reflection):
    /// the checksum Redis Cluster uses (`crc16("123456789") == 0x31C3`).
    package static func crc16<Bytes: Collection>(_ bytes: Bytes) -> UInt16 where Bytes.Element == UInt8 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
        }
        return crc
    }

    private static func hashedPart(of key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer.SubSequence {
        guard let open = key.firstIndex(of: UInt8(ascii: "{")),
              let close = key[(open + 1)...].firstIndex(of: UInt8(ascii: "}")),
              close > open + 1
        else { return key[...] }
        return key[(open + 1)..<close]
    }

    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }
}
