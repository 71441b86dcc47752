/// Where a resize puts the source: the size it is scaled to and the rectangle cut out of that,
/// in pixels, computed from the source's size as imgproxy computes it.
struct ResizeGeometry: Sendable, Hashable {
    /// The size the whole source is scaled to.
    var scaledWidth: Int
    var scaledHeight: Int
    /// The rectangle kept of the scaled image (the whole of it when nothing is cut).
    var cropX: Int
    var cropY: Int
    var cropWidth: Int
    var cropHeight: Int

    /// The geometry for a `sourceWidth × sourceHeight` source asked to be `width × height`
    /// (already multiplied by `dpr`; 0 derives it from the other, or keeps the source's for
    /// `force`), fitted by `type`, enlarged only with `enlarge`, the crop anchored by `gravity`
    /// (pixel offsets already multiplied by `dpr`).
    init(sourceWidth sw: Int, sourceHeight sh: Int, width w: Int, height h: Int, type: ResizingType, enlarge: Bool, gravity: Gravity) {
        let sourceW = Double(sw), sourceH = Double(sh)
        var type = type
        if type == .auto {
            // Same orientation (both landscape or both portrait, square counting as either): fill.
            type = w > 0 && h > 0 && (sw >= sh) == (w >= h) ? .fill : .fit
        }
        if (type == .fill || type == .fillDown), w == 0 || h == 0 { type = .fit }
        switch type {
        case .force:
            var scaleX = w > 0 ? Double(w) / sourceW : 1, scaleY = h > 0 ? Double(h) / sourceH : 1
            if !enlarge { scaleX = min(scaleX, 1); scaleY = min(scaleY, 1) }
            self.init(whole: Self.pixels(sourceW * scaleX), Self.pixels(sourceH * scaleY))
        case .fill, .fillDown:
            var scale = max(Double(w) / sourceW, Double(h) / sourceH)
            if type == .fillDown, scale > 1, !enlarge {
                // Too small to fill: keep the source's pixels, cut to the requested aspect ratio.
                let ratio = Double(w) / Double(h)
                let cutW = min(sw, Self.pixels(sourceH * ratio)), cutH = min(sh, Self.pixels(sourceW / ratio))
                self.init(whole: sw, sh)
                anchor(width: cutW, height: cutH, gravity: gravity)
                return
            }
            if !enlarge { scale = min(scale, 1) }
            self.init(whole: Self.pixels(sourceW * scale), Self.pixels(sourceH * scale))
            anchor(width: min(w, scaledWidth), height: min(h, scaledHeight), gravity: gravity)
        case .fit, .auto:
            var scale = min(w > 0 ? Double(w) / sourceW : .infinity, h > 0 ? Double(h) / sourceH : .infinity)
            if !scale.isFinite { scale = 1 }
            if !enlarge { scale = min(scale, 1) }
            self.init(whole: Self.pixels(sourceW * scale), Self.pixels(sourceH * scale))
        }
    }

    private init(whole width: Int, _ height: Int) {
        scaledWidth = width
        scaledHeight = height
        cropX = 0
        cropY = 0
        cropWidth = width
        cropHeight = height
    }

    /// Whether anything is cut off the scaled image.
    var crops: Bool { cropWidth != scaledWidth || cropHeight != scaledHeight }

    /// Places a `width × height` crop in the scaled image as imgproxy's `calcPosition` does,
    /// then clamps it inside.
    private mutating func anchor(width: Int, height: Int, gravity: Gravity) {
        cropWidth = width
        cropHeight = height
        let spareW = Double(scaledWidth - width), spareH = Double(scaledHeight - height)
        // Offsets of 1 or more are pixels; smaller ones a fraction of the scaled size.
        let dx = abs(gravity.xOffset) >= 1 ? gravity.xOffset : gravity.xOffset * Double(scaledWidth)
        let dy = abs(gravity.yOffset) >= 1 ? gravity.yOffset : gravity.yOffset * Double(scaledHeight)
        var x: Double, y: Double
        switch gravity.kind {
        case .focusPoint:
            x = gravity.xOffset * Double(scaledWidth) - Double(width) / 2
            y = gravity.yOffset * Double(scaledHeight) - Double(height) / 2
        default:
            let k = gravity.kind
            x = [.east, .northEast, .southEast].contains(k) ? spareW - dx : [.west, .northWest, .southWest].contains(k) ? dx : (spareW + 1) / 2 + dx
            y = [.south, .southEast, .southWest].contains(k) ? spareH - dy : [.north, .northEast, .northWest].contains(k) ? dy : (spareH + 1) / 2 + dy
        }
        cropX = Int(min(max(0, x.rounded(.down)), spareW))
        cropY = Int(min(max(0, y.rounded(.down)), spareH))
    }

    private static func pixels(_ value: Double) -> Int { max(1, Int(value.rounded())) }
}
