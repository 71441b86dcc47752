import PictorCore

/// The resizes a thumbnail cannot express, since they depend on the source's size: `auto`,
/// `fill-down`, `force` with one side left to the source, and `fill` anchored anywhere but the
/// centre. Scales the whole image (stretch, to the computed size) and crops it through the
/// pipeline's renderer.
struct ServiceResize: ImageProcessing, Hashable {
    var width: Int
    var height: Int
    var type: ResizingType
    var enlarge: Bool
    var gravity: Gravity

    /// `service.resize(<type>,<w>x<h>,<up|noup>,<gravity>:<x>:<y>)`: every parameter, each in
    /// one spelling.
    var identifier: String {
        "service.resize(\(type.rawValue),\(width)x\(height),\(enlarge ? "up" : "noup"),"
            + "\(gravity.kind.rawValue):\(NumberText.format(gravity.xOffset)):\(NumberText.format(gravity.yOffset)))"
    }

    func process(_ image: Image, context: ImageProcessingContext) throws -> Image {
        let g = ResizeGeometry(
            sourceWidth: image.width, sourceHeight: image.height, width: width, height: height,
            type: type, enlarge: enlarge, gravity: gravity)
        var result = image
        if g.scaledWidth != image.width || g.scaledHeight != image.height {
            let size = ThumbnailOptions(width: g.scaledWidth, height: g.scaledHeight, contentMode: .stretch, allowsUpscaling: true)
            result = try context.renderer.resize(result, to: size)
        }
        if g.crops {
            result = try context.renderer.crop(result, x: g.cropX, y: g.cropY, width: g.cropWidth, height: g.cropHeight)
        }
        return result
    }
}

/// A processor that changes nothing and names the request's canonical options, so that the
/// result's cache key holds every option (`cb:` included), not only those that became
/// processors.
struct OptionsTag: ImageProcessing, Hashable {
    var canonical: String

    var identifier: String { "service.options(\(canonical))" }

    func process(_ image: Image, context: ImageProcessingContext) throws -> Image { image }
}

// The service's processors are Pictor's own: their cache identifiers are `pictor.service.…`,
// out of reach of a processor of the application that shares the pipeline.
extension ServiceResize: BuiltInImageProcessor {}
extension OptionsTag: BuiltInImageProcessor {}
