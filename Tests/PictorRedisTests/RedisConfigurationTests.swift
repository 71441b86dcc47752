import Foundation
import Testing
@testable import PictorRedis

@Suite struct RedisConfigurationTests {
    @Test func defaults() throws {
        let configuration = try RedisConfiguration(url: "redis://cache.local")
        #expect(configuration.endpoints == [RedisEndpoint(host: "cache.local", port: 6379)])
        #expect(configuration.username == nil)
        #expect(configuration.password == nil)
        #expect(configuration.database == 0)
        #expect(configuration.connectTimeout == .milliseconds(50))
        #expect(configuration.commandTimeout == .milliseconds(200))
        #expect(configuration.maximumConnectionsPerNode == 4)
        #expect(configuration.reconnectInitialDelay == .milliseconds(50))
        #expect(configuration.reconnectMaximumDelay == .seconds(2))
    }

    @Test func fullURL() throws {
        let configuration = try RedisConfiguration(url: "redis://alice:s3cr%40t@10.0.0.7:6380/3")
        #expect(configuration.endpoints == [RedisEndpoint(host: "10.0.0.7", port: 6380)])
        #expect(configuration.username == "alice")
        #expect(configuration.password == "s3cr@t")
        #expect(configuration.database == 3)
    }

    @Test func passwordOnlyAndRawAtSign() throws {
        let configuration = try RedisConfiguration(url: "redis://:p@ss:w/rd@host:7000/")
        #expect(configuration.username == nil)
        #expect(configuration.password == "p@ss:w/rd")
        #expect(configuration.endpoints == [RedisEndpoint(host: "host", port: 7000)])
        #expect(configuration.database == 0)
    }

    @Test func seedList() throws {
        let configuration = try RedisConfiguration(url: "REDIS://:pw@h1:7000,h2,[::1]:7002")
        #expect(configuration.endpoints == [RedisEndpoint(host: "h1", port: 7000), RedisEndpoint(host: "h2", port: 6379),
                                            RedisEndpoint(host: "::1", port: 7002)])
        #expect(configuration.password == "pw")
    }

    @Test func tlsIsUnsupported() {
        #expect(throws: RedisError.unsupported("rediss:// (TLS) needs hiredis ≥ 1.0; Debian 12 ships 0.14")) {
            try RedisConfiguration(url: "rediss://:pw@host:6380")
        }
    }

    @Test(arguments: [
        "http://host", "host:6379", "redis://", "redis://:pw@", "redis://host:0", "redis://host:65536", "redis://host:-1",
        "redis://host:port", "redis://host:", "redis://host/-1", "redis://host/x", "redis://host/1.5", "redis://h1,h2/2",
        "redis://h1,,h2", "redis://host?db=1", "redis://[::1", "redis://:%zz@host",
        "redis://host?command_timeout=0", "redis://host?command_timeout=fast", "redis://host?connect_timeout=120s",
        "redis://host?max_connections=0", "redis://host#frag",
    ])
    func invalidURLs(url: String) {
        #expect {
            try RedisConfiguration(url: url)
        } throws: { error in
            (error as? RedisError)?.kind == .invalidURL
        }
    }

    @Test func queryOptionsSetTheLimits() throws {
        let c = try RedisConfiguration(url: "redis://:p?w@host:7000/2?connect_timeout=2s&command_timeout=750ms&max_connections=16")
        #expect(c.password == "p?w", "a '?' before the last '@' belongs to the password")
        #expect(c.database == 2)
        #expect(c.connectTimeout == .seconds(2))
        #expect(c.commandTimeout == .milliseconds(750))
        #expect(c.maximumConnectionsPerNode == 16)
        #expect(try RedisConfiguration(url: "redis://h1:1,h2:2?command_timeout=0.5").commandTimeout == .milliseconds(500))
    }

    @Test func passwordNeverShows() throws {
        let secret = "hunter2-very-secret"
        let configuration = try RedisConfiguration(url: "redis://bob:\(secret)@h1:7000,h2:7001")
        #expect(!configuration.description.contains(secret))
        #expect(!String(reflecting: configuration).contains(secret))
        #expect(!"\(configuration)".contains(secret))
        var dumped = ""
        dump(configuration, to: &dumped)
        #expect(!dumped.contains(secret))
        #expect(configuration.description.contains("<redacted>"))
        for bad in ["redis://:\(secret)@host:99999", "redis://:\(secret)@host/x", "redis://:\(secret)@", "redis://:\(secret)@h1,h2/1"] {
            do {
                _ = try RedisConfiguration(url: bad)
                Issue.record("\(bad) parsed")
            } catch {
                #expect(!error.description.contains(secret))
            }
        }
    }
}
