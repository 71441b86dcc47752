import Foundation
import PictorCore
import PictorTestSupport
import Testing
@testable import PictorService

/// The result tiers, conditional requests, negotiation and sharing.
struct ServiceCachingTests {
    @Test func ifNoneMatchIs304WithNothingDecoded() async {
        let h = ServiceHarness()
        h.stubSource()
        let first = await h.image("rs:fit:64:64")
        let etag = try! #require(first.header("ETag"))
        #expect(h.decoder.decodeCount == 1)
        for condition in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
            let response = await h.image("rs:fit:64:64", headers: [("If-None-Match", condition)])
            #expect(response.status == 304, "\(condition)")
            #expect(response.body.isEmpty)
            #expect(response.header("ETag") == etag)
            #expect(response.header("Cache-Control") == first.header("Cache-Control"))
            #expect(response.header("Content-Length") == first.header("Content-Length"), "the 200's length (RFC 9110 §8.6)")
            #expect(response.header("Content-Type") == nil)
        }
        let changed = await h.image("rs:fit:64:64", headers: [("If-None-Match", "\"other\"")])
        #expect(changed.status == 200)
        #expect(h.decoder.decodeCount == 1)
        #expect(h.encoder.encodeCount == 1)
        #expect(h.loader.loadCount == 1)
        #expect(h.service.metrics.responsesByLayer == [.network: 1, .resultMemory: 5])
        #expect(h.service.metrics.responsesByStatus[304] == 4)
    }

    @Test func aResultOnDiskAnswersAnotherServiceWithoutDecoding() async {
        let disk = InMemoryDataCache()
        let loader = MockDataLoader()
        let first = ServiceHarness(loader: loader, disk: disk)
        first.stubSource()
        let made = await first.image("rs:fill:64:64/q:70")
        #expect(made.status == 200)
        #expect(disk.count == 2)  // the original and the encoded result

        let second = ServiceHarness(loader: loader, disk: disk)
        let conditional = await second.image("rs:fill:64:64/q:70", headers: [("If-None-Match", made.header("ETag")!)])
        #expect(conditional.status == 304)
        let again = await second.image("rs:fill:64:64/q:70")
        #expect(again.body == made.body)
        #expect(again.header("ETag") == made.header("ETag"))
        #expect(second.decoder.decodeCount == 0)
        #expect(second.encoder.encodeCount == 0)
        #expect(loader.loadCount == 1)
        #expect(second.service.metrics.responsesByLayer == [.resultDisk: 1, .resultMemory: 1])
    }

    @Test func otherOptionsShareTheDownloadButNotTheResult() async {
        let h = ServiceHarness()
        h.stubSource()
        let small = await h.image("rs:fit:32:32")
        let large = await h.image("rs:fit:64:64")
        let busted = await h.image("rs:fit:64:64/cb:2")
        let respelled = await h.image("resize:fit:64:64:false")
        #expect(small.pixelSize?.width == 32)
        #expect(large.pixelSize?.width == 64)
        #expect(busted.status == 200)
        #expect(respelled.header("ETag") == large.header("ETag"))
        #expect(h.loader.loadCount == 1)
        #expect(h.encoder.encodeCount == 3)
    }

    @Test func acceptChoosesTheFormatAndAddsVary() async {
        let h = ServiceHarness { $0.autoFormats = [.avif, .webp] }
        h.stubSource()
        let avif = await h.image("rs:fit:64:64", headers: [("Accept", "image/avif,image/webp,*/*;q=0.8")])
        #expect(avif.header("Content-Type") == "image/avif")
        #expect(avif.header("Vary") == "Accept")
        let webp = await h.image("rs:fit:64:64", headers: [("Accept", "image/avif;q=0, image/webp")])
        #expect(webp.header("Content-Type") == "image/webp")
        let wildcard = await h.image("rs:fit:64:64", headers: [("Accept", "image/*,*/*")])
        #expect(wildcard.header("Content-Type") == "image/jpeg")
        #expect(wildcard.header("Vary") == "Accept")
        let none = await h.image("rs:fit:64:64")
        #expect(none.header("Content-Type") == "image/jpeg")
        let explicit = await h.image("rs:fit:64:64/f:png", headers: [("Accept", "image/avif")])
        #expect(explicit.header("Content-Type") == "image/png")
        #expect(explicit.header("Vary") == nil)
        let ext = await h.get("/insecure/rs:fit:64:64/\(ServiceHarness.sourcePath)@webp", headers: [("Accept", "image/avif")])
        #expect(ext.header("Content-Type") == "image/webp")
        #expect(ext.header("Vary") == nil)
        #expect(ext.body == webp.body)
        // avif, webp, the source's (jpeg), png: four results, one download, one decode.
        #expect(h.encoder.encodeCount == 4)
        #expect(h.decoder.decodeCount == 1)

        let off = ServiceHarness()
        off.stubSource()
        let plain = await off.image("rs:fit:64:64", headers: [("Accept", "image/avif")])
        #expect(plain.header("Content-Type") == "image/jpeg")
        #expect(plain.header("Vary") == nil)
    }

    /// A request seen before reuses its plan, so the kept plans must tell apart what the plan
    /// depends on: the path and `Accept`.
    @Test func aKeptPlanIsReusedOnlyForTheSamePathAndAccept() async {
        let h = ServiceHarness { $0.autoFormats = [.avif, .webp] }
        h.stubSource()
        let order = ["image/avif,image/webp", "image/webp", nil, "image/avif,image/webp", "image/webp", nil]
        var types: [String?] = []
        for accept in order {
            let response = await h.image("rs:fit:64:64", headers: accept.map { [("Accept", $0)] } ?? [])
            types.append(response.header("Content-Type"))
        }
        #expect(types == ["image/avif", "image/webp", "image/jpeg", "image/avif", "image/webp", "image/jpeg"])
        let other = await h.image("rs:fit:32:32", headers: [("Accept", "image/webp")])
        #expect(other.pixelSize?.width == 32)
        #expect(h.encoder.encodeCount == 4)
        // A refusal is not kept: the same path is refused again, with its reason.
        for _ in 0..<2 {
            let refused = await h.image("rs:fit:64:64/zz:1")
            #expect(refused.status == 400)
        }
    }

    @Test func planKeysOfDifferentPairsDiffer() {
        let pairs: [(String, String?)] = [("/a", nil), ("/a", ""), ("-/a", nil), ("/a", "-"), ("1:x/a", nil), ("/a", "1:x"), ("x/a", "")]
        let keys = pairs.map { ImageService.planMemoKey(path: $0.0, accept: $0.1) }
        #expect(Set(keys).count == pairs.count, "\(keys)")
    }

    @Test func cacheControlPassthroughAndLastModified() async {
        let h = ServiceHarness { $0.cacheControl = .passthrough(fallback: 60) }
        h.stubSource(headers: ["Cache-Control": "max-age=600", "Last-Modified": "Wed, 21 Oct 2015 07:28:00 GMT"])
        let start = ContinuousClock.now
        let response = await h.image("rs:fit:64:64")
        // The source's 600 s less the time the request took (long on a loaded machine).
        let elapsed = Int((ContinuousClock.now - start).components.seconds) + 1
        let maxAge = response.header("Cache-Control").flatMap { Int($0.replacingOccurrences(of: "public, max-age=", with: "")) }
        #expect(maxAge.map { ((600 - elapsed)...600).contains($0) } == true, "\(String(describing: response.header("Cache-Control")))")
        #expect(response.header("Last-Modified") == "Wed, 21 Oct 2015 07:28:00 GMT")

        let bare = ServiceHarness { $0.cacheControl = .passthrough(fallback: 60) }
        bare.stubSource(headers: ["Content-Type": "image/x-test"])
        let bareStart = ContinuousClock.now
        let fallback = await bare.image("rs:fit:64:64")
        // No freshness from the source: the pipeline's own lifetime for such responses (7 days),
        // less the time the request took.
        let bareElapsed = Int((ContinuousClock.now - bareStart).components.seconds) + 1
        let fallbackAge = fallback.header("Cache-Control").flatMap { Int($0.replacingOccurrences(of: "public, max-age=", with: "")) }
        #expect(fallbackAge.map { ((604_800 - bareElapsed)...604_800).contains($0) } == true,
                "\(String(describing: fallback.header("Cache-Control")))")
        #expect(fallback.header("Last-Modified") == nil)

        let fixed = ServiceHarness { $0.cacheControl = .maxAge(120) }
        fixed.stubSource()
        #expect(await fixed.image("rs:fit:64:64").header("Cache-Control") == "public, max-age=120")
    }

    @Test func aHundredIdenticalRequestsMakeOneResult() async {
        let h = ServiceHarness()
        h.stubSource()
        h.loader.gate.close()
        let responses = await withTaskGroup(of: ServiceResponse.self) { group in
            for _ in 0..<100 { group.addTask { await h.image("rs:fit:64:64/q:80") } }
            while h.waitingRequests < 100 { try? await Task.sleep(for: .milliseconds(5)) }
            h.loader.gate.open()
            var all: [ServiceResponse] = []
            for await response in group { all.append(response) }
            return all
        }
        #expect(responses.count == 100)
        #expect(responses.allSatisfy { $0.status == 200 })
        #expect(Set(responses.compactMap { $0.header("ETag") }).count == 1)
        #expect(h.loader.loadCount == 1)
        #expect(h.decoder.decodeCount == 1)
        #expect(h.encoder.encodeCount == 1)
        #expect(h.service.metrics.coalescedRequests == 99)
        #expect(h.service.metrics.encodes == 1)
    }

    @Test func metricsCountStatusesLayersAndRefusals() async {
        let h = ServiceHarness()
        h.stubSource()
        _ = await h.image("rs:fit:64:64")
        _ = await h.image("rs:fit:64:64")
        _ = await h.image("bg:fff")
        _ = await h.get("/insecure/rs:fit:64:64/plain/file:///etc/passwd")
        let m = h.service.metrics
        #expect(m.requests == 4)
        #expect(m.responsesByStatus == [200: 2, 400: 1, 403: 1])
        #expect(m.responsesByLayer == [.network: 1, .resultMemory: 1])
        #expect(m.refusalsByKind == [.unsupportedOption: 1, .sourceSchemeNotAllowed: 1])
    }

    @Test func immediateResponsesAreRefusalsAndResultsInMemoryOnly() async {
        let h = ServiceHarness()
        h.stubSource()
        let path = "/insecure/rs:fit:64:64/\(ServiceHarness.sourcePath)"
        // A result not made yet needs waiting: no immediate answer, nothing counted
        #expect(h.service.immediateResponse(to: ServiceRequest(method: "GET", path: path, headers: [])) == nil)
        #expect(h.service.metrics.requests == 0)
        let made = await h.get(path)
        // Once in memory it is answered at once, as handle answers it, and counted alike
        let warm = h.service.immediateResponse(to: ServiceRequest(method: "GET", path: path, headers: []))
        #expect(warm?.status == 200)
        #expect(warm?.body == made.body)
        #expect(warm?.header("ETag") == made.header("ETag"))
        let head = h.service.immediateResponse(to: ServiceRequest(method: "HEAD", path: path, headers: []))
        #expect(head?.body.isEmpty == true)
        #expect(head?.header("Content-Length") == made.header("Content-Length"))
        // A request refused for itself is answered at once too
        let refused = h.service.immediateResponse(to: ServiceRequest(method: "GET", path: "/insecure/zz:1/\(ServiceHarness.sourcePath)", headers: []))
        #expect(refused?.status == 400)
        let m = h.service.metrics
        #expect(m.requests == 4)
        #expect(m.responsesByLayer == [.network: 1, .resultMemory: 2])
        #expect(h.loader.loadCount == 1)
    }
}

