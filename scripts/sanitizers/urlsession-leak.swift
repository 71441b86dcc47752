// Proof that FoundationNetworking's URLSession leaks on every request, without Pictor
// (docs/sanitizers.md). Loads LOADS URLs through each of SESSIONS sessions, invalidates each
// session as MODE says (`invalidateAndCancel`, `finishTasksAndInvalidate` or `none`), drops it,
// and exits; LeakSanitizer then reports the same 4 allocations per request (curl_url_set, from
// CFURLSessionCurlHostIsEqual) whatever MODE is: swift-corelibs-foundation 6.3 frees the
// CURLU handle with curl_free instead of curl_url_cleanup, so its URL parts are lost.
//
//   python3 -m http.server 8099 --bind 127.0.0.1 &
//   swiftc -sanitize=address -g scripts/sanitizers/urlsession-leak.swift -o /tmp/urlsession-leak
//   SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
//       /tmp/urlsession-leak 8099 invalidateAndCancel 1 50
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class Delegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) { done.signal() }
}

let arguments = CommandLine.arguments
guard arguments.count == 5, let sessions = Int(arguments[3]), let loads = Int(arguments[4]) else {
    print("usage: urlsession-leak PORT invalidateAndCancel|finishTasksAndInvalidate|none SESSIONS LOADS")
    exit(2)
}
let (port, mode) = (arguments[1], arguments[2])
for _ in 0..<sessions {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    let delegate = Delegate()
    var session: URLSession? = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    for i in 0..<loads {
        session!.dataTask(with: URL(string: "http://127.0.0.1:\(port)/?\(i)")!).resume()
        delegate.done.wait()
    }
    switch mode {
    case "invalidateAndCancel": session!.invalidateAndCancel()
    case "finishTasksAndInvalidate": session!.finishTasksAndInvalidate()
    default: break
    }
    session = nil
}
Thread.sleep(forTimeInterval: 1)  // let the sessions' queues finish their teardown
