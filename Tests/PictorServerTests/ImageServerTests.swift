import Foundation
import PictorService
import PictorTestSupport
import Testing
@testable import PictorServer

/// The server on real sockets (loopback only), with nginx on loopback as the origin.
@Suite(.serialized, .enabled(if: serverTestsCanRun, "needs nginx and ../shared/corpus"))
struct ImageServerTests {
    @Test func aSignedRequestGetsAResizedJPEG() async throws {
        let h = try await ServerHarness()
        let target = h.signed("rs:fit:64:64")
        let response = try await offPool { [port = h.port] in try TestHTTPClient.get(port: port, target) }
        await h.stop()
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "image/jpeg")
        #expect(response.header("Content-Length") == String(response.body.count))
        let size = try #require(jpegSize(response.body))
        #expect(size.width == 64 && size.height == 43, "\(size)")
        #expect(h.log.all.count == 1)
        #expect(h.log.all.first?.contains("\"GET \(target)\" 200 \(response.body.count) ") == true, "\(h.log.all)")
    }

    @Test func twoRequestsShareOneKeepAliveConnection() async throws {
        let h = try await ServerHarness()
        let (first, second, health) = try await offPool { [port = h.port, a = h.signed("rs:fit:32:32"), b = h.signed("rs:fill:40:40")] in
            let client = try TestHTTPClient(port: port)
            return (try client.request(a), try client.request(b), try client.request("/health"))
        }
        await h.stop()
        #expect(first.status == 200)
        #expect(jpegSize(first.body)?.width == 32)
        #expect(second.status == 200)
        #expect(jpegSize(second.body).map { [$0.width, $0.height] } == [40, 40])
        #expect(health.status == 200)
    }

    @Test func ifNoneMatchGets304() async throws {
        let h = try await ServerHarness()
        let target = h.signed("rs:fit:64:64")
        let (first, conditional, head, after) = try await offPool { [port = h.port] in
            let client = try TestHTTPClient(port: port)
            let first = try client.request(target)
            let etag = first.header("ETag") ?? "none"
            // One connection throughout: neither the 304 nor the HEAD may leave bytes behind.
            return (first, try client.request(target, headers: [("If-None-Match", etag)]), try client.request(target, method: "HEAD"),
                    try client.request("/health"))
        }
        await h.stop()
        #expect(first.status == 200)
        #expect(conditional.status == 304)
        #expect(conditional.header("ETag") == first.header("ETag"))
        #expect(conditional.body.isEmpty)
        #expect(conditional.header("Content-Length") == String(first.body.count), "a 304 claims the 200's length, never 0")
        #expect(conditional.header("Content-Type") == nil)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == String(first.body.count), "HEAD announces GET's length")
        #expect(after.status == 200)
        #expect(try h.origin.requestCount(path: landscapePath) == 1)
    }

    @Test func healthAndMetrics() async throws {
        let h = try await ServerHarness()
        let (health, image, metrics) = try await offPool { [port = h.port, target = h.signed("rs:fit:16:16")] in
            (try TestHTTPClient.get(port: port, "/health"), try TestHTTPClient.get(port: port, target),
             try TestHTTPClient.get(port: port, "/metrics"))
        }
        await h.stop()
        #expect(health.status == 200)
        #expect(String(decoding: health.body, as: UTF8.self) == "ok\n")
        #expect(image.status == 200)
        #expect(metrics.status == 200)
        #expect(metrics.header("Content-Type") == PrometheusMetrics.contentType)
        let page = String(decoding: metrics.body, as: UTF8.self)
        #expect(page.contains("pictor_requests_total{status=\"200\"} 1\n"), "\(page)")
        #expect(page.contains("pictor_image_responses_total{layer=\"network\"} 1\n"))
        #expect(page.contains("pictor_refusals_total{kind=\"invalid_signature\"} 0\n"))
        #expect(page.contains("pictor_coalesced_requests_total 0\n"))
    }

    @Test func stageHistogramsAndTheDecodeCounter() async throws {
        let h = try await ServerHarness()
        let target = h.signed("rs:fit:16:16")
        let (cold, afterCold, warm, afterWarm) = try await offPool { [port = h.port] in
            (try TestHTTPClient.get(port: port, target), try TestHTTPClient.get(port: port, "/metrics"),
             try TestHTTPClient.get(port: port, target), try TestHTTPClient.get(port: port, "/metrics"))
        }
        await h.stop()
        #expect(cold.status == 200 && warm.status == 200)
        let coldPage = String(decoding: afterCold.body, as: UTF8.self)
        let warmPage = String(decoding: afterWarm.body, as: UTF8.self)
        #expect(coldPage.contains("# TYPE pictor_stage_seconds histogram\n"), "\(coldPage)")
        for stage in ["queue", "download", "decode", "process", "encode"] {
            let count = try #require(Self.sample(coldPage, "pictor_stage_seconds_count{stage=\"\(stage)\"}"), "\(stage)")
            #expect(count >= 1, "\(stage)")
            #expect(Self.sample(coldPage, "pictor_stage_seconds_bucket{stage=\"\(stage)\",le=\"+Inf\"}") == count)
            #expect(Self.sample(coldPage, "pictor_stage_seconds_sum{stage=\"\(stage)\"}") != nil)
            #expect(Self.sample(coldPage, "pictor_stage_seconds_bucket{stage=\"\(stage)\",le=\"0.005\"}") != nil)
        }
        #expect(coldPage.contains("pictor_decodes_total 1\n"), "\(coldPage)")
        // The warm request is the service's memory: nothing decoded, no stage ran.
        #expect(warmPage.contains("pictor_decodes_total 1\n"), "\(warmPage)")
        #expect(Self.sample(warmPage, "pictor_stage_seconds_count{stage=\"decode\"}") == Self.sample(coldPage, "pictor_stage_seconds_count{stage=\"decode\"}"))
    }

    /// The value of the sample named `series` (its name and labels) on a metrics page.
    static func sample(_ page: String, _ series: String) -> Double? {
        for line in page.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test func aBadSignatureIs403() async throws {
        let h = try await ServerHarness(accessLog: .json)
        let good = h.signed("rs:fit:64:64")
        let bad = "/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" + good.drop { $0 != "/" }.dropFirst().drop { $0 != "/" }
        let response = try await offPool { [port = h.port] in try TestHTTPClient.get(port: port, bad) }
        await h.stop()
        #expect(response.status == 403)
        #expect(String(decoding: response.body, as: UTF8.self) == "invalid signature\n")
        #expect(try h.origin.requestCount(path: landscapePath) == 0)
        let line = try #require(h.log.all.first)
        #expect(line.contains(#""status":403"#), "\(line)")
    }

    @Test func aHundredConcurrentIdenticalRequestsMakeOneOriginRequest() async throws {
        let h = try await ServerHarness()
        let target = h.signed("rs:fit:128:128")
        let port = h.port
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask { try await offPool { try TestHTTPClient.get(port: port, target).status } }
            }
            var statuses: [Int] = []
            for try await status in group { statuses.append(status) }
            return statuses
        }
        let metrics = h.server.service.metrics
        await h.stop()
        #expect(statuses == Array(repeating: 200, count: 100))
        #expect(try h.origin.requestCount(path: landscapePath) == 1)
        #expect(metrics.encodes == 1)
        #expect(h.log.all.count == 100)
    }

    @Test func metricLabelsKeepAcronymsWhole() {
        #expect(PrometheusMetrics.snakeCase("invalidSignature") == "invalid_signature")
        #expect(PrometheusMetrics.snakeCase("notAnImageURL") == "not_an_image_url")
        #expect(PrometheusMetrics.snakeCase("unsupportedURLFormat") == "unsupported_url_format")
        #expect(PrometheusMetrics.snakeCase("ok") == "ok")
        for kind in ServiceError.Kind.allCases {
            let label = PrometheusMetrics.snakeCase(kind)
            #expect(label == label.lowercased(), "\(kind)")
            #expect(!PrometheusMetrics.snakeCase(kind).contains("_u_r_l"), "\(kind)")
        }
    }
}
