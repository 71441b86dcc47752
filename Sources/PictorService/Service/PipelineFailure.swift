import PictorCore

/// The refusal for a pipeline failure: which layer failed and how, as a status and a reason
/// that names no URL.
///
/// | failure | kind | status |
/// | --- | --- | --- |
/// | origin 404, 410 | ``ServiceError/Kind/sourceNotFound`` | 404 |
/// | origin's other statuses, empty or truncated body, bad HTTP, too many redirects | ``ServiceError/Kind/sourceFailed`` | 502 |
/// | a redirect the source rules refuse (the loader's redirect filter, or its scheme rule) | ``ServiceError/Kind/redirectNotAllowed`` | 403 |
/// | the transport refused the address the source resolved to | ``ServiceError/Kind/privateNetworkSource`` | 403 |
/// | refused connection, DNS, TLS, lost connection | ``ServiceError/Kind/sourceUnreachable`` | 502 |
/// | the loader's timeouts | ``ServiceError/Kind/sourceTimedOut`` | 504 |
/// | not an image, undecodable, unsupported format | ``ServiceError/Kind/notAnImage`` | 422 |
/// | body or pixels over the limit | ``ServiceError/Kind/sourceTooLarge`` | 422 |
/// | result over the size limit | ``ServiceError/Kind/resultTooLarge`` | 422 |
/// | a processor failed; encoding failed | ``ServiceError/Kind/processingFailed`` | 422 |
/// | no renderer or no encoder configured | ``ServiceError/Kind/unavailable`` | 503 |
/// | cancelled | ``ServiceError/Kind/cancelled`` | 503 |
enum PipelineFailure {
    static func refusal(for error: ImagePipeline.Error) -> ServiceError {
        switch error.kind {
        case .loading:
            guard let loading = error.dataLoadingError else {
                return ServiceError(.sourceUnreachable, reason: "the source could not be fetched")
            }
            return refusal(for: loading)
        case .decoding:
            return refusal(for: error.decodingError)
        case .processing:
            if let processing = error.underlying as? ImageProcessingError, processing == .noRenderer {
                return ServiceError(.unavailable, reason: "no image renderer is configured")
            }
            return ServiceError(.processingFailed, reason: "processing the image failed")
        case .encoding:
            let format = (error.encodingError?.format).map { " as \($0.rawValue)" } ?? ""
            return ServiceError(.processingFailed, reason: "encoding the result\(format) failed")
        case .resultTooLarge:
            guard let size = error.resultSize else { return ServiceError(.resultTooLarge, reason: "the result is over the size limit") }
            return ServiceError(
                .resultTooLarge, reason: "the result would be \(size.width)x\(size.height), over the limit of \(size.limit) pixels a side")
        case .noEncoder:
            return ServiceError(.unavailable, reason: "no image encoder is configured")
        case .cancelled:
            return ServiceError(.cancelled, reason: "the request was cancelled")
        }
    }

    static func refusal(for error: DataLoadingError) -> ServiceError {
        let kind = error.kind
        if let status = error.statusCode {
            if status == 404 || status == 410 {
                return ServiceError(.sourceNotFound, reason: "the source was not found (\(status))")
            }
            return ServiceError(.sourceFailed, reason: "the source answered \(status)")
        }
        switch kind {
        case .timedOut, .idleTimeout, .connectionTimedOut:
            return ServiceError(.sourceTimedOut, reason: "the source did not answer in time")
        case .notAnImage, .localNotAnImage:
            return ServiceError(.notAnImage, reason: "the source is not an image")
        case .responseTooLarge:
            return ServiceError(.sourceTooLarge, reason: "the source is larger than " + (error.limit.map { "\($0) bytes" } ?? "the byte limit"))
        case .redirectRefused, .redirectNotAllowed:
            return ServiceError(.redirectNotAllowed, reason: "the source redirected to a URL that is not allowed")
        case .addressNotAllowed:
            return ServiceError(.privateNetworkSource, reason: "the source resolved to a non-public address")
        case .emptyBody, .truncated, .badServerResponse, .tooManyRedirects, .contentDecodingFailed:
            return ServiceError(.sourceFailed, reason: "the source's response was unusable (\(kind.description))")
        default:
            return ServiceError(.sourceUnreachable, reason: "the source could not be reached (\(kind.description))")
        }
    }

    static func refusal(for error: ImageDecodingError?) -> ServiceError {
        guard let error else { return ServiceError(.notAnImage, reason: "the source could not be decoded") }
        switch error.kind {
        case .tooManyPixels:
            return ServiceError(.sourceTooLarge, reason: "the source has more pixels than the limit")
        case .emptyData, .unknownFormat:
            return ServiceError(.notAnImage, reason: "the source is not an image")
        case .unsupportedFormat, .unsupportedVariant:
            return ServiceError(.notAnImage, reason: "the source's image format is not supported" + (error.format.map { " (\($0.rawValue))" } ?? ""))
        case .truncated:
            return ServiceError(.notAnImage, reason: "the source image is truncated")
        default:
            return ServiceError(.notAnImage, reason: "the source image could not be decoded")
        }
    }
}