/// The memory of encoded results is bounded by what it really holds: each result counts its key
/// and its bookkeeping, not only its bytes. A client that asks for tiny results under long
/// distinct keys (a cache buster of thousands of characters, a 1 × 1 result) held about 33 KB
/// each against the limit's 67 bytes, so RSS grew without bound.
@Suite struct ResultMemoryBoundTests {
    @Test func aResultCountsItsKeyAndItsBookkeeping() async {
        let h = ServiceHarness { $0.resultMemoryLimit = 64 << 10 }
        h.stubSource(width: 8, height: 8)
        let buster = String(repeating: "b", count: 4_000)
        for i in 0..<30 {
            let response = await h.image("cb:\(i)\(buster)/rs:force:1:1")
            #expect(response.status == 200)
        }
        let results = h.service.results
        // Each key is over 4,000 bytes: 64 KiB holds at most 15 of them, whatever their bytes.
        #expect(results.count <= 15, "\(results.count) results kept")
        #expect(results.count >= 5, "\(results.count) results kept")
        #expect(results.totalCost <= 64 << 10)
    }

    @Test func atMostAFixedNumberOfResultsAreKept() {
        let h = ServiceHarness()
        #expect(h.service.results.countLimit == ImageService.maxKeptResults)
        #expect(ImageService.maxKeptResults == 16_384)
    }
}
