import Foundation

/// Something that shows one image at a time — a view, a cell, a slot in a contact sheet — and
/// that ``ImageTargetBinder`` loads images into.
///
/// UIKit and AppKit adapters conform their views on the main actor and pass `.main` as the
/// binder's delivery queue; on Linux any `Sendable` class will do.
public protocol ImageLoadingTarget: AnyObject, Sendable {
    /// Shows `image` (`nil` clears the target).
    ///
    /// - Parameters:
    ///   - image: the image to show, or `nil` to clear the target.
    ///   - phase: why: the placeholder while loading, the loaded image, or the failure image.
    /// - Important: called with the binder's lock held so a stale result can never overwrite a
    ///   newer one: do not call back into the same binder from here.
    func display(_ image: Image?, phase: ImageLoadingPhase)
}

/// Why a target is asked to show an image.
public enum ImageLoadingPhase: Sendable {
    /// Loading started; the image is the placeholder (`nil` clears the previous image).
    case placeholder
    /// The request completed; the image is the response's (a memory hit arrives synchronously
    /// from ``ImageTargetBinder/setImage(with:placeholder:failureImage:completion:)``).
    case success(ImageResponse)
    /// The request failed; the image is the failure image, if any.
    case failure(ImagePipeline.Error)
}
