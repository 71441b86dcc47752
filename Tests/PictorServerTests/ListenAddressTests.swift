import Foundation
import Testing
@testable import PictorServer

/// `--listen`'s grammar.
struct ListenAddressTests {
    @Test func readsHostsPortsAndUnixPaths() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1:8080") == .tcp(host: "127.0.0.1", port: 8080))
        #expect(try ListenAddress(parsing: "[::1]:0") == .tcp(host: "::1", port: 0))
        #expect(try ListenAddress(parsing: ":9000") == .tcp(host: "0.0.0.0", port: 9000))
        #expect(try ListenAddress(parsing: "localhost:80") == .tcp(host: "localhost", port: 80))
        #expect(try ListenAddress(parsing: "unix:/run/pictor.sock") == .unix(path: "/run/pictor.sock"))
        #expect(ListenAddress.tcp(host: "::1", port: 1).description == "[::1]:1")
    }

    @Test(arguments: ["8080", "host:", "host:65536", "host:-1", "::1:80", "unix:"])
    func refuses(_ text: String) {
        #expect(throws: ServerError.self) { try ListenAddress(parsing: text) }
    }
}

/// The server's error logs its own message, as every public error does.
struct ServerErrorMessageTests {
    @Test func localizedDescriptionIsTheMessage() {
        let error: any Error = ServerError(.cannotListen, "cannot listen on 127.0.0.1:8080: Address already in use")
        #expect(error.localizedDescription == "cannot listen on 127.0.0.1:8080: Address already in use")
    }
}
