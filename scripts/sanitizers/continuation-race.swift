// Proof that ThreadSanitizer reports a race inside Swift 6.3.1's own continuations, without
// Pictor (docs/sanitizers.md, scripts/sanitizers/tsan.supp). Each call suspends on an
// `UnsafeContinuation` that another thread resumes exactly once, while the body is still
// running; nothing else is shared. TSan reports "Write … in withUnsafeThrowingContinuation …
// TY0_" (the awaiting task going on in its frame) against "Previous read … in
// UnsafeContinuation.resume(returning:)" (the resumer reading the continuation's context in
// that frame) within seconds, every run here: when the resume lands before the suspension,
// the task goes on without being enqueued, and the runtime's atomic hand-over (uninstrumented
// libswift_Concurrency.so) is the only order between the two, which TSan cannot see.
//
//   swiftc -sanitize=thread -g -Onone -parse-as-library scripts/sanitizers/continuation-race.swift -o /tmp/continuation-race
//   TSAN_OPTIONS=halt_on_error=0 /tmp/continuation-race 200000
import Dispatch

@inline(never) func value(_ i: Int) async throws -> Int {
    try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Int, any Error>) in
        DispatchQueue.global().async { continuation.resume(returning: i) }
        // Work after handing it off, so that the resume often lands before the suspension.
        var x = 0
        for j in 0..<(i % 64) { x &+= j }
        if x == -1 { print(x) }
    }
}

@main struct Main {
    static func main() async {
        let rounds = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 200_000
        var total = 0
        await withTaskGroup(of: Int.self) { group in
            for t in 0..<4 {
                group.addTask {
                    var sum = 0
                    for i in 0..<(rounds / 4) { sum &+= (try? await value(i + t)) ?? 0 }
                    return sum
                }
            }
            for await s in group { total &+= s }
        }
        print("done \(total)")
    }
}
