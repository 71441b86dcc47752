import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A socket bound and listening, made here rather than by libmicrohttpd so that one code path
/// serves TCP (a name or a numeric address, port 0 for any free port) and Unix-domain
/// sockets, and so that the port actually bound can be read back.
struct ListeningSocket: Sendable {
    /// The file descriptor, non-blocking and close-on-exec.
    let descriptor: Int32
    /// The address as bound: a TCP port of 0 replaced by the one chosen.
    let address: ListenAddress

    /// Connections the kernel queues before they are accepted.
    static let backlog: Int32 = 1024

    static func open(_ address: ListenAddress) throws(ServerError) -> ListeningSocket {
        switch address {
        case .tcp(let host, let port): return try openTCP(host: host, port: port)
        case .unix(let path): return try openUnix(path: path)
        }
    }

    private static func openTCP(host: String, port: Int) throws(ServerError) -> ListeningSocket {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let info = list else {
            throw ServerError(.invalidAddress, "cannot resolve '\(host)': \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        let label = ListenAddress.tcp(host: host, port: port).description
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure(label) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(fd, backlog) == 0 else {
            let error = failure(label)
            close(fd)
            throw error
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let family = Int32(bound.ss_family)
        let boundPort: Int = withUnsafePointer(to: &bound) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
        return ListeningSocket(descriptor: fd, address: .tcp(host: host, port: boundPort))
    }

    private static func openUnix(path: String) throws(ServerError) -> ListeningSocket {
        let label = "unix:\(path)"
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            throw ServerError(.invalidAddress, "cannot listen on \(label): the path is longer than \(capacity - 1) bytes")
        }
        // A socket file left by an earlier run would make bind fail; any other file is not ours.
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else {
                throw ServerError(.cannotListen, "cannot listen on \(label): a file that is not a socket is there")
            }
            unlink(path)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure(label) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let error = failure(label)
            close(fd)
            throw error
        }
        return ListeningSocket(descriptor: fd, address: .unix(path: path))
    }

    private static func failure(_ label: String) -> ServerError {
        ServerError(.cannotListen, "cannot listen on \(label): \(String(cString: strerror(errno)))")
    }
}
