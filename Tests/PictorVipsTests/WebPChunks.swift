import Foundation

/// The chunks of a WebP container (RIFF), enough to compare two encoders' files around the EXIF
/// chunk libvips 8.14.1 writes even when asked to strip metadata.
enum WebPChunks {
    /// Each chunk's FourCC and payload, in file order; empty for a file that is not RIFF/WEBP.
    static func list(_ data: Data) -> [(fourCC: String, payload: Data)] {
        let bytes = [UInt8](data)
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x45, 0x42, 0x50] else { return [] }
        var chunks: [(String, Data)] = []
        var i = 12
        while i + 8 <= bytes.count {
            let size = Int(bytes[i + 4]) | Int(bytes[i + 5]) << 8 | Int(bytes[i + 6]) << 16 | Int(bytes[i + 7]) << 24
            guard i + 8 + size <= bytes.count else { break }
            chunks.append((String(decoding: bytes[i..<i + 4], as: UTF8.self), Data(bytes[i + 8..<i + 8 + size])))
            i += 8 + size + (size & 1)
        }
        return chunks
    }

    /// The FourCCs of `data`'s chunks, in file order.
    static func names(_ data: Data) -> [String] { list(data).map(\.fourCC) }

    /// `data` as libwebpmux writes it once the EXIF chunk is deleted (what libvips 8.14.2 and
    /// later write when stripping): no EXIF chunk, its flag cleared in VP8X, and no VP8X at all
    /// when nothing needs one any more (no ALPH chunk, no other flag; a lossless image carries
    /// its alpha in the VP8L header).
    static func withoutEXIF(_ data: Data) -> Data {
        var chunks = list(data).filter { $0.fourCC != "EXIF" }
        if let index = chunks.firstIndex(where: { $0.fourCC == "VP8X" }) {
            var payload = chunks[index].payload
            payload[payload.startIndex] &= ~0x08
            let alphaOnly = payload[payload.startIndex] & ~0x10 == 0
            if alphaOnly, !chunks.contains(where: { $0.fourCC == "ALPH" }) {
                chunks.remove(at: index)
            } else {
                chunks[index].payload = payload
            }
        }
        var body = Data("WEBP".utf8)
        for (fourCC, payload) in chunks {
            body.append(Data(fourCC.utf8))
            body.append(littleEndian(UInt32(payload.count)))
            body.append(payload)
            if payload.count & 1 == 1 { body.append(0) }
        }
        return Data("RIFF".utf8) + littleEndian(UInt32(body.count)) + body
    }

    private static func littleEndian(_ value: UInt32) -> Data {
        Data([UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)])
    }
}
