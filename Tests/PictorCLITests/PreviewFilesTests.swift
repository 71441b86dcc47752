import Foundation
import Pictor
import PictorTestSupport
import Synchronization
import Testing
@testable import PictorCLI

/// The writer of `fetch --previews`: one write at a time, only the newest preview waiting, and
/// nothing written once the final image is there. Writes are a fake held at a gate.
@Suite(.timeLimit(.minutes(1))) struct PreviewFilesTests {
    static func image(width: Int) -> Image {
        Image(width: width, height: 1, layout: .rgb, pixels: Data(repeating: 0, count: width * 3))
    }

    @Test func onlyTheNewestPreviewWaitsAndTheFinalImageDropsIt() async {
        let gate = AsyncGate(isOpen: false)
        let writes = Mutex<[(width: Int, number: Int)]>([])
        let files = PreviewFiles { image, number in
            try? await gate.pass()
            writes.withLock { $0.append((image.width, number)) }
            return true
        }
        files.received(Self.image(width: 1))          // written at once
        await gate.waitUntil(waiting: 1)
        files.received(Self.image(width: 2))
        files.received(Self.image(width: 3))          // replaces 2 while 1 is written
        gate.releaseWaiting()
        await gate.waitUntil(waiting: 1)              // 3 is being written
        files.received(Self.image(width: 4))
        files.stop()                                  // the final image is there: 4 is dropped
        files.received(Self.image(width: 5))          // (none comes after it; ignored if one did)
        gate.open()
        let counts = await files.drained()
        let written = writes.withLock { $0 }
        #expect(written.map(\.width) == [1, 3])
        #expect(written.map(\.number) == [1, 2], "numbered in the order written, without gaps")
        #expect(counts == PreviewFiles.Counts(received: 4, written: 2))
    }

    @Test func stoppingBeforeAnyPreviewWritesNothing() async {
        let files = PreviewFiles { _, _ in Issue.record("nothing to write"); return true }
        files.stop()
        files.received(Self.image(width: 1))
        #expect(await files.drained() == PreviewFiles.Counts(received: 0, written: 0))
    }

    @Test func aFailedWriteIsNotCounted() async {
        let files = PreviewFiles { _, number in
            #expect(number == 1)
            return false
        }
        files.received(Self.image(width: 1))
        let first = await files.drained()
        #expect(first == PreviewFiles.Counts(received: 1, written: 0))
    }

    @Test func previewNumbersArePaddedToThreeDigits() {
        #expect(ImageJob.previewNumber(1) == "001")
        #expect(ImageJob.previewNumber(12) == "012")
        #expect(ImageJob.previewNumber(999) == "999")
        #expect(ImageJob.previewNumber(1000) == "1000")
    }
}
