import Foundation
import PictorCore
import Testing

@Suite("ImageFormat sniffing")
struct ImageFormatSniffTests {
    static func bytes(_ values: [UInt8], padTo count: Int = 32) -> Data {
        Data(values + [UInt8](repeating: 0, count: max(0, count - values.count)))
    }

    static func ftyp(_ major: String, _ compatible: [String]) -> Data {
        var box = Data([0, 0, 0, UInt8(16 + 4 * compatible.count)])
        box.append(Data("ftyp".utf8)); box.append(Data(major.utf8)); box.append(Data([0, 0, 0, 0]))
        for brand in compatible { box.append(Data(brand.utf8)) }
        return box
    }

    @Test(arguments: [
        (bytes([0xFF, 0xD8, 0xFF, 0xE0]), ImageFormat.jpeg),
        (bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), .png),
        (bytes(Array("GIF87a".utf8)), .gif),
        (bytes(Array("GIF89a".utf8)), .gif),
        (bytes(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)), .webp),
        (bytes([0x49, 0x49, 0x2A, 0x00]), .tiff),
        (bytes([0x4D, 0x4D, 0x00, 0x2A]), .tiff),
        (bytes(Array("BM".utf8) + [0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 40, 0, 0, 0]), .bmp),
        (bytes(Array("BM".utf8) + [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 124, 0, 0, 0]), .bmp),
        (bytes([0xFF, 0x0A]), .jxl),
        (bytes([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]), .jxl),
        (ftyp("avif", ["mif1", "miaf"]), .avif),
        (ftyp("mif1", ["avif", "miaf"]), .avif),
        (ftyp("heic", ["mif1", "heic"]), .heic),
        (ftyp("mif1", ["heic"]), .heic),
    ])
    func binarySignatures(data: Data, format: ImageFormat) {
        #expect(ImageFormat.sniff(data) == format)
    }

    @Test(arguments: [
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        "  \n\t<svg width=\"1\" height=\"1\"></svg>",
        "\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg/>",
        "<?xml version=\"1.0\"?><!-- made by hand --><!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x\"><svg/>",
    ])
    func svgByContent(text: String) {
        #expect(ImageFormat.sniff(Data(text.utf8)) == .svg)
    }

    @Test(arguments: [
        "", "<html><body>404</body></html>", "{\"error\": true}", "BMW and Audi are car makers, listed here.", "<?xml version=\"1.0\"?><feed/>", "GIF8", "RIFF____WAVE",
    ])
    func notImages(text: String) {
        #expect(ImageFormat.sniff(Data(text.utf8)) == nil)
    }

    @Test func tooShortIsNil() {
        #expect(ImageFormat.sniff(Data([0xFF, 0xD8])) == nil)
        #expect(ImageFormat.sniff(Data([0x89, 0x50, 0x4E])) == nil)
        #expect(ImageFormat.sniff(Data("BM".utf8)) == nil)
    }

    @Test func corpusFilesSniffAsTheirManifestFormat() throws {
        let root = URL(fileURLWithPath: #filePath, isDirectory: false)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("../shared/corpus", isDirectory: true).standardized
        guard let manifest = try? String(contentsOf: root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8) else {
            print("ImageFormatSniffTests: corpus not found at \(root.path); skipped")
            return
        }
        var checked = 0
        for line in manifest.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count > 3, fields[2] == "ok", let format = ImageFormat(rawValue: String(fields[3])) else { continue }
            let data = try Data(contentsOf: root.appendingPathComponent(String(fields[0])))
            #expect(ImageFormat.sniff(data.prefix(1024)) == format, "\(fields[0])")
            checked += 1
        }
        #expect(checked > 300)
    }
}
