import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorCore
import PictorVips
import Testing

/// Vector images have no pixel size of their own: they are rendered at the size asked, up or
/// down, with the aspect ratio of their `viewBox`. "Never upscale" is a rule for raster images.
@Suite("Vector images at the size asked")
struct VectorImageTests {
    let decoder = ImageDecoderRegistry.vips

    /// A 40×20 user-unit drawing: the left half red, the right half blue.
    static func svg(size: String = #"width="40" height="20""#) -> Data {
        Data(##"<svg xmlns="http://www.w3.org/2000/svg" \##(size) viewBox="0 0 40 20"><rect width="20" height="20" fill="#f00"/><rect x="20" width="20" height="20" fill="#00f"/></svg>"##.utf8)
    }

    @Test(arguments: [(400, 200), (10, 5), (40, 20)])
    func thumbnailsAreRenderedAtTheRequestedSize(width: Int, height: Int) throws {
        guard VipsDecoder.supportedFormats.contains(.svg) else { return }
        for size in [#"width="40" height="20""#, ""] {
            let image = try decoder.decode(Self.svg(size: size), options: .init(thumbnail: .init(width: width)))
            #expect(image.width == width && image.height == height, "\(size): \(image.width)x\(image.height)")
            // Rendered at that size, not scaled from a small raster: the edge between the halves is sharp.
            let mid = width / 2
            #expect(TestImages.pixel(image, mid - 1, height / 2).prefix(3) == [255, 0, 0], "\(size) \(width)")
            #expect(TestImages.pixel(image, mid, height / 2).prefix(3) == [0, 0, 255], "\(size) \(width)")
        }
    }

    @Test func boxesAndContentModesFollowTheViewBoxAspect() throws {
        guard VipsDecoder.supportedFormats.contains(.svg) else { return }
        let fit = try decoder.decode(Self.svg(), options: .init(thumbnail: .init(width: 300, height: 300)))
        #expect(fit.width == 300 && fit.height == 150)
        let fill = try decoder.decode(Self.svg(), options: .init(thumbnail: .init(width: 300, height: 300, contentMode: .aspectFill)))
        #expect(fill.width == 300 && fill.height == 300)
        let stretch = try decoder.decode(Self.svg(), options: .init(thumbnail: .init(width: 90, height: 90, contentMode: .stretch)))
        #expect(stretch.width == 90 && stretch.height == 90)
    }

    @Test func rasterImagesStillNeverUpscale() throws {
        let png = try VipsEncoder().encode(TestImages.gradient(width: 40, height: 20), as: .png, quality: 100)
        let image = try decoder.decode(png, options: .init(thumbnail: .init(width: 400)))
        #expect(image.width == 40 && image.height == 20)
    }

    @Test func svgPreamblesAreRecognised() throws {
        let body = #"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>"#
        let preambles = [
            #"<?xml version="1.0" encoding="UTF-8" standalone="no"?>"# + "\n",
            "\u{FEFF}",
            "\u{FEFF}  \n\t<!-- made by hand -->\n",
            #"<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">"#,
            ##"<?xml version="1.0"?><!DOCTYPE svg [ <!ENTITY fill "#f00"> <!ENTITY stroke "<b>"> ]>"##,
            "<!-- " + String(repeating: "a long licence header ", count: 100) + "-->\n",
            String(repeating: " \n", count: 700),
        ]
        for preamble in preambles {
            #expect(ImageFormat.sniff(Data((preamble + body).utf8)) == .svg, "\(preamble.prefix(60))")
        }
        #expect(ImageFormat.sniff(Data("<!DOCTYPE html><html><svg/></html>".utf8)) == nil)
        #expect(ImageFormat.sniff(Data("<!-- <svg --> <html>".utf8)) == nil)
    }

    @Test func percentEncodedDataURLsAreRecognised() async throws {
        let svg = ##"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="4"><rect width="8" height="4" fill="#0f0"/></svg>"##
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = svg.addingPercentEncoding(withAllowedCharacters: allowed)!
        let loader = DataLoader()
        let partly = svg.replacingOccurrences(of: "#", with: "%23").replacingOccurrences(of: " ", with: "%20")
            .replacingOccurrences(of: "<", with: "%3C").replacingOccurrences(of: ">", with: "%3E").replacingOccurrences(of: "\"", with: "'")
        for string in ["data:image/svg+xml,\(encoded)", "data:image/svg+xml;charset=utf-8,\(encoded)", "data:image/svg+xml;utf8,\(partly)"] {
            let url = try #require(URL(string: string))
            let (data, _) = try await loader.loadData(for: URLRequest(url: url), options: DataLoadOptions())
            #expect(ImageFormat.sniff(data) == .svg, "\(string.prefix(40))")
            if VipsDecoder.supportedFormats.contains(.svg) {
                let image: Image
                do { image = try decoder.decode(data, options: .init()) } catch {
                    Issue.record("\(string.prefix(40)): \(error): \(String(decoding: data, as: UTF8.self))")
                    continue
                }
                #expect(image.width == 8 && TestImages.pixel(image, 2, 2).prefix(3) == [0, 255, 0])
            }
        }
    }

    @Test func binaryDataURLPayloadsArePercentDecodedAsBytes() async throws {
        // Bytes that are not UTF-8 (a PNG's signature, its compressed data) must survive.
        let png = try VipsEncoder().encode(TestImages.gradient(width: 6, height: 3), as: .png, quality: 100)
        let encoded = png.map { String(format: "%%%02X", $0) }.joined()
        let url = try #require(URL(string: "data:image/png,\(encoded)"))
        let (data, _) = try await DataLoader().loadData(for: URLRequest(url: url), options: DataLoadOptions())
        #expect(data == png)
    }
}
