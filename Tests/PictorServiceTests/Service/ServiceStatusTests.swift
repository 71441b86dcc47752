import Foundation
import PictorCore
import PictorTestSupport
import Testing
@testable import PictorService

/// Every status the handler answers, with no socket.
struct ServiceStatusTests {
    @Test func okCarriesTheImageAndItsHeaders() async {
        let h = ServiceHarness()
        h.stubSource()
        let response = await h.image("rs:fit:64:64")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "image/jpeg")
        #expect(response.header("Content-Length") == String(response.body.count))
        #expect(response.header("Cache-Control") == "public, max-age=31536000")
        #expect(response.header("ETag")?.hasPrefix("\"") == true)
        #expect(response.header("Vary") == nil)
        #expect(response.header("X-Content-Type-Options") == "nosniff")
        #expect(response.pixelSize?.width == 64 && response.pixelSize?.height == 48)
    }

    @Test func otherMethodsAre405WithAllow() async {
        let h = ServiceHarness()
        h.stubSource()
        for method in ["POST", "PUT", "DELETE", "get", "OPTIONS"] {
            let response = await h.image("rs:fit:64:64", method: method)
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET, HEAD")
        }
        #expect(h.loader.loadCount == 0)
    }

    @Test func grammarRefusalsKeepTheirStatus() async {
        let h = ServiceHarness()
        #expect(await h.image("nope:1").status == 400)
        #expect(await h.image("nope:1").text == "unknown option 'nope'\n")
        #expect(await h.image("nope:1").header("X-Content-Type-Options") == "nosniff")
        #expect(await h.get("/").status == 404)
        #expect(await h.get("/" + String(repeating: "a", count: 9000)).status == 414)
        let signed = ServiceHarness(parser: try! Fixture.signed())
        #expect(await signed.image("rs:fit:64:64").status == 403)
        #expect(h.loader.loadCount == 0)
    }

    @Test func unsupportedOptionsAre400NamingThem() async {
        let h = ServiceHarness()
        h.stubSource()
        let cases = [
            ("bg:ffffff", "background"), ("ex:1", "extend"), ("rs:fill:64:64/g:sm", "gravity:sm"), ("sm:0", "strip_metadata"),
        ]
        for (options, name) in cases {
            let response = await h.image(options)
            #expect(response.status == 400)
            #expect(response.text.contains("option '\(name)' is not supported yet"), "\(response.text)")
        }
        #expect(await h.image("f:svg").status == 400)
        #expect(await h.image("f:svg").text == "output format 'svg' is not supported\n")
        #expect(h.loader.loadCount == 0)
    }

    @Test func sourcesOutsideTheRulesAre403() async {
        let h = ServiceHarness { $0.allowedSourcePrefixes = ["http://origin.test/"] }
        let refused = [
            "plain/file:///etc/passwd", "plain/data:image/png;base64,AAAA", "plain/ftp://origin.test/a.jpg",
            "plain/http://elsewhere.test/a.jpg", "plain/http://origin.test.evil.test/a.jpg",
            "plain/http://user:pass%40origin.test/a.jpg",
        ]
        for source in refused {
            let response = await h.get("/insecure/rs:fit:64:64/\(source)")
            #expect(response.status == 403, "\(source): \(response.text)")
            #expect(!response.text.contains("passwd") && !response.text.contains("elsewhere"))
        }
        #expect(h.loader.loadCount == 0)
    }

    @Test func literalPrivateAddressesAre403UnlessAllowed() async {
        let h = ServiceHarness()
        let hosts = ["127.0.0.1", "169.254.169.254", "10.1.2.3", "[::1]", "[::ffff:192.168.0.1]", "localhost", "0x7f.1", "2130706433"]
        for host in hosts {
            let response = await h.get("/insecure/rs:fit:64:64/plain/http://\(host)/a.jpg")
            #expect(response.status == 403, "\(host)")
            #expect(response.text.hasPrefix("the source host is a "))
        }
        #expect(await h.get("/insecure/rs:fit:64:64/plain/http://0.0.0.0/a.jpg").text == "the source host is an unspecified address\n")
        #expect(await h.get("/insecure/rs:fit:64:64/plain/http://10.0.0.1/a.jpg").text == "the source host is a private address\n")
        #expect(await h.get("/insecure/rs:fit:64:64/plain/http://100.64.0.1/a.jpg").text == "the source host is a shared (CGNAT) address\n")
        // Allowed: the guard passes it on; the mock loader (never the network) answers 404.
        let open = ServiceHarness { $0.allowsPrivateNetwork = true }
        #expect(await open.get("/insecure/rs:fit:64:64/plain/http://127.0.0.1:9/a.jpg").status == 404)
        #expect(h.loader.loadCount == 0)
        #expect(open.loader.loadCount == 1)
    }

    @Test func sourceStatusesMapTo404And502() async {
        let h = ServiceHarness()
        let missing = await h.image("rs:fit:64:64")
        #expect(missing.status == 404)
        #expect(missing.text == "the source was not found (404)\n")
        h.loader.stub(ServiceHarness.source, MockDataLoader.Stub(statusCode: 500, body: Data()))
        let failed = await h.image("rs:fit:32:32")
        #expect(failed.status == 502)
        #expect(failed.text == "the source answered 500\n")
    }

    @Test func unreachableIs502AndTimeoutIs504() async {
        let h = ServiceHarness()
        h.loader.stub(ServiceHarness.source, error: .transport(.connectionRefused, code: 7, message: "refused"))
        #expect(await h.image("rs:fit:64:64").status == 502)
        let slow = ServiceHarness()
        slow.loader.stub(ServiceHarness.source, error: .timedOut(seconds: 5))
        let response = await slow.image("rs:fit:64:64")
        #expect(response.status == 504)
        #expect(response.text == "the source did not answer in time\n")
    }

    @Test func theRequestDeadlineIs504() async {
        let h = ServiceHarness { $0.requestTimeout = 0.2 }
        h.stubSource()
        h.loader.gate.close()
        let response = await h.image("rs:fit:64:64")
        #expect(response.status == 504)
        #expect(response.text == "the image took longer than 0.2 s\n")
        h.loader.gate.open()
    }

    @Test func notAnImageIs422() async {
        let h = ServiceHarness()
        h.loader.stub(ServiceHarness.source, data: Data("<html>hello</html>".utf8))
        let response = await h.image("rs:fit:64:64")
        #expect(response.status == 422)
        #expect(response.text == "the source is not an image\n")
    }

    @Test func limitsAre422() async {
        let pixels = ServiceHarness { $0.maxSourcePixels = 1000 }
        pixels.stubSource()
        let tooManyPixels = await pixels.image("rs:fit:64:64")
        #expect(tooManyPixels.status == 422)
        #expect(tooManyPixels.text == "the source has more pixels than the limit\n")

        let bytes = ServiceHarness { $0.maxSourceBytes = 4 }
        bytes.stubSource()
        #expect(await bytes.image("rs:fit:64:64").status == 422)

        let result = ServiceHarness { $0.maxResultDimension = 100 }
        result.stubSource()
        #expect(await result.image("rs:fit:200:50").status == 422)
        #expect(await result.image("rs:fit:50:50/dpr:3").status == 422)
        // No size asked: the 640-pixel source is itself over the limit.
        #expect(await result.image("q:80").status == 422)
        #expect(await result.image("rs:fit:100:100").status == 200)
    }

    @Test func aResultOverThePixelLimitIs422BeforeAnythingIsFetched() async {
        let h = ServiceHarness { $0.maxResultPixels = 10_000 }
        h.stubSource()
        let wide = await h.image("rs:fit:200:100")
        #expect(wide.status == 422)
        #expect(wide.text == "the requested size 200x100 (20000 pixels) is over the limit of 10000 pixels\n")
        // The device pixel ratio multiplies both sides.
        #expect(await h.image("rs:fit:50:50/dpr:3").status == 422)
        #expect(h.loader.loadCount == 0)
        #expect(h.service.metrics.refusalsByKind == [.resultTooLarge: 2])
        #expect(await h.image("rs:fit:100:100").status == 200)

        // By default the limit is the source's: 8192 a side passes the side limit, not this one.
        let defaults = ServiceHarness()
        #expect(defaults.service.configuration.maxResultPixels == defaults.service.configuration.maxSourcePixels)
        defaults.stubSource()
        let large = await defaults.image("rs:force:8192:8192/el:1")
        #expect(large.status == 422)
        #expect(large.text == "the requested size 8192x8192 (67108864 pixels) is over the limit of 50000000 pixels\n")
        #expect(await defaults.image("rs:force:7000:7000/el:1").status == 200)
    }

    @Test func overloadIs429WithRetryAfter() async throws {
        let h = ServiceHarness {
            $0.maxWorkInFlight = 1
            $0.retryAfter = 3
        }
        h.stubSource()
        h.loader.gate.close()
        let first = Task { await h.image("rs:fit:64:64") }
        await h.loader.gate.waitUntil(waiting: 1)
        let second = await h.image("rs:fit:32:32")
        #expect(second.status == 429)
        #expect(second.header("Retry-After") == "3")
        h.loader.gate.open()
        #expect(await first.value.status == 200)
        #expect(await h.image("rs:fit:32:32").status == 200)
    }

    @Test func headHasTheHeadersOfGetAndNoBody() async {
        let h = ServiceHarness()
        h.stubSource()
        let get = await h.image("rs:fit:64:64")
        let head = await h.image("rs:fit:64:64", method: "HEAD")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.headers.map(\.name) == get.headers.map(\.name))
        #expect(head.header("Content-Length") == String(get.body.count))
        #expect(head.header("ETag") == get.header("ETag"))
        let refused = await h.image("nope:1", method: "HEAD")
        #expect(refused.status == 400)
        #expect(refused.body.isEmpty)
    }
}
